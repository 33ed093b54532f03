/**
 * The projector on real databases (SQLite file, PostgreSQL database) and real stores
 * (embedded file, JetStream): catch-up in small batches equals one big batch, live mode
 * follows new commits, and the digest of one log is the same on every database and store.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { EventStore } from "@core/eventstore"
import { migrate, openReadModels, readCheckpoints, rebuildAndDigest, runProjector, tableDigest } from "../mod.ts"
import { appendAll, eventCount, generateLog } from "./generate.ts"
import { freshDb, freshStore } from "./support.ts"
import type { FreshDb, FreshStore } from "./support.ts"

const log = generateLog({ prefix: "p", runs: 2, rounds: 2, tasks: 6, samples: 3 })
const total = eventCount(log)
const half = Math.floor(log.length / 2)
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})
const track = <T extends FreshDb | FreshStore>(x: T): T => {
  cleanups.push(x.cleanup)
  return x
}

const digests: Record<string, string> = {}

for (const storeKind of ["embedded", "nats"] as const) {
  for (const dbKind of ["sqlite", "postgres"] as const) {
    describe(`projector: ${storeKind} store → ${dbKind}`, () => {
      test("catch-up in small batches, then live, equals a clean rebuild", async () => {
        const store = track(await freshStore(storeKind))
        const db = track(await freshDb(dbKind))
        const program = Effect.scoped(
          Effect.gen(function* () {
            const revisions = new Map<string, number>()
            yield* appendAll(log.slice(0, half), revisions)
            const rm = yield* openReadModels(db.url)
            expect(yield* migrate(rm)).toEqual(["0001_read_models", "0002_graph_node_value", "0003_graph_path_signature"])
            const progress: Array<number> = []
            const first = yield* runProjector(rm, { batchSize: 7, onProgress: (p) => progress.push(p.position) })
            expect(first.batches).toBeGreaterThan(3)
            expect(progress).toEqual([...progress].sort((a, b) => a - b))
            // Nothing new: a second catch-up reads nothing and changes nothing.
            const again = yield* runProjector(rm)
            expect(again.events).toBe(0)

            // Live: the projector follows commits appended while it runs.
            const fiber = yield* Effect.forkChild(runProjector(rm, { live: true, batchSize: 50 }))
            yield* appendAll(log.slice(half), revisions)
            const head = yield* (yield* EventStore).head()
            yield* Effect.gen(function* () {
              for (let i = 0; i < 400; i++) {
                const cps = yield* readCheckpoints(rm)
                const min = Math.min(...[...cps.values()].map((c) => c.position))
                if (cps.size === 8 && min >= head) return
                yield* Effect.sleep("25 millis")
              }
              throw new Error("live projector did not catch up")
            })
            yield* Fiber.interrupt(fiber)

            const live = yield* tableDigest(rm)
            const rebuilt = yield* rebuildAndDigest()
            expect(rebuilt.events).toBe(total)
            expect(live.tables).toEqual(rebuilt.tables)
            expect(live.digest).toBe(rebuilt.digest)
            expect(live.tables.trajectories!.rows).toBe(2 * 2 * 6 * 3)
            digests[`${storeKind}/${dbKind}`] = live.digest
          })
        )
        await Effect.runPromise(Effect.provide(program, store.layer))
      })
    })
  }
}

test("the same log digests the same on SQLite and PostgreSQL, from either store", () => {
  const values = Object.values(digests)
  expect(values.length).toBe(4)
  expect(new Set(values).size).toBe(1)
})

for (const dbKind of ["sqlite", "postgres"] as const) {
  test(`a second writer moving a checkpoint stops the projector with ProjectorConflict (${dbKind})`, async () => {
    const store = track(await freshStore("embedded"))
    const db = track(await freshDb(dbKind))
    const program = Effect.scoped(
      Effect.gen(function* () {
        const revisions = new Map<string, number>()
        yield* appendAll(log.slice(0, half), revisions)
        const rm = yield* openReadModels(db.url)
        yield* migrate(rm)
        yield* runProjector(rm)
        const fiber = yield* Effect.forkChild(Effect.flip(runProjector(rm, { live: true, batchSize: 10 })))
        yield* Effect.sleep("200 millis")
        // Another projector (or a person) moves one checkpoint behind this one's back.
        yield* Effect.promise(() =>
          rm.db.updateTable("projection_checkpoints").set({ position: 1, event_index: 0 }).where("name", "=", "runs").execute()
        )
        yield* appendAll(log.slice(half), revisions)
        const error = yield* Fiber.join(fiber).pipe(Effect.timeout("20 seconds"))
        expect(error._tag).toBe("ProjectorConflict")
        expect(error.message).toContain("runs")
        expect(error.message).not.toContain("\n")
        // Nothing of the conflicting batch was written: the moved checkpoint is as it was set.
        expect((yield* readCheckpoints(rm)).get("runs")).toEqual({ position: 1, index: 0 })
      })
    )
    await Effect.runPromise(Effect.provide(program, store.layer))
  })
}
