/**
 * `bun stop.ts {instance}`: stops the TiddlyWiki instance living in `{instance}` and removes
 * the dir. Kills the start.ts supervisor recorded in .core/instance.json (if it is still this
 * pack's start.ts) and every process whose argv names the dir (the TiddlyWiki server), first
 * with SIGTERM, then SIGKILL. Idempotent: a dir that is already gone is fine. Refuses (exit 2)
 * any path that is not `<tmpdir>/core-tw-*`.
 *
 * @example
 * bun stop.ts /tmp/core-tw-AbC123
 */
import { existsSync, rmSync } from "node:fs"
import { alive, checkInstance, isSupervisor, processesNaming, readMeta, sleep } from "./lib.ts"

const checked = checkInstance(process.argv[2])
if ("error" in checked) {
  console.error(`stop.ts: ${checked.error}`)
  process.exit(2)
}
const { dir } = checked

const signal = (pid: number, sig: NodeJS.Signals): void => {
  try {
    process.kill(pid, sig)
  } catch {
    // already gone
  }
}

// The supervisor first: on SIGTERM it stops its server and removes the dir itself.
const meta = existsSync(dir) ? readMeta(dir) : undefined
if (meta && meta.supervisorPid > 0 && alive(meta.supervisorPid) && isSupervisor(meta.supervisorPid)) {
  signal(meta.supervisorPid, "SIGTERM")
  const deadline = Date.now() + 3000
  while (Date.now() < deadline && alive(meta.supervisorPid)) await sleep(25)
  if (alive(meta.supervisorPid)) signal(meta.supervisorPid, "SIGKILL")
}
// Then whatever still names the dir (a server whose supervisor is gone).
const targets = processesNaming(dir).filter(alive)
for (const pid of targets) signal(pid, "SIGTERM")
const deadline = Date.now() + 3000
while (Date.now() < deadline && targets.some(alive)) await sleep(25)
for (const pid of targets) if (alive(pid)) signal(pid, "SIGKILL")
// Anything that appeared meanwhile (e.g. a server restarted by a reset in flight).
for (let i = 0; i < 20; i++) {
  const left = processesNaming(dir).filter(alive)
  if (left.length === 0) break
  for (const pid of left) signal(pid, "SIGKILL")
  await sleep(50)
}
rmSync(dir, { recursive: true, force: true })
