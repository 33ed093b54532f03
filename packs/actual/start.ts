/**
 * `bun start.ts {port}`: one Actual Budget instance on 127.0.0.1:{port}.
 *
 * Copies seed/ (a bootstrapped sync server holding the "Harbor Household" budget) into a fresh
 * `<tmpdir>/core-actual-XXXXXX`, writes the server's config.json for {port}, runs
 * `@actual-app/sync-server` (which also serves the `@actual-app/web` app) on {port} under node
 * as a child. Once `/` answers 200 it prints `INSTANCE=<dir>` and `URL=http://127.0.0.1:{port}/`. Then it stays in
 * the foreground: on SIGTERM/SIGINT/SIGHUP it stops the server, removes the dir and exits 0;
 * if the server dies on its own it exits 1.
 */
import { cpSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { INSTANCE_PREFIX, SEED_DIR, SERVER_JS, installed, metaPath, tempRoot, waitForHttp200 } from "./lib.ts"

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`usage: bun start.ts <port> (got ${JSON.stringify(process.argv[2] ?? "")})`)
  process.exit(2)
}
if (!installed()) {
  console.error("Actual Budget is not installed in packs/actual: run scripts/setup (npm ci in the pack and its native build)")
  process.exit(2)
}

const dir = mkdtempSync(join(tempRoot(), INSTANCE_PREFIX))
cpSync(SEED_DIR, dir, { recursive: true })
mkdirSync(join(dir, ".core"), { recursive: true })
writeFileSync(
  join(dir, "config.json"),
  JSON.stringify({
    port,
    hostname: "127.0.0.1",
    dataDir: dir,
    serverFiles: join(dir, "server-files"),
    userFiles: join(dir, "user-files"),
    // No HTTPS, no reverse proxy, no OpenID: the password login of the seed.
    loginMethod: "password"
  })
)
const log = openSync(join(dir, ".core", "server.log"), "a")
// NODE_ENV=production: the server serves the built web app and logs less.
const server = Bun.spawn(["node", SERVER_JS, "--config", join(dir, "config.json")], {
  cwd: dir,
  env: { ...process.env, NODE_ENV: "production" },
  stdio: ["ignore", log, log]
})
let stopping = false
writeFileSync(metaPath(dir), JSON.stringify({ port, supervisorPid: process.pid, serverPid: server.pid }))

const shutdown = async () => {
  if (stopping) return
  stopping = true
  server.kill("SIGTERM")
  const timer = setTimeout(() => server.kill("SIGKILL"), 2000)
  await server.exited
  clearTimeout(timer)
  rmSync(dir, { recursive: true, force: true })
  process.exit(0)
}
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void shutdown())

const url = `http://127.0.0.1:${port}/`
if (!(await waitForHttp200(url, 60_000, () => server.exitCode === null))) {
  console.error(`the sync server did not answer 200 at ${url}; see ${join(dir, ".core", "server.log")}`)
  server.kill("SIGKILL")
  await server.exited
  rmSync(dir, { recursive: true, force: true })
  process.exit(1)
}
console.log(`INSTANCE=${dir}`)
console.log(`URL=${url}`)
const code = await server.exited
if (!stopping) {
  console.error(`the sync server exited with code ${code}`)
  process.exit(1)
}
