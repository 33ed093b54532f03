/**
 * `bun start.ts {port}`: one MediaWiki instance on 127.0.0.1:{port}.
 *
 * Copies the installed template (template.ts; built on the very first start, ~10 s, under a
 * lock so that two starts at once build it once) into a fresh `<tmpdir>/core-mw-XXXXXX`,
 * serves it with PHP's built-in server (`php -S 127.0.0.1:{port} -t /usr/share/mediawiki`,
 * settings from the copy through `MW_CONFIG_FILE`), and once the main page answers 200 prints
 * `URL=http://127.0.0.1:{port}/` and `INSTANCE=<dir>`. Then it stays in the foreground as
 * the instance's supervisor:
 *
 * - SIGTERM/SIGINT/SIGHUP: stop the server and its workers, remove the dir, exit 0.
 * - The server dying on its own: exit 1, leaving the dir to stop.ts (removing it when the
 *   instance was never announced).
 *
 * Once ready it also removes stale instance dirs of this pack (lib.ts `removeStaleInstances`),
 * left behind when a whole process group was SIGKILLed without stop.ts.
 *
 * @example
 * bun start.ts 8931   # → URL=http://127.0.0.1:8931/ and INSTANCE=/tmp/core-mw-AbC123
 */
import { cpSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  INSTANCE_PREFIX,
  type InstanceMeta,
  alive,
  killServers,
  metaPath,
  missingPackages,
  phpServerArgv,
  phpServerEnv,
  removeStaleInstances,
  tempRoot,
  waitForHttp200
} from "./lib.ts"
import { ensureTemplate } from "./template.ts"

const READY_TIMEOUT_MS = 30_000

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`usage: bun start.ts <port> (got ${JSON.stringify(process.argv[2])})`)
  process.exit(2)
}
const missing = missingPackages()
if (missing.length > 0) {
  console.error(`the mediawiki pack needs Debian's ${missing.join(", ")}: apt-get install ${missing.join(" ")}`)
  process.exit(2)
}

let dir: string | undefined
let server: ReturnType<typeof Bun.spawn> | undefined
let shuttingDown = false

const shutdown = async (code: number): Promise<never> => {
  shuttingDown = true
  server?.kill("SIGTERM")
  if (dir) {
    await killServers(dir)
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(code)
}
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => void shutdown(0))
// Keep the event loop alive while the child runs (signals alone do not).
setInterval(() => undefined, 1 << 30)

let template: string
try {
  template = await ensureTemplate()
} catch (e) {
  console.error(`could not build the wiki template: ${(e as Error).message}`)
  process.exit(1)
}
if (shuttingDown) await new Promise(() => undefined)

dir = mkdtempSync(join(tempRoot(), INSTANCE_PREFIX))
cpSync(template, dir, { recursive: true })
mkdirSync(join(dir, ".core"), { recursive: true })
const log = openSync(join(dir, ".core", "server.log"), "a")
const instanceDir = dir
server = Bun.spawn([...phpServerArgv(port, instanceDir)], { env: phpServerEnv(instanceDir), stdin: "ignore", stdout: log, stderr: log })
let announced = false
void server.exited.then(async (code) => {
  if (shuttingDown) return
  console.error(`the PHP server for ${instanceDir} exited on its own (code ${code}); see ${join(instanceDir, ".core", "server.log")}`)
  // Before URL= no one knows the dir, so no stop.ts will come for it.
  if (!announced) await shutdown(1)
  process.exit(1)
})
const meta: InstanceMeta = { port, supervisorPid: process.pid, tag: process.env.CORE_APP_INSTANCE_TAG ?? "" }
writeFileSync(metaPath(instanceDir), `${JSON.stringify(meta)}\n`)

const url = `http://127.0.0.1:${port}/`
// The main page, not `/` (a redirect): it is the first page every episode loads, now compiled.
if (!(await waitForHttp200(`${url}index.php/Main_Page`, READY_TIMEOUT_MS, () => server !== undefined && alive(server.pid)))) {
  if (shuttingDown) await new Promise(() => undefined)
  console.error(`MediaWiki did not answer 200 at ${url} within ${READY_TIMEOUT_MS} ms; see ${join(instanceDir, ".core", "server.log")}`)
  await shutdown(1)
}
process.stdout.write(`URL=${url}\nINSTANCE=${instanceDir}\n`)
announced = true
removeStaleInstances(instanceDir)
