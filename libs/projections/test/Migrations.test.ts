/** The read-model migrations on a fresh SQLite file and a fresh PostgreSQL database: same tables, same columns. */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { migrate, migrationStatus, openReadModels } from "../mod.ts"
import { migrations } from "../../../migrations/mod.ts"
import { freshDb } from "./support.ts"
import type { FreshDb } from "./support.ts"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const c of cleanups) await c()
})

const shapes: Record<string, unknown> = {}
const names = Object.keys(migrations)

for (const kind of ["sqlite", "postgres"] as const) {
  test(`migrations go up on ${kind}, once`, async () => {
    const db: FreshDb = await freshDb(kind)
    cleanups.push(db.cleanup)
    const shape = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const rm = yield* openReadModels(db.url)
          expect(rm.dialect).toBe(kind)
          expect((yield* migrationStatus(rm)).map((m) => [m.name, m.appliedAt])).toEqual(names.map((n) => [n, null]))
          expect(yield* migrate(rm)).toEqual(names)
          expect(yield* migrate(rm)).toEqual([])
          const status = yield* migrationStatus(rm)
          expect(status.every((m) => m.appliedAt !== null && !Number.isNaN(Date.parse(m.appliedAt)))).toBe(true)
          const tables = yield* Effect.promise(() => rm.db.introspection.getTables())
          return Object.fromEntries(tables.map((t) => [t.name, t.columns.map((c) => `${c.name}${c.isNullable ? "" : "!"}`).sort()]).sort())
        })
      )
    )
    for (const t of [
      "runs",
      "rounds",
      "tasks",
      "demos",
      "label_functions",
      "graph_nodes",
      "graph_edges",
      "trajectories",
      "lf_verdicts",
      "dataset_records",
      "lineage",
      "projection_checkpoints"
    ]) {
      expect(Object.keys(shape)).toContain(t)
    }
    shapes[kind] = shape
  })
}

test("SQLite and PostgreSQL get the same tables and columns", () => {
  expect(shapes.sqlite).toBeDefined()
  expect(shapes.postgres).toEqual(shapes.sqlite)
})

test("an unknown URL scheme or unreachable server is one clear error", async () => {
  const bad = await Effect.runPromise(Effect.flip(Effect.scoped(openReadModels("mysql://x"))))
  expect(bad.message).toBe("read-model database mysql://x: database URL must start with sqlite: or postgres://")
  const down = await Effect.runPromise(Effect.flip(Effect.scoped(openReadModels("postgres://u:secret@127.0.0.1:1/x"))))
  expect(down.message).toStartWith("read-model database postgres://u:***@127.0.0.1:1/x: ")
  expect(down.message).not.toContain("secret")
})
