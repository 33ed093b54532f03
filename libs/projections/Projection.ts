/**
 * A projection (Emmett style): a name, the tables it owns, and a pure `evolve` from one
 * recorded event to row operations. Events a projection does not care about give `[]`;
 * the projector still moves its checkpoint past them.
 *
 * @example
 * const demos = defineProjection("demos", ["demos"], ({ event }) =>
 *   event.type === "DemoIngested" ? [upsert("demos", { demo_id: event.data.demoId }, { status: "ingested" })] : [])
 */
import { canonicalJson } from "@core/events"
import type { RecordedEvent } from "@core/eventstore"
import type { RowOp } from "./RowOp.ts"

export interface Projection {
  readonly name: string
  readonly tables: ReadonlyArray<string>
  readonly evolve: (recorded: RecordedEvent) => ReadonlyArray<RowOp>
}

export const defineProjection = (
  name: string,
  tables: ReadonlyArray<string>,
  evolve: (recorded: RecordedEvent) => ReadonlyArray<RowOp>
): Projection => ({ name, tables, evolve })

/** JSON columns are canonical JSON text, so equal values are equal strings on every database. */
export const json = (value: unknown): string => canonicalJson(value)

/** The run an event belongs to, or "" for workspace facts (key columns cannot be null). */
export const runOf = (recorded: RecordedEvent): string => recorded.event.runId ?? ""
