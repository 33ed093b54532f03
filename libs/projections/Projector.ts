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
import { dbTry, DatabaseError, reasonOf } from "./ReadModels.ts"
import type { ReadModels } from "./ReadModels.ts"
import { upsert } from "./RowOp.ts"
import type { Row, RowOp } from "./RowOp.ts"
import { sqliteBatchWriter } from "./SqliteBatch.ts"
import type { SqliteBatchWriter } from "./SqliteBatch.ts"
import type { Reply } from "./SqliteWorker.ts"

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
  Effect.acquireUseRelease(
    Effect.sync(() => (rm.sqlite === undefined ? null : sqliteBatchWriter(rm.sqlite))),
    (sqlite) => project(rm, options, sqlite),
    (sqlite) => (sqlite === null ? Effect.void : Effect.promise(() => sqlite.close()))
  )

const project = (
  rm: ReadModels,
  options: ProjectorOptions,
  sqlite: SqliteBatchWriter | null
): Effect.Effect<ProjectorResult, DatabaseError | ProjectorConflict | ReadError, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const projections = options.projections ?? allProjections
    const names = projections.map((p) => p.name)
    const stored = yield* readCheckpoints(rm)
    // As of the last batch handed to the database: the next batch is projected while that one is stored.
    const checkpoints = new Map(projections.map((p) => [p.name, stored.get(p.name) ?? origin]))
    const least = () => [...checkpoints.values()].reduce((a, b) => (isAfter(a, b) ? b : a))
    const until = options.until
    const batchSize = options.batchSize ?? 500
    let events = 0
    let batches = 0

    /** The batch's row operations, then the checkpoint upserts that move past it. */
    const opsOf = (batch: ReadonlyArray<RecordedEvent>, next: Checkpoint): Array<RowOp> => {
      const from = projections.map((p) => checkpoints.get(p.name)!)
      const ops: Array<RowOp> = []
      for (const r of batch) {
        for (let i = 0; i < projections.length; i++) {
          if (isAfter(r, from[i]!)) for (const op of projections[i]!.evolve(r)) ops.push(op)
        }
      }
      for (let i = 0; i < projections.length; i++) {
        if (isAfter(next, from[i]!))
          ops.push(upsert(CHECKPOINTS, { name: names[i]! }, { position: next.position, event_index: next.index }))
      }
      return ops
    }

    const withKysely = (expected: ReadonlyArray<number>, ops: ReadonlyArray<RowOp>): Promise<Reply> =>
      rm.db
        .transaction()
        .execute(async (trx) => {
          let q = trx.selectFrom(CHECKPOINTS).select(["name", "position", "event_index"]).where("name", "in", names)
          if (rm.dialect === "postgres") q = q.forUpdate()
          for (const row of await q.execute()) {
            const i = names.indexOf(row.name)
            if (Number(row.position) !== expected[2 * i] || Number(row.event_index) !== expected[2 * i + 1]) return row.name as string
          }
          for (const op of ops) await applyOp(trx, op)
          return null
        })
        .then(
          (conflict) => ({ conflict }),
          (e) => ({ conflict: null, error: reasonOf(e) })
        )

    // At most one batch is in flight; it must commit before the next one is handed over, so
    // transactions still commit in log order and a failure stops the projector there.
    let inFlight: { readonly reply: Promise<Reply>; readonly next: Checkpoint; readonly size: number } | null = null
    const settle = Effect.suspend((): Effect.Effect<void, DatabaseError | ProjectorConflict> => {
      if (inFlight === null) return Effect.void
      const { reply, next, size } = inFlight
      inFlight = null
      return Effect.flatMap(
        Effect.promise(() => reply),
        (r): Effect.Effect<void, DatabaseError | ProjectorConflict> => {
          if (r.error !== undefined) return Effect.fail(new DatabaseError({ database: rm.location, reason: r.error }))
          if (r.conflict !== null) return Effect.fail(new ProjectorConflict({ projection: r.conflict }))
          events += size
          batches++
          options.onProgress?.({ position: next.position, index: next.index, events })
          return Effect.void
        }
      )
    })

    const applyBatch = (batch: ReadonlyArray<RecordedEvent>) =>
      Effect.gen(function* () {
        const last = batch[batch.length - 1]!
        const next: Checkpoint = { position: last.position, index: last.index }
        const expected = names.flatMap((n) => [checkpoints.get(n)!.position, checkpoints.get(n)!.index])
        const ops = opsOf(batch, next)
        yield* settle
        const reply = sqlite === null ? withKysely(expected, ops) : sqlite.write(names, expected, ops)
        inFlight = { reply, next, size: batch.length }
        for (const p of projections) if (isAfter(next, checkpoints.get(p.name)!)) checkpoints.set(p.name, next)
      })

    const from = Math.max(1, least().position)
    let source = store.readAll({ from, live: options.live === true })
    if (until) source = source.pipe(Stream.takeWhile((r) => !isAfter(r, until)))
    if (options.live === true) {
      // Following the log, a batch also closes when nothing more arrives for a moment, and is committed before the next is read.
      yield* source.pipe(
        Stream.filter((r) => isAfter(r, least())),
        Stream.groupedWithin(batchSize, "50 millis"),
        Stream.runForEach((batch) => Effect.andThen(applyBatch(batch), settle))
      )
    } else {
      // Catching up, whole batches are cut from the store's arrays as they come: per-event
      // stream operators cost more than projecting the event.
      let pending: Array<RecordedEvent> = []
      yield* source.pipe(
        Stream.runForEachArray((chunk) =>
          Effect.gen(function* () {
            // Only events already applied (resuming inside a commit) are skipped; a checkpoint
            // moving during this chunk only moves to events before the rest of it.
            const after = least()
            for (const r of chunk) {
              if (!isAfter(r, after)) continue
              pending.push(r)
              if (pending.length >= batchSize) {
                const batch = pending
                pending = []
                yield* applyBatch(batch)
              }
            }
          })
        )
      )
      if (pending.length > 0) yield* applyBatch(pending)
    }
    yield* settle
    return { checkpoint: least(), events, batches }
  })
