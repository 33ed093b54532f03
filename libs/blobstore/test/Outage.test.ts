/**
 * NATS going away pauses the stores' work instead of failing it. The client's default
 * reconnect budget (10 attempts, 2 s apart) closes a connection after about 20 s; an
 * outage longer than that must still end with every blob put, blob read and event append
 * done once the server is back. And a read that times out on a server too busy to answer
 * is tried again rather than failing a replay.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { runStream } from "@core/events"
import { EventStore, JetStreamStore } from "@core/eventstore"
import { job, uniqueRun } from "../../eventstore/test/conformance.ts"
import { testServer } from "../../eventstore/test/natsServer.ts"
import type { TestServer } from "../../eventstore/test/natsServer.ts"
import { BlobStore } from "../BlobStore.ts"
import * as JetStreamBlobStore from "../JetStreamBlobStore.ts"

let server: TestServer
beforeAll(async () => {
  server = await testServer()
})
afterAll(() => server.dispose())

const stores = () =>
  ManagedRuntime.make(
    Layer.mergeAll(
      JetStreamStore.layer({ url: server.url, outageLimitMs: 120_000 }),
      JetStreamBlobStore.layer({ url: server.url, outageLimitMs: 120_000 })
    ) as Layer.Layer<EventStore | BlobStore, unknown>
  )

const bytes = (text: string) => new TextEncoder().encode(`${text} ${crypto.randomUUID()}`)

test("a 25 s outage (longer than the client's default reconnect budget) pauses a blob put, a blob read and an append until the server is back", async () => {
  const rt = stores()
  try {
    const before = bytes("stored before the outage")
    const stored = await rt.runPromise(Effect.flatMap(Effect.service(BlobStore), (b) => b.put(before)))
    await server.stop()
    const during = bytes("put during the outage")
    const r = uniqueRun()
    const stream = runStream(r, "job", "w0")
    const work = rt.runPromise(
      Effect.all(
        [
          Effect.flatMap(Effect.service(BlobStore), (b) => Effect.flatMap(b.put(during), (hash) => b.get(hash))),
          Effect.flatMap(Effect.service(BlobStore), (b) => b.get(stored)),
          Effect.flatMap(Effect.service(EventStore), (s) => s.append(stream, [job(r, stream, 0)], { expectedRevision: 0 }))
        ],
        { concurrency: "unbounded" }
      )
    )
    await Bun.sleep(25_000)
    await server.start()
    const [readBack, storedBack, appended] = await work
    expect(readBack).toEqual(during)
    expect(storedBack).toEqual(before)
    expect(appended.revision).toBeGreaterThan(0)
  } finally {
    await rt.dispose()
  }
}, 90_000)

test("a read that times out on a server that answers nothing for a while is tried again and succeeds", async () => {
  const rt = stores()
  try {
    const blob = bytes("read while the server is starved")
    const hash = await rt.runPromise(Effect.flatMap(Effect.service(BlobStore), (b) => b.put(blob)))
    // Paused longer than the client's 5 s request timeout: the first read times out on a live connection.
    server.pause()
    const read = rt.runPromise(Effect.flatMap(Effect.service(BlobStore), (b) => b.get(hash)))
    await Bun.sleep(7_000)
    server.resume()
    expect(await read).toEqual(blob)
  } finally {
    server.resume()
    await rt.dispose()
  }
}, 60_000)
