/**
 * The environment a platform's episodes play in, chosen in one place for every caller that
 * plays an app's episodes (a run, a policy evaluation): desktop Chromium (web), Chromium's
 * phone emulation over chromedriver (mobile-web), or an Android device through Appium
 * (android: each episode on the server its source names, with the config's
 * `android.capabilities`).
 *
 * @example
 * const env = yield* Effect.provideContext(platformEnvironment(config, "android", { screenshots: "key", episodes: app.episodes }), context)
 */
import type { Effect, Scope } from "effect"
import type { BlobStore } from "@core/blobstore"
import { androidSettings } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { AppiumEnvironment, MobileWebEnvironment } from "@core/env-android"
import { WebEnvironment } from "@core/env-web"
import type { BrowserPool } from "@core/env-web"
import type { EnvironmentShape, EpisodeSource, ScreenshotPolicy } from "@core/environment"
import type { Platform } from "@core/events"

export interface PlatformEnvironmentOptions {
  readonly screenshots: ScreenshotPolicy
  readonly episodes: EpisodeSource
  /** Web only: open the next episode of the same task while this one plays (default false). */
  readonly prepareAhead?: boolean
  /** Web and mobile web: a set-of-marks image beside each screenshot (default false; Android has none). */
  readonly setOfMarks?: boolean
}

/** What the progress lines call a platform's environments. */
export const environmentsNamed: Readonly<Record<Platform, string>> = {
  web: "browser contexts",
  "mobile-web": "mobile-web sessions (chromedriver, phone emulation)",
  android: "Appium sessions (Android)"
}

export const platformEnvironment = (
  config: LoadedConfig,
  platform: Platform,
  o: PlatformEnvironmentOptions
): Effect.Effect<EnvironmentShape, never, BlobStore | BrowserPool | Scope.Scope> => {
  switch (platform) {
    case "android":
      return AppiumEnvironment.make({ ...androidSettings(config), screenshots: o.screenshots, episodes: o.episodes })
    case "mobile-web":
      return MobileWebEnvironment.make({
        screenshots: o.screenshots,
        setOfMarks: o.setOfMarks ?? false,
        episodes: o.episodes,
        chromium: config.values["chromium.path"],
        chromedriver: config.values["chromedriver.path"]
      })
    case "web":
      return WebEnvironment.make({
        screenshots: o.screenshots,
        prepareAhead: o.prepareAhead ?? false,
        episodes: o.episodes,
        setOfMarks: o.setOfMarks ?? false
      })
  }
}
