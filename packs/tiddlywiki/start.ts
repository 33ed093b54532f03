/**
 * `bun start.ts {port}`: one TiddlyWiki instance on 127.0.0.1:{port}.
 *
 * Copies seed/ into a fresh `<tmpdir>/core-tw-XXXXXX`, runs TiddlyWiki's own server on it
 * (`node_modules/tiddlywiki/tiddlywiki.js <dir> --listen port=… host=127.0.0.1`) as a child,
 * prints `INSTANCE=<dir>` at once and, once `/` answers 200, `URL=http://127.0.0.1:{port}/`.
 * Then it stays in the foreground as the instance's supervisor:
 *
 * - SIGUSR1 (sent by reset.ts): stop the server, put the seed's tiddlers back in place, start
 *   the server again on the same port and dir, bump `generation` in .core/instance.json.
 *   A restart is needed because TiddlyWiki keeps every tiddler in memory.
 * - SIGTERM/SIGINT/SIGHUP: stop the server, remove the dir, exit 0.
 * - The server dying on its own (e.g. stop.ts killed it): exit 1, leaving the dir to stop.ts.
 *
 * Once ready it also removes stale instance dirs of this pack (lib.ts `removeStaleInstances`):
 * `core-tw-*` dirs older than 10 minutes whose supervisor is gone and that no process names,
 * left behind when a whole process group was SIGKILLed without stop.ts.
 *
 * The server runs under the same runtime that runs this script (bun; `CORE_TW_RUNTIME=node`
 * switches to node): both start in about half a second, bun slightly faster.
 *
 * @example
 * bun start.ts 8931   # → URL=http://127.0.0.1:8931/ and INSTANCE=/tmp/core-tw-AbC123
 */
import { cpSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  INSTANCE_PREFIX,
  SEED_DIR,
  type InstanceMeta,
  alive,
  metaPath,
  removeStaleInstances,
  sleep,
  tempRoot,
  tiddlywikiJs,
  waitForHttp200
} from "./lib.ts"

const READY_TIMEOUT_MS = 15_000

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`usage: bun start.ts <port> (got ${JSON.stringify(process.argv[2])})`)
  process.exit(2)
}

const runtime = process.env.CORE_TW_RUNTIME === "node" ? "node" : process.execPath
const twJs = tiddlywikiJs()
const dir = mkdtempSync(join(tempRoot(), INSTANCE_PREFIX))
const url = `http://127.0.0.1:${port}/`
mkdirSync(join(dir, ".core"))
const log = openSync(join(dir, ".core", "server.log"), "a")

const restoreSeed = (): void => {
  rmSync(join(dir, "tiddlers"), { recursive: true, force: true })
  cpSync(join(SEED_DIR, "tiddlers"), join(dir, "tiddlers"), { recursive: true })
  cpSync(join(SEED_DIR, "tiddlywiki.info"), join(dir, "tiddlywiki.info"))
}

let generation = 0
let server: ReturnType<typeof Bun.spawn> | undefined
let expectingExit = false
let shuttingDown = false

const writeMeta = (): void => {
  const meta: InstanceMeta = {
    port,
    supervisorPid: process.pid,
    serverPid: server?.pid ?? 0,
    generation,
    tag: process.env.CORE_APP_INSTANCE_TAG ?? ""
  }
  const tmp = metaPath(dir) + ".tmp"
  writeFileSync(tmp, JSON.stringify(meta) + "\n")
  renameSync(tmp, metaPath(dir))
}

const spawnServer = (): ReturnType<typeof Bun.spawn> => {
  expectingExit = false
  const child = Bun.spawn([runtime, twJs, dir, "--listen", `port=${port}`, "host=127.0.0.1"], {
    cwd: dir,
    stdin: "ignore",
    stdout: log,
    stderr: log,
    env: { ...process.env, NODE_NO_WARNINGS: "1" }
  })
  void child.exited.then((code) => {
    if (expectingExit || shuttingDown) return
    console.error(`tiddlywiki server for ${dir} exited on its own (code ${code})`)
    process.exit(1)
  })
  return child
}

const stopServer = async (): Promise<void> => {
  const child = server
  if (!child) return
  expectingExit = true
  child.kill("SIGTERM")
  const done = await Promise.race([child.exited.then(() => true), sleep(2000).then(() => false)])
  if (!done) {
    child.kill("SIGKILL")
    await child.exited
  }
  server = undefined
}

const shutdown = async (code: number): Promise<never> => {
  shuttingDown = true
  await stopServer().catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
  process.exit(code)
}

// Signals are handled from here on, so an instance stopped while it starts leaves nothing behind.
let resetting: Promise<void> | undefined
let markReady: () => void = () => undefined
const ready = new Promise<void>((r) => {
  markReady = r
})
process.on("SIGUSR1", () => {
  // After startup, one after another; reset.ts waits for the generation to move.
  resetting = (resetting ?? ready).then(reset, reset)
})
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  process.on(signal, () => void shutdown(0))
}
// Keep the event loop alive while the child runs (signals alone do not).
setInterval(() => undefined, 1 << 30)

restoreSeed()
if (!shuttingDown) server = spawnServer()
writeMeta()
// Announced at once: an instance CORE ends while it is still starting is then stopped through stop.ts.
process.stdout.write(`INSTANCE=${dir}\n`)
if (!(await waitForHttp200(url, READY_TIMEOUT_MS, () => server !== undefined && alive(server.pid)))) {
  if (shuttingDown) await new Promise(() => undefined) // shutdown() exits
  console.error(`tiddlywiki did not answer 200 at ${url} within ${READY_TIMEOUT_MS} ms; see ${join(dir, ".core", "server.log")}`)
  await shutdown(1)
}
process.stdout.write(`URL=${url}\n`)
markReady()
removeStaleInstances(dir)

async function reset(): Promise<void> {
  if (shuttingDown) return
  await stopServer()
  if (shuttingDown) return
  restoreSeed()
  server = spawnServer()
  writeMeta()
  if (!(await waitForHttp200(url, READY_TIMEOUT_MS, () => server !== undefined && alive(server.pid)))) {
    console.error(`tiddlywiki did not come back after reset at ${url}`)
    await shutdown(1)
  }
  generation += 1
  writeMeta()
}
