/** Projection replay: the live read models compared with a rebuild to the same checkpoint — equal, then tampered. */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { compareWithRebuild, migrate, openReadModels, runProjector, tableDigest } from "../mod.ts"
import { appendAll, generateLog } from "./generate.ts"
import { freshDb, freshEmbedded } from "./support.ts"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const c of cleanups) await c()
})

for (const kind of ["sqlite", "postgres"] as const) {
  test(`compareWithRebuild on ${kind}: equal, scoped to a run, and a tampered row is named`, async () => {
    const store = await freshEmbedded()
    const db = await freshDb(kind)
    cleanups.push(store.cleanup, db.cleanup)
    const log = generateLog({ prefix: "c", runs: 2, rounds: 1, tasks: 4, samples: 2 })
    await Effect.runPromise(
      Effect.provide(
        Effect.scoped(
          Effect.gen(function* () {
            const revisions = new Map<string, number>()
            yield* appendAll(log.slice(0, 60), revisions)
            const rm = yield* openReadModels(db.url)
            yield* migrate(rm)
            yield* runProjector(rm)
            // Events after the live checkpoint are not the live database's business: the rebuild stops where it stands.
            yield* appendAll(log.slice(60), revisions)

            const same = yield* compareWithRebuild(rm)
            expect(same.settled).toBe(true)
            expect(same.equal).toBe(true)
            expect(same.differingTables).toEqual([])

            const scoped = yield* tableDigest(rm, { runId: "c-run-0" })
            expect(scoped.digest).not.toBe(same.live.digest)
            expect((yield* compareWithRebuild(rm, { runId: "c-run-0" })).equal).toBe(true)

            yield* Effect.promise(() => rm.db.updateTable("trajectories").set({ verdict: "pass" }).where("verdict", "=", "fail").execute())
            const tampered = yield* compareWithRebuild(rm)
            expect(tampered.equal).toBe(false)
            expect(tampered.differingTables.map((d) => d.table)).toEqual(["trajectories"])
          })
        ),
        store.layer
      )
    )
  })
}
