/**
 * `bun stop.ts {instance}`: stops the MediaWiki instance living in `{instance}` and removes
 * the dir. Terminates the start.ts supervisor recorded in .core/instance.json (if it is still
 * this pack's start.ts), then every process whose argv names the dir (PHP's server and its
 * workers), first with SIGTERM, then SIGKILL. Idempotent: a dir that is already gone is fine.
 * Refuses (exit 2) any path that is not `<tmpdir>/core-mw-*`.
 *
 * @example
 * bun stop.ts /tmp/core-mw-AbC123
 */
import { existsSync, rmSync } from "node:fs"
import { alive, checkInstance, isSupervisor, killServers, readMeta, signalAll, sleep } from "./lib.ts"

const checked = checkInstance(process.argv[2])
if ("error" in checked) {
  console.error(`stop.ts: ${checked.error}`)
  process.exit(2)
}
const { dir } = checked

// The supervisor first: on SIGTERM it stops its server and removes the dir itself.
const meta = existsSync(dir) ? readMeta(dir) : undefined
if (meta && meta.supervisorPid > 0 && alive(meta.supervisorPid) && isSupervisor(meta.supervisorPid)) {
  signalAll([meta.supervisorPid], "SIGTERM")
  const deadline = Date.now() + 3000
  while (Date.now() < deadline && alive(meta.supervisorPid)) await sleep(25)
  if (alive(meta.supervisorPid)) signalAll([meta.supervisorPid], "SIGKILL")
}
// Then whatever still names the dir (a server whose supervisor is gone).
await killServers(dir)
rmSync(dir, { recursive: true, force: true })
