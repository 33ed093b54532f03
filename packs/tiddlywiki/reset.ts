/**
 * `bun reset.ts {instance}`: puts the instance back to the seed, in place (same dir, port, URL).
 *
 * TiddlyWiki's server holds every tiddler in memory and would write its stale copies back,
 * so a file-level restore alone is not enough: this asks the instance's start.ts supervisor
 * (SIGUSR1) to stop the server, restore seed/tiddlers into the dir and start the server again,
 * and waits until the supervisor reports the reset done (generation bumped, HTTP 200 again).
 * About as fast as a start (~0.5 s). Open pages of the old server must be closed first (the
 * harness gives each episode a fresh browser context): a page left open would keep its own
 * copy of the wiki and could sync it back.
 *
 * With no server running for the dir, the files are restored directly. Exit 0 done, 1 failed,
 * 2 usage.
 *
 * @example
 * bun reset.ts /tmp/core-tw-AbC123
 */
import { cpSync, existsSync, rmSync } from "node:fs"
import { join } from "node:path"
import { SEED_DIR, alive, checkInstance, isSupervisor, processesNaming, readMeta, sleep } from "./lib.ts"

const TIMEOUT_MS = 15_000

const checked = checkInstance(process.argv[2])
if ("error" in checked) {
  console.error(`reset.ts: ${checked.error}`)
  process.exit(2)
}
const { dir } = checked
if (!existsSync(join(dir, "tiddlywiki.info"))) {
  console.error(`reset.ts: ${dir} is not a live instance (no tiddlywiki.info)`)
  process.exit(1)
}

const meta = readMeta(dir)
if (meta && meta.supervisorPid > 0 && alive(meta.supervisorPid) && isSupervisor(meta.supervisorPid)) {
  const before = meta.generation
  process.kill(meta.supervisorPid, "SIGUSR1")
  const deadline = Date.now() + TIMEOUT_MS
  while (Date.now() < deadline) {
    await sleep(30)
    const now = readMeta(dir)
    if (now && now.generation > before) process.exit(0)
    if (!alive(meta.supervisorPid)) break
  }
  console.error(`reset.ts: the instance's server did not come back within ${TIMEOUT_MS} ms (see ${join(dir, ".core", "server.log")})`)
  process.exit(1)
}

if (processesNaming(dir).some(alive)) {
  console.error(`reset.ts: a server is running on ${dir} without this pack's supervisor; cannot reset it in place`)
  process.exit(1)
}
rmSync(join(dir, "tiddlers"), { recursive: true, force: true })
cpSync(join(SEED_DIR, "tiddlers"), join(dir, "tiddlers"), { recursive: true })
