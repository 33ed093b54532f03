/**
 * Crash safety (docs/architecture.md, "Projections and read models"): a projector process SIGKILLed mid-stream and restarted ends
 * with exactly the tables a clean rebuild gives — rows and checkpoint in one transaction
 * mean no event is applied twice or skipped — on SQLite and PostgreSQL, reading the
 * embedded log and JetStream.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { join } from "node:path"
import { EventStore } from "@core/eventstore"
import { openReadModels, readCheckpoints, rebuildAndDigest, tableDigest } from "../mod.ts"
import { appendAll, eventCount, generateLog } from "./generate.ts"
import { freshDb, freshStore } from "./support.ts"
import type { FreshDb, FreshStore } from "./support.ts"

const CHILD = join(import.meta.dir, "fixtures", "projector-child.ts")
const log = generateLog({ prefix: "k", runs: 3, rounds: 3, tasks: 16, samples: 4 })

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})
const track = <T extends FreshDb | FreshStore>(x: T): T => {
  cleanups.push(x.cleanup)
  return x
}

const spawnChild = (store: FreshStore, db: FreshDb, pauseMs: number) =>
  Bun.spawn(["bun", CHILD, JSON.stringify({ store: store.spec, databaseUrl: db.url, batchSize: 25, pauseMs })], {
    stdout: "pipe",
    stderr: "pipe"
  })

/** Resolves once the child reports a checkpoint at or past `position`. */
const reached = async (proc: ReturnType<typeof spawnChild>, position: number): Promise<number> => {
  const decoder = new TextDecoder()
  let buffer = ""
  for await (const chunk of proc.stdout) {
    buffer += decoder.decode(chunk)
    for (const line of buffer.split("\n")) {
      const m = /^checkpoint (\d+)$/.exec(line)
      if (m && Number(m[1]) >= position) return Number(m[1])
    }
    buffer = buffer.slice(buffer.lastIndexOf("\n") + 1)
  }
  throw new Error(`child ended before checkpoint ${position}: ${await new Response(proc.stderr).text()}`)
}

test("the generated log is a few thousand events", () => {
  expect(eventCount(log)).toBeGreaterThan(2000)
})

for (const [storeKind, dbKind] of [
  ["embedded", "sqlite"],
  ["embedded", "postgres"],
  ["nats", "sqlite"],
  ["nats", "postgres"]
] as const) {
  describe(`projector crash: ${storeKind} store, ${dbKind}`, () => {
    test("SIGKILL mid-stream, restart, and the tables equal a clean rebuild", async () => {
      const store = track(await freshStore(storeKind))
      const db = track(await freshDb(dbKind))
      const fresh = track(await freshDb(dbKind))
      const head = await Effect.runPromise(
        Effect.provide(
          Effect.gen(function* () {
            yield* appendAll(log)
            return yield* (yield* EventStore).head()
          }),
          store.layer
        )
      )

      // Kill it twice, at a third and at two thirds of the log.
      for (const fraction of [1 / 3, 2 / 3]) {
        const child = spawnChild(store, db, 3)
        await reached(child, Math.floor(head * fraction))
        child.kill("SIGKILL")
        await child.exited
        expect(child.signalCode).toBe("SIGKILL")
        const at = await Effect.runPromise(Effect.scoped(Effect.flatMap(openReadModels(db.url), readCheckpoints)))
        const positions = [...at.values()].map((c) => c.position)
        expect(positions.length).toBe(8)
        expect(Math.max(...positions)).toBeLessThan(head)
        expect(Math.min(...positions)).toBeGreaterThanOrEqual(Math.floor(head * fraction))
      }

      const last = spawnChild(store, db, 0)
      const [out, code] = await Promise.all([new Response(last.stdout).text(), last.exited])
      expect(code).toBe(0)
      expect(out).toContain(`done ${head} `)

      const [live, rebuilt] = await Effect.runPromise(
        Effect.provide(
          Effect.scoped(
            Effect.gen(function* () {
              const live = yield* tableDigest(yield* openReadModels(db.url))
              const rebuilt = yield* rebuildAndDigest({ databaseUrl: fresh.url })
              return [live, rebuilt] as const
            })
          ),
          store.layer
        )
      )
      expect(rebuilt.events).toBe(eventCount(log))
      expect(live.tables).toEqual(rebuilt.tables)
      expect(live.digest).toBe(rebuilt.digest)
    })
  })
}
