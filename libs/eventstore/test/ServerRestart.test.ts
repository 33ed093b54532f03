/**
 * The server dies mid-run and comes back: every append the store acknowledged must be in
 * the log exactly once. The test runs its own nats-server (free port, own store dir) so
 * killing it touches nobody else.
 */
import { afterAll, expect, test } from "bun:test"
import type { Subprocess } from "bun"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, ManagedRuntime, Stream } from "effect"
import { runStream } from "@core/events"
import { EventStore } from "../EventStore.ts"
import { JetStreamStore } from "../JetStreamStore.ts"
import { probeNats } from "../Select.ts"
import { job, uniqueRun } from "./conformance.ts"

const natsServer = Bun.which("nats-server") ?? "/usr/sbin/nats-server"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port
      srv.close(() => resolve(port))
    })
  })

const dir = mkdtempSync(join(tmpdir(), "core-nats-restart-"))
let server: Subprocess | null = null

const start = async (port: number) => {
  server = Bun.spawn([natsServer, "-js", "-a", "127.0.0.1", "-p", String(port), "-sd", dir], { stdout: "ignore", stderr: "ignore" })
  for (let i = 0; i < 100; i++) {
    const p = await Effect.runPromise(probeNats(`nats://127.0.0.1:${port}`, 500))
    if (p.reachable && p.jetstream) return
    await Bun.sleep(100)
  }
  throw new Error(`nats-server on port ${port} did not start`)
}

afterAll(() => {
  server?.kill("SIGKILL")
  rmSync(dir, { recursive: true, force: true })
})

test("a server killed during appends and restarted loses no acknowledged append and duplicates none", async () => {
  const port = await freePort()
  await start(port)
  const url = `nats://127.0.0.1:${port}`
  const rt = ManagedRuntime.make(JetStreamStore.layer({ url, streamName: "CORE", prefix: "core", outageLimitMs: 60_000 }) as Layer.Layer<EventStore, unknown>)
  const r = uniqueRun()
  const acked: Array<{ id: string; position: number }> = []
  const appender = (k: number) =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const s = runStream(r, "job", `w${k}`)
      let revision = 0
      for (let i = 0; i < 60; i++) {
        const e = job(r, s, i)
        const res = yield* store.append(s, [e], { expectedRevision: revision })
        revision = res.revision
        acked.push({ id: e.id, position: res.position })
        yield* Effect.sleep("10 millis")
      }
    })
  const chaos = Effect.gen(function* () {
    while (acked.length < 40) yield* Effect.sleep("5 millis")
    server!.kill("SIGKILL")
    yield* Effect.promise(() => server!.exited)
    yield* Effect.sleep("1 second")
    yield* Effect.promise(() => start(port))
  })
  try {
    await rt.runPromise(Effect.all([appender(0), appender(1), appender(2), appender(3), chaos], { concurrency: "unbounded", discard: true }))
    expect(acked.length).toBe(240)
    const log = await rt.runPromise(Effect.flatMap(Effect.service(EventStore), (st) => Stream.runCollect(st.readAll({ filter: `run.${r}.>` }))))
    const ids = log.map((e) => e.event.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(ids)).toEqual(new Set(acked.map((a) => a.id)))
    const positionOf = new Map(log.map((e) => [e.event.id, e.position]))
    for (const a of acked) expect(positionOf.get(a.id)).toBe(a.position)
  } finally {
    await rt.dispose()
  }
}, 120_000)
