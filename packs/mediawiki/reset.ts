/**
 * `bun reset.ts {instance}`: puts the instance back to the template, in place (same dir,
 * port and URL), while its server keeps running.
 *
 * MediaWiki keeps no state in the server process: every request opens the SQLite databases
 * anew. So a reset copies the template's `data/` beside the instance's and swaps the two
 * with renames; a request already running keeps the files it opened. Run it between
 * episodes, not during one. Exit 0 done, 1 failed, 2 usage.
 *
 * @example
 * bun reset.ts /tmp/core-mw-AbC123
 */
import { cpSync, existsSync, renameSync, rmSync } from "node:fs"
import { join } from "node:path"
import { checkInstance } from "./lib.ts"
import { ensureTemplate } from "./template.ts"

const checked = checkInstance(process.argv[2])
if ("error" in checked) {
  console.error(`reset.ts: ${checked.error}`)
  process.exit(2)
}
const { dir } = checked
if (!existsSync(join(dir, "LocalSettings.php"))) {
  console.error(`reset.ts: ${dir} is not a live instance (no LocalSettings.php)`)
  process.exit(1)
}
const template = await ensureTemplate()
const fresh = join(dir, "data.reset")
const old = join(dir, "data.old")
rmSync(fresh, { recursive: true, force: true })
rmSync(old, { recursive: true, force: true })
cpSync(join(template, "data"), fresh, { recursive: true })
renameSync(join(dir, "data"), old)
renameSync(fresh, join(dir, "data"))
rmSync(old, { recursive: true, force: true })
