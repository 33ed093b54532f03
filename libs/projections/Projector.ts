/**
 * The projector: reads the log from the projections' checkpoints and applies each batch's
 * row operations *and* the new checkpoints in one database transaction, so a crash at any
 * point leaves the read models exactly as of some committed batch — never an event applied
 * twice, never one skipped.
 *
 * A checkpoint is a (position, index) pair: the last event applied, not just its commit, so
 * a batch may end inside a multi-event commit. Reading resumes at the checkpoint's commit
 * and skips the events already applied.
 *
 * @example
 * const rm = yield* openReadModels("sqlite:.core/projections.db")
 * yield* migrate(rm)
 * yield* runProjector(rm, { onProgress: (p) => console.error(`at ${p.position}`) })   // needs EventStore
 */
import { Effect, Schema, Stream } from "effect"
import type { Transaction } from "kysely"
import { EventStore } from "@core/eventstore"
import type { ReadError, RecordedEvent } from "@core/eventstore"
import type { Projection } from "./Projection.ts"
import { projections as allProjections } from "./projections/mod.ts"
import { dbTry } from "./ReadModels.ts"
import type { DatabaseError, ReadModels } from "./ReadModels.ts"
import { upsert } from "./RowOp.ts"
import type { Row, RowOp } from "./RowOp.ts"

export interface Checkpoint {
  readonly position: number
  readonly index: number
}

/** Before the first event of the log. */
export const origin: Checkpoint = { position: 0, index: 0 }

export const isAfter = (r: Pick<RecordedEvent, "position" | "index">, cp: Checkpoint): boolean =>
  r.position > cp.position || (r.position === cp.position && r.index > cp.index)

/** Another projector moved a checkpoint under this one: two projectors must not share a database. */
export class ProjectorConflict extends Schema.TaggedError<ProjectorConflict>()("ProjectorConflict", {
  projection: Schema.String
}) {
  override get message() {
    return `projection ${this.projection} was advanced by another projector on the same database; run only one`
  }
}

export interface Progress {
  /** The last event applied (and checkpointed). */
  readonly position: number
  readonly index: number
  /** Events read so far in this call. */
  readonly events: number
}

export interface ProjectorOptions {
  /** Default: every read model ({@link allProjections}). */
  readonly projections?: ReadonlyArray<Projection>
  /** Keep following the log; otherwise stop at its end as of the call. */
  readonly live?: boolean
  /** Most events per transaction (default 500). */
  readonly batchSize?: number
  /** Stop after this event (inclusive): rebuild to exactly where another database stands. */
  readonly until?: Checkpoint
  /** Called after each committed batch. */
  readonly onProgress?: (progress: Progress) => void
}

export interface ProjectorResult {
  /** Where the projections stand now (the least advanced one). */
  readonly checkpoint: Checkpoint
  readonly events: number
  readonly batches: number
}

const CHECKPOINTS = "projection_checkpoints"

/** Every stored checkpoint, by projection name. */
export const readCheckpoints = (rm: ReadModels): Effect.Effect<ReadonlyMap<string, Checkpoint>, DatabaseError> =>
  dbTry(rm, () => rm.db.selectFrom(CHECKPOINTS).select(["name", "position", "event_index"]).execute()).pipe(
    Effect.map((rows) => new Map(rows.map((r) => [r.name as string, { position: Number(r.position), index: Number(r.event_index) }])))
  )

const applyOp = (trx: Transaction<any>, op: RowOp): Promise<unknown> => {
  const keyCols = Object.keys(op.key)
  if (op._tag === "Delete") {
    let q = trx.deleteFrom(op.table)
    for (const c of keyCols) q = q.where(c, "=", op.key[c])
    return q.execute()
  }
  const hasSet = Object.keys(op.set).length > 0
  return trx
    .insertInto(op.table)
    .values({ ...op.key, ...op.set })
    .onConflict((oc) => (op._tag === "Upsert" && hasSet ? oc.columns(keyCols).doUpdateSet(op.set as Row) : oc.columns(keyCols).doNothing()))
    .execute()
}

export const runProjector = (
  rm: ReadModels,
  options: ProjectorOptions = {}
): Effect.Effect<ProjectorResult, DatabaseError | ProjectorConflict | ReadError, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const projections = options.projections ?? allProjections
    const stored = yield* readCheckpoints(rm)
    const checkpoints = new Map(projections.map((p) => [p.name, stored.get(p.name) ?? origin]))
    const least = () => [...checkpoints.values()].reduce((a, b) => (isAfter(a, b) ? b : a))
    const until = options.until
    let events = 0
    let batches = 0

    const applyBatch = (batch: ReadonlyArray<RecordedEvent>) =>
      Effect.gen(function* () {
        const last = batch[batch.length - 1]!
        const next: Checkpoint = { position: last.position, index: last.index }
        const ops: Array<RowOp> = []
        for (const r of batch) {
          for (const p of projections) if (isAfter(r, checkpoints.get(p.name)!)) ops.push(...p.evolve(r))
        }
        const conflict = yield* dbTry(rm, () =>
          rm.db.transaction().execute(async (trx) => {
            let q = trx.selectFrom(CHECKPOINTS).select(["name", "position", "event_index"]).where("name", "in", projections.map((p) => p.name))
            if (rm.dialect === "postgres") q = q.forUpdate()
            for (const row of await q.execute()) {
              const mine = checkpoints.get(row.name)!
              if (Number(row.position) !== mine.position || Number(row.event_index) !== mine.index) return row.name as string
            }
            for (const op of ops) await applyOp(trx, op)
            for (const p of projections) {
              if (isAfter(next, checkpoints.get(p.name)!)) {
                await applyOp(trx, upsert(CHECKPOINTS, { name: p.name }, { position: next.position, event_index: next.index }))
              }
            }
            return null
          })
        )
        if (conflict !== null) return yield* new ProjectorConflict({ projection: conflict })
        for (const p of projections) if (isAfter(next, checkpoints.get(p.name)!)) checkpoints.set(p.name, next)
        events += batch.length
        batches++
        options.onProgress?.({ position: next.position, index: next.index, events })
      })

    const from = Math.max(1, least().position)
    let source = store.readAll({ from, live: options.live === true })
    if (until) source = source.pipe(Stream.takeWhile((r) => !isAfter(r, until)))
    yield* source.pipe(
      Stream.filter((r) => isAfter(r, least())),
      Stream.groupedWithin(options.batchSize ?? 500, "50 millis"),
      Stream.runForEach(applyBatch)
    )
    return { checkpoint: least(), events, batches }
  })
