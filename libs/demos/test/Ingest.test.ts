/** Writing demos: blobs first, then one DemoIngested; re-ingest is a no-op; a failed blob put writes no event. */
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BlobStore, BlobStoreError, DirectoryBlobStore } from "@core/blobstore"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { demosByTask, demoStream, DemoFileError, ingestDemo, ingestFiles, loadDemo, rejectDemo, rejectedStream } from "../mod.ts"
import { validDemo, writeDemo } from "./fixture.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-demos-ingest-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const tasks = new Set(["shop-wishlist-add-1"])

test("blobs, then one DemoIngested; again is a no-op; demosByTask lists it; a rejection is one DemoRejected", async () => {
  const file = writeDemo(join(tmp, "demo"))
  const layer = Layer.mergeAll(EmbeddedStore.layer({ path: join(tmp, "a.db") }), DirectoryBlobStore.layer({ dir: join(tmp, "blobs") }))
  const program = Effect.gen(function* () {
    const demo = yield* loadDemo(file, { tasks })
    const first = yield* ingestDemo(demo, "demo/demo.json")
    const again = yield* ingestDemo(demo, "demo/demo.json")
    const blobs = yield* BlobStore
    const stored = yield* Effect.forEach(demo.blobs, (b) => blobs.has(b.hash))
    const events = yield* (yield* EventStore).readStream(demoStream(demo.demoId))
    const error = new DemoFileError({ file: "x/demo.json", demoId: null, path: "steps[0].action", problem: "missing", stepIndex: 0 })
    yield* rejectDemo(error, "x/demo.json")
    yield* rejectDemo(error, "x/demo.json")
    const rejected = yield* (yield* EventStore).readStream(rejectedStream("x/demo.json"))
    return { first, again, stored, events, byTask: yield* demosByTask, rejected }
  })
  const r = await Effect.runPromise(Effect.provide(program, layer))
  expect([r.first, r.again]).toEqual(["written", "unchanged"])
  expect(r.stored).toEqual([true, true, true, true])
  expect(r.events.map((e) => e.event.type)).toEqual(["DemoIngested"])
  expect(r.events[0]!.event.data).toMatchObject({ demoId: "shop-wishlist-add-1-a", source: { kind: "file", ref: "demo/demo.json" } })
  expect([...r.byTask]).toEqual([["shop-wishlist-add-1", ["shop-wishlist-add-1-a"]]])
  expect(r.rejected.map((e) => [e.event.type, (e.event.data as any).reason])).toEqual([["DemoRejected", "steps[0].action: missing"]])
})

test("a failed blob put appends no event", async () => {
  const file = writeDemo(join(tmp, "demo2"))
  const failing = Layer.succeed(BlobStore, {
    kind: "directory",
    put: () => Effect.fail(new BlobStoreError({ reason: "disk full" })),
    get: () => Effect.die("unused"),
    has: () => Effect.succeed(false)
  })
  const layer = Layer.mergeAll(EmbeddedStore.layer({ path: join(tmp, "b.db") }), failing)
  const program = Effect.gen(function* () {
    const demo = yield* loadDemo(file, { tasks })
    const result = yield* Effect.flip(ingestDemo(demo, "demo2/demo.json"))
    return { result, head: yield* (yield* EventStore).head() }
  })
  const r = await Effect.runPromise(Effect.provide(program, layer))
  expect(r.result).toBeInstanceOf(BlobStoreError)
  expect(r.head).toBe(0)
})

test("another writer first on one demo's stream: that file fails in one line, the next file is still ingested", async () => {
  const first = writeDemo(join(tmp, "race", "a"))
  const second = validDemo()
  second.demoId = "shop-wishlist-add-1-b"
  const other = writeDemo(join(tmp, "race", "b"), second)
  const real = EmbeddedStore.layer({ path: join(tmp, "race.db") })
  const blobs = DirectoryBlobStore.layer({ dir: join(tmp, "race-blobs") })
  // A real race, made deterministic: just before the first append to demo a's stream, another ingest of demo a (from another path) commits.
  const racing = Layer.effect(
    EventStore,
    Effect.gen(function* () {
      const store = yield* EventStore
      const blobStore = yield* BlobStore
      let raced = false
      return EventStore.of({
        ...store,
        append: (stream, events, options) =>
          Effect.gen(function* () {
            if (!raced && stream === demoStream("shop-wishlist-add-1-a")) {
              raced = true
              const demo = yield* loadDemo(first, { tasks }).pipe(Effect.orDie)
              yield* ingestDemo(demo, "elsewhere/demo.json").pipe(
                Effect.provideService(EventStore, store),
                Effect.provideService(BlobStore, blobStore),
                Effect.orDie
              )
            }
            return yield* store.append(stream, events, options)
          })
      })
    })
  ).pipe(Layer.provide(Layer.mergeAll(real, blobs)))
  const lines: Array<string> = []
  const program = Effect.gen(function* () {
    const summary = yield* ingestFiles([first, other], { tasks }, (l) => lines.push(l))
    return { summary, b: yield* (yield* EventStore).readStream(demoStream("shop-wishlist-add-1-b")) }
  })
  const r = await Effect.runPromise(Effect.provide(program, Layer.mergeAll(racing, blobs)))
  expect(r.summary).toMatchObject({ ingested: 1, skipped: 0, rejected: [] })
  expect(r.summary.failed).toEqual([{ file: first, error: expect.stringContaining("another writer appended first") }])
  expect(lines[0]).toStartWith(`1/2 ${first} failed: stream ws.demo.shop-wishlist-add-1-a is at revision`)
  expect(lines[1]).toEndWith("ingested")
  expect(r.b.map((e) => e.event.type)).toEqual(["DemoIngested"])
})
