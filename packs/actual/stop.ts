/**
 * `bun stop.ts {instance}`: stops an instance and removes its dir. Terminates the supervisor
 * recorded in .core/instance.json (if it is this pack's start.ts), then anything whose argv
 * still names the dir (the sync server is started with `--config <dir>/config.json`), then
 * removes the dir. Idempotent; refuses (exit 2) any path but `<tmpdir>/core-actual-*`.
 */
import { rmSync } from "node:fs"
import { alive, checkInstance, isSupervisor, processesNaming, readMeta, sleep } from "./lib.ts"

const checked = checkInstance(process.argv[2])
if ("error" in checked) {
  console.error(checked.error)
  process.exit(2)
}
const { dir } = checked
const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig)
  } catch {
    // already gone
  }
}
const meta = readMeta(dir)
const targets = [...processesNaming(dir)]
if (meta && alive(meta.supervisorPid) && isSupervisor(meta.supervisorPid)) targets.push(meta.supervisorPid)
for (const pid of targets) signal(pid, "SIGTERM")
const deadline = Date.now() + 3000
while (Date.now() < deadline && targets.some(alive)) await sleep(25)
for (const pid of targets) if (alive(pid)) signal(pid, "SIGKILL")
for (const pid of processesNaming(dir)) signal(pid, "SIGKILL")
rmSync(dir, { recursive: true, force: true })
