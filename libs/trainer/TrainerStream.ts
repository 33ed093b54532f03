/**
 * Where `core train` writes: the weights JSON into the blob store first, then a PolicyTrained
 * naming it on the trainer's own stream — `trainer.follow.<consumer>` for a follow trainer,
 * `trainer.run.<runId>` for `train --run`. Neither is a run's stream nor a workspace one:
 * the run's log stays what its deciders wrote, so it replays unchanged, and no run folds a
 * trainer's versions into its state (every run reads the `ws.>` facts before it). The event
 * names no run (its `runId` is null); what taught it is in `records`.
 *
 * @example
 * const { versions, revision } = yield* readTrained(trainerStream("nightly"))
 * const { weights } = yield* putWeights(learnedModelJson(model)) // needs BlobStore
 * yield* appendTrained(trainerStream("nightly"), revision, { ...data, weights }) // needs EventStore
 */
import { DateTime, Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { digest, makeEvent, PolicyTrained } from "@core/events"
import type { CoreEvent, DataOf } from "@core/events"
import { EventStore } from "@core/eventstore"

export type TrainedData = DataOf<typeof PolicyTrained>

/** The stream of the versions a follow trainer publishes. */
export const trainerStream = (consumer: string): string => `trainer.follow.${consumer}`

/** The stream of the models `train --run` trained from a run's data. */
export const trainedStream = (runId: string): string => `trainer.run.${runId}`

/** The PolicyTrained events of a trainer's stream, oldest first, and the stream's revision. */
export const readTrained = (stream: string) =>
  Effect.gen(function* () {
    const read = yield* (yield* EventStore).readStream(stream)
    const versions: Array<TrainedData> = []
    for (const r of read) if (r.event.type === "PolicyTrained") versions.push(r.event.data)
    return { versions, revision: read.at(-1)?.position ?? 0 }
  })

/** Puts a model's weights JSON into the blob store: its sha256 is the name PolicyTrained gives it. */
export const putWeights = (json: string) =>
  Effect.gen(function* () {
    const bytes = new TextEncoder().encode(json)
    return { weights: yield* (yield* BlobStore).put(bytes), bytes: bytes.byteLength }
  })

/**
 * Appends one PolicyTrained at `revision`, after its weights are in the blob store: an event
 * never names a blob that is not there. Its id is a digest of its data, so the same model of
 * the same records is the same event.
 */
export const appendTrained = (stream: string, revision: number, data: TrainedData) =>
  Effect.gen(function* () {
    const event = makeEvent(PolicyTrained, {
      stream,
      runId: null,
      causationId: digest(data),
      ordinal: 0,
      recordedAt: DateTime.formatIso(yield* DateTime.now),
      data
    }) as CoreEvent
    return (yield* (yield* EventStore).append(stream, [event], { expectedRevision: revision })).revision
  })
