/**
 * The read-model migrations on a fresh SQLite file and a fresh PostgreSQL database: same
 * tables, same columns; and an SQLite file that is another application's is refused unchanged.
 */
import { afterAll, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
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

test("an SQLite file that is another application's is refused in one line and left unchanged; an older CORE file is claimed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "core-rm-foreign-"))
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  const open = (path: string) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const rm = yield* openReadModels(`sqlite:${path}`)
          yield* migrate(rm)
          return "opened"
        })
      ).pipe(Effect.catch((e) => Effect.succeed(e.reason)))
    )
  const make = (name: string, f: (d: Database) => void) => {
    const path = join(dir, name)
    const d = new Database(path, { create: true })
    f(d)
    d.close()
    return path
  }
  const foreign = make("notes.db", (d) => d.run("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)"))
  const stamped = make("other-app.db", (d) => d.run("PRAGMA application_id = 1234"))
  const before = [readFileSync(foreign), readFileSync(stamped)]
  expect(await open(foreign)).toBe(
    `${foreign} is an SQLite database but not CORE's read models (it has tables users); nothing was written to it — choose another database`
  )
  expect(await open(stamped)).toContain("(application id 1234)")
  expect([readFileSync(foreign), readFileSync(stamped)]).toEqual(before)

  // Read models an older CORE migrated carry no stamp: they open, and are stamped from then on.
  const older = join(dir, "older.db")
  expect(await open(older)).toBe("opened")
  make("older.db", (d) => d.run("PRAGMA application_id = 0"))
  expect(await open(older)).toBe("opened")
  const d = new Database(older, { readonly: true })
  expect(d.query<{ application_id: number }, []>("PRAGMA application_id").get()?.application_id).toBe(0x434f5245)
  d.close()
})
