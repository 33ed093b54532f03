/**
 * The server dies mid-run and comes back: every append the store acknowledged must be in
 * the log exactly once. The test runs its own nats-server (free port, own store dir) so
 * killing it touches nobody else.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect, type Layer, ManagedRuntime, Stream } from "effect"
import { runStream } from "@core/events"
import { EventStore } from "../EventStore.ts"
import { JetStreamStore } from "../JetStreamStore.ts"
import { job, uniqueRun } from "./conformance.ts"
import { testServer } from "./natsServer.ts"

const server = await testServer()
afterAll(() => server.dispose())

test("a server killed during appends and restarted loses no acknowledged append and duplicates none", async () => {
  const rt = ManagedRuntime.make(
    JetStreamStore.layer({ url: server.url, streamName: "CORE", prefix: "core", outageLimitMs: 60_000 }) as Layer.Layer<EventStore, unknown>
  )
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
    yield* Effect.promise(() => server.stop())
    yield* Effect.sleep("1 second")
    yield* Effect.promise(() => server.start())
  })
  try {
    await rt.runPromise(
      Effect.all([appender(0), appender(1), appender(2), appender(3), chaos], { concurrency: "unbounded", discard: true })
    )
    expect(acked.length).toBe(240)
    const log = await rt.runPromise(
      Effect.flatMap(Effect.service(EventStore), (st) => Stream.runCollect(st.readAll({ filter: `run.${r}.>` })))
    )
    const ids = log.map((e) => e.event.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(ids)).toEqual(new Set(acked.map((a) => a.id)))
    const positionOf = new Map(log.map((e) => [e.event.id, e.position]))
    for (const a of acked) expect(positionOf.get(a.id)).toBe(a.position)
  } finally {
    await rt.dispose()
  }
}, 120_000)
