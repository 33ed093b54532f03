/**
 * A run's dataset as the log holds it, for `dataset export`: every DatasetRecordEmitted and
 * each round's DatasetSealed under `run.<run>.dataset.*`, and the records one export takes;
 * for `dataset check`, the records and the pseudo-demos they are checked against.
 *
 * @example
 * const dataset = yield* readRunDataset(run) // needs EventStore
 * const selected = selectRecords(dataset.records, "sft", undefined)
 */
import { Effect, Stream } from "effect"
import type { DatasetFormat, DatasetSealed, DataOf } from "@core/events"
import { EventStore } from "@core/eventstore"
import type { RecordedEvent } from "@core/eventstore"
import type { CheckedRecord, PseudoDemo } from "./DatasetCheck.ts"
import { runIdOf } from "./DatasetFiles.ts"
import type { RecordData } from "./DatasetFiles.ts"

/** A record as the log holds it; `position` is its commit's place in the log (its JetStream sequence). */
export type DatasetRecord = { readonly runId: string; readonly data: RecordData; readonly position: number }

export interface RunDataset {
  readonly records: ReadonlyArray<DatasetRecord>
  readonly seals: ReadonlyMap<number, DataOf<typeof DatasetSealed>>
  /** Every round with a record or a seal, in order. */
  readonly rounds: ReadonlyArray<number>
}

export const readRunDataset = (run: string) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const records: Array<DatasetRecord> = []
    const seals = new Map<number, DataOf<typeof DatasetSealed>>()
    const rounds = new Set<number>()
    yield* store.readAll({ filter: `run.${run}.dataset.*` }).pipe(
      Stream.runForEach((r) =>
        Effect.sync(() => {
          const e = r.event
          if (e.type === "DatasetRecordEmitted") {
            rounds.add(e.data.round)
            records.push({ runId: runIdOf(e), data: e.data, position: r.position })
          } else if (e.type === "DatasetSealed") {
            rounds.add(e.data.round)
            seals.set(e.data.round, e.data)
          }
        })
      )
    )
    return { records, seals, rounds: [...rounds].sort((a, b) => a - b) } satisfies RunDataset
  })

/**
 * The records of one format (of one round, when given), each once: a record id is a digest of
 * format and body, so the same record emitted in two rounds is one line — as `dataset follow`
 * writes it.
 */
export const selectRecords = (
  records: ReadonlyArray<DatasetRecord>,
  format: DatasetFormat,
  round: number | undefined
): ReadonlyArray<DatasetRecord> => {
  const seen = new Set<string>()
  return records.filter((r) => {
    if (r.data.format !== format || (round !== undefined && r.data.round !== round) || seen.has(r.data.recordId)) return false
    seen.add(r.data.recordId)
    return true
  })
}

/** A line for each included round whose seal counted another number of `format` records than the log holds. */
export const sealMismatches = (dataset: RunDataset, included: ReadonlyArray<number>, format: DatasetFormat): ReadonlyArray<string> =>
  included.flatMap((round) => {
    const seal = dataset.seals.get(round)
    const n = dataset.records.filter((x) => x.data.round === round && x.data.format === format).length
    return seal && seal.counts[format] !== n
      ? [`round ${round} was sealed with ${seal.counts[format]} ${format} records, the log holds ${n}`]
      : []
  })

/** The run's records, each once (a record emitted in two rounds is one, as `dataset export` writes it), and its pseudo-demos. */
export const readDatasetToCheck = (run: string) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const read: Array<RecordedEvent> = []
    for (const filter of [`run.${run}.dataset.*`, `run.${run}.task.*`]) read.push(...(yield* Stream.runCollect(store.readAll({ filter }))))
    // Both filters merged back into log order, so the first of a record's copies is the one kept.
    const events = read.sort((a, b) => a.position - b.position || a.index - b.index).map((r) => r.event)
    const seen = new Set<string>()
    const records: Array<CheckedRecord> = []
    const pseudoDemos: Array<PseudoDemo> = []
    for (const e of events) {
      if (e.type === "DatasetRecordEmitted" && !seen.has(e.data.recordId)) {
        seen.add(e.data.recordId)
        records.push(e.data)
      }
      if (e.type === "TaskExtrapolated")
        pseudoDemos.push({ taskId: e.data.newTaskId, trajectoryId: e.data.pseudoDemoTrajectoryId, steps: e.data.pseudoDemoSteps })
    }
    return { records, pseudoDemos }
  })
