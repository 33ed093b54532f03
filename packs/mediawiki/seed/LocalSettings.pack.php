<?php
# The pack's own settings, appended by template.ts to the LocalSettings.php that MediaWiki's
# installer (maintenance/install.php) wrote. Each instance is a copy of the template dir, so
# every path here is relative to the copy (__DIR__), and the server name is taken from the
# request (each instance has its own port).

# Page URLs as /index.php/Title: PHP's built-in server passes the path info to index.php.
$wgArticlePath = "/index.php/$1";
$wgUsePathInfo = true;

# The object cache (parser output, ResourceLoader's minified modules) in the instance's own
# SQLite cache database, which the template ships warm.
$wgMainCacheType = CACHE_DB;
$wgCacheDirectory = __DIR__ . "/cache";

# A local wiki with no mail and no uploads.
$wgEnableEmail = false;
$wgEnableUserEmail = false;
$wgEnableUploads = false;
$wgUseImageMagick = false;

# Anyone may read and edit (MediaWiki's default); accounts are made by the pack, not by visitors.
$wgGroupPermissions['*']['createaccount'] = false;

$wgShowExceptionDetails = true;

# One control named "Edit" per page: without the "[edit]" links beside each section heading,
# the page's own Edit tab is the only one (a step targets controls by role and name).
$wgHooks['ParserOutputPostCacheTransform'][] = static function ( $parserOutput, &$text, &$options ) {
	$options['enableSectionEditLinks'] = false;
};
