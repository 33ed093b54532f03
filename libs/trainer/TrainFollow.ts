/**
 * `train --follow`: a trainer that subscribes to the dataset events through the durable
 * consumer `dataset follow` uses (@core/datasets `consumeDurably`). Each record is held in
 * its state folder (TrainerState.ts) once, fsynced before its commit is acknowledged. When
 * the inbox drains after new records, or a batch held a DatasetSealed, it trains a new
 * version FROM SCRATCH on every record held, in stream order, and publishes it (weights in
 * the blob store, PolicyTrained on `trainer.follow.<consumer>`). A version is thus a pure
 * function of its records: a trainer killed and restarted any number of times ends on the
 * model one uninterrupted pass would have made. It publishes only when it holds more records
 * than the last version its stream holds learned from, so a restart never publishes the same
 * records twice. Counting, not comparing stream sequences: a commit a killed trainer left
 * unacknowledged comes again after newer ones, below the last version's sequence.
 *
 * @example
 * yield* followTrainer({ url, consumer: "nightly", run: undefined, dir: ".core/trainer/nightly", seed: undefined, ackWaitSeconds: 30 })
 */
import { Effect } from "effect"
import { consumeDurably, datasetSubject, runIdOf } from "@core/datasets"
import type { Delivery } from "@core/datasets"
import { digest } from "@core/events"
import type { NatsCredentials, RecordedEvent } from "@core/eventstore"
import { examplesOfRecord, learnedModelJson, TRAINER_VERSION, trainOnRecords } from "@core/learner"
import { byDelivery, openTrainerState } from "./TrainerState.ts"
import type { HeldRecord } from "./TrainerState.ts"
import { appendTrained, putWeights, readTrained, trainerStream } from "./TrainerStream.ts"
import type { TrainedData } from "./TrainerStream.ts"

export interface TrainFollowOptions {
  readonly url: string
  readonly credentials?: NatsCredentials
  readonly consumer: string
  /** Only this run's records; undefined = every run's. */
  readonly run: string | undefined
  /** The state folder (absolute). */
  readonly dir: string
  /** undefined = the folder's seed, or the consumer's name for a new folder. */
  readonly seed: string | undefined
  readonly ackWaitSeconds: number
}

/** Version `n`, trained from scratch on `records` (in stream order): its weights put in the blob store, and what its PolicyTrained says. */
const trainVersion = (records: ReadonlyArray<HeldRecord>, seed: string, n: number) =>
  Effect.gen(function* () {
    const { weights } = yield* putWeights(learnedModelJson(trainOnRecords(records, seed)))
    const examples = records.reduce((k, r) => k + examplesOfRecord(r).length, 0)
    return {
      round: n,
      trainer: TRAINER_VERSION,
      datasetDigest: digest(records.map((r) => r.recordId)),
      checkpoint: `sha256:${weights}`,
      metrics: { records: records.length, examples },
      weights,
      seed,
      records: {
        count: records.length,
        rounds: [...new Set(records.map((r) => r.round))].sort((a, b) => a - b),
        first: records[0]!.seq,
        last: records.at(-1)!.seq
      }
    } satisfies TrainedData
  })

/** A delivered record as the state folder holds it. */
const heldOf = (seq: number, { event: e, index }: RecordedEvent): HeldRecord | null =>
  e.type !== "DatasetRecordEmitted"
    ? null
    : {
        seq,
        index,
        recordId: e.data.recordId,
        runId: runIdOf(e),
        round: e.data.round,
        format: e.data.format,
        trajectoryIds: e.data.trajectoryIds,
        body: e.data.body
      }

export const followTrainer = (o: TrainFollowOptions) =>
  Effect.gen(function* () {
    const state = yield* openTrainerState(o.dir, o.consumer, o.seed)
    const stream = trainerStream(o.consumer)
    const held: Array<HeldRecord> = [...state.records]
    const seen = new Set(held.map((r) => r.recordId))
    const published = yield* readTrained(stream)
    let revision = published.revision
    let versions = published.versions.length
    // How many records the last published version learned from. The folder only grows, and
    // every version learns from all of it, so more held than that means records it has not.
    let covered = published.versions.at(-1)?.records?.count ?? 0
    let skipped = 0
    console.error(
      `train: ${o.dir} holds ${held.length} records${state.tornBytes > 0 ? ` (cut a torn last line of ${state.tornBytes} bytes left by a crash)` : ""}; ` +
        `${stream} has ${versions} versions${versions > 0 ? ` (the last of ${covered} records)` : ""}; seed ${JSON.stringify(state.seed)}`
    )

    // Only for records the stream's last version did not learn from: a restart, or a seal
    // after a drain, must not publish the same records again.
    const trainIfNew = Effect.gen(function* () {
      if (held.length <= covered) return
      const version = yield* trainVersion([...held].sort(byDelivery), state.seed, versions + 1)
      revision = yield* appendTrained(stream, revision, version)
      const { count, first, last } = version.records
      versions++
      covered = count
      console.error(
        `train: version ${versions}: ${count} records (sequences ${first}–${last}), ${version.metrics.examples} examples → weights ${version.weights.slice(0, 12)} on ${stream}`
      )
    })

    let sealed = false
    const handle = (batch: ReadonlyArray<Delivery>) =>
      Effect.gen(function* () {
        const fresh: Array<HeldRecord> = []
        for (const { seq, events } of batch) {
          for (const recorded of events) {
            if (recorded.event.type === "DatasetSealed") sealed = true
            const record = heldOf(seq, recorded)
            if (record === null) continue
            if (seen.has(record.recordId)) skipped++
            else {
              seen.add(record.recordId)
              fresh.push(record)
            }
          }
        }
        if (fresh.length > 0) yield* state.append(fresh)
        held.push(...fresh)
      })
    const handled = (drained: boolean) =>
      Effect.gen(function* () {
        if (drained || sealed) yield* trainIfNew
        sealed = false
      })
    const counts = () => `${held.length} records held (${skipped} skipped as duplicates), ${versions} versions published`

    const signal = yield* consumeDurably(
      {
        url: o.url,
        credentials: o.credentials ?? {},
        consumer: o.consumer,
        filter: datasetSubject(o.run),
        description: "core train --follow: records held in its state folder",
        ackWaitSeconds: o.ackWaitSeconds,
        client: `core-train-${o.consumer}`,
        label: "train",
        into: ` → ${o.dir}, versions on ${stream}`,
        fromStart: held.length === 0
      },
      // First a version its last run held the records for but did not live to publish.
      { started: trainIfNew, handle, handled, progress: counts }
    )
    console.error(`train: stopped on ${signal}: ${counts()}`)
  }).pipe(Effect.scoped)
