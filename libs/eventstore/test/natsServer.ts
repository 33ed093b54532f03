/**
 * A nats-server of a test's own (free port, own store dir), so stopping, pausing or
 * securing it touches no other test and not the shared server on 4222.
 */
import type { Subprocess } from "bun"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const binary = Bun.which("nats-server") ?? "/usr/sbin/nats-server"

export const freePort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })

/** Waits until something accepts TCP connections on the port (the server is listening). */
const listening = async (port: number) => {
  for (let i = 0; i < 100; i++) {
    const up = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
      (s) => (s.end(), true),
      () => false
    )
    if (up) return
    await Bun.sleep(100)
  }
  throw new Error(`nats-server on port ${port} did not start`)
}

export interface TestServer {
  readonly url: string
  readonly port: number
  /** Starts the server (again: same port, same store dir). */
  readonly start: () => Promise<void>
  /** Kills it and waits until it is gone. */
  readonly stop: () => Promise<void>
  /** SIGSTOP / SIGCONT: connected, but answering nothing, as a server starved of CPU. */
  readonly pause: () => void
  readonly resume: () => void
  readonly dispose: () => void
}

export const testServer = async (extraArgs: ReadonlyArray<string> = []): Promise<TestServer> => {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), "core-nats-test-"))
  let proc: Subprocess | null = null
  const start = async () => {
    proc = Bun.spawn([binary, "-js", "-a", "127.0.0.1", "-p", String(port), "-sd", dir, ...extraArgs], {
      stdout: "ignore",
      stderr: "ignore"
    })
    await listening(port)
  }
  const stop = async () => {
    proc?.kill("SIGKILL")
    await proc?.exited
  }
  await start()
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    start,
    stop,
    pause: () => proc?.kill("SIGSTOP"),
    resume: () => proc?.kill("SIGCONT"),
    dispose: () => {
      proc?.kill("SIGKILL")
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
