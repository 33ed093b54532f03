/**
 * Given/when/then for pure projections (Emmett style): `given` events set up an in-memory
 * copy of the tables by applying their row operations; `when` one more event; `then` checks
 * the operations it produced, `thenRows` the resulting rows of a table.
 *
 * @example
 * given(trajectories, recorded).when(verified).thenRows("trajectories", [{ ... }])
 */
import { expect } from "bun:test"
import type { CoreEvent } from "@core/events"
import type { RecordedEvent } from "@core/eventstore"
import type { Projection } from "../Projection.ts"
import type { Row, RowOp } from "../RowOp.ts"

type Tables = Map<string, Map<string, Record<string, unknown>>>

const keyOf = (key: Row) => JSON.stringify(Object.entries(key).sort(([a], [b]) => (a < b ? -1 : 1)))

/** What the SQL runtime does with a row operation, on plain maps. */
export const applyInMemory = (tables: Tables, op: RowOp): void => {
  const table = tables.get(op.table) ?? new Map()
  tables.set(op.table, table)
  const k = keyOf(op.key)
  if (op._tag === "Delete") {
    for (const [rk, row] of table) if (Object.entries(op.key).every(([c, v]) => row[c] === v)) table.delete(rk)
  } else if (!table.has(k)) table.set(k, { ...op.key, ...op.set })
  else if (op._tag === "Upsert") Object.assign(table.get(k)!, op.set)
}

let position = 0
const record = (event: CoreEvent): RecordedEvent => ({ event, position: ++position, index: 0, commitId: `c${position}` })

export const given = (projection: Projection, ...events: ReadonlyArray<CoreEvent>) => {
  const tables: Tables = new Map()
  for (const e of events) for (const op of projection.evolve(record(e))) applyInMemory(tables, op)
  return {
    when: (event: CoreEvent) => {
      const ops = projection.evolve(record(event))
      for (const op of ops) applyInMemory(tables, op)
      const then = {
        then: (expected: ReadonlyArray<RowOp>) => {
          expect(ops).toEqual(expected)
          return then
        },
        thenRows: (table: string, expected: ReadonlyArray<Record<string, unknown>>) => {
          expect([...(tables.get(table)?.values() ?? [])]).toEqual(expected as Array<Record<string, unknown>>)
          return then
        },
        /** Every operation touches only tables the projection declares. */
        thenOwnsItsTables: () => {
          for (const op of ops) expect(projection.tables).toContain(op.table)
          return then
        }
      }
      return then
    }
  }
}
