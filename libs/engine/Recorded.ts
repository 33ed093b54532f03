/**
 * The recorded layers (docs/architecture.md, "Replay"): model answers and observations served from the
 * run's log instead of a model server and a browser. A recorded model call is found by
 * `(causationId, callIndex)` and must have the same request digest; the recorded
 * environment gives observation k only for the recorded action k, and its blobs only when
 * they still hash to their names.
 *
 * @example
 * const layer = Layer.mergeAll(recordedModels(events), recordedObservations(events), Randomness.layer(seed))
 */
import { Effect, Layer } from "effect"
import { BlobStore } from "@core/blobstore"
import { canonicalJson, matchesResolvedSelect, matchesSealed } from "@core/events"
import type { CoreEvent, Observation } from "@core/events"
import {
  ActionMismatch,
  BlobAltered,
  EnvironmentFailed,
  ModelCallFailed,
  ModelCallNotRecorded,
  ModelRequestMismatch,
  Models,
  ObservationNotRecorded,
  Observations,
  requestDigest
} from "./Services.ts"
import type { BlobField, ModelAnswer, Observed, ObservationError } from "./Services.ts"
import type { BlobStoreError } from "@core/blobstore"

type ModelCalledEvent = Extract<CoreEvent, { type: "ModelCalled" }>
type TrajectoryEvent = Extract<CoreEvent, { type: "TrajectoryRecorded" }>

/** Models answering from the log's ModelCalled events. */
export const recordedModels = (events: ReadonlyArray<CoreEvent>): Layer.Layer<Models> => {
  const calls = new Map<string, ModelCalledEvent>()
  for (const e of events) if (e.type === "ModelCalled") calls.set(`${e.causationId}#${e.data.callIndex}`, e)
  return Layer.succeed(
    Models,
    Models.of({
      complete: (request) =>
        Effect.suspend((): Effect.Effect<ModelAnswer, ModelCallFailed | ModelCallNotRecorded | ModelRequestMismatch> => {
          const { causationId, callIndex } = request
          const called = calls.get(`${causationId}#${callIndex}`)
          if (!called) return Effect.fail(new ModelCallNotRecorded({ causationId, callIndex }))
          const requested = requestDigest(request)
          if (requested !== called.data.requestDigest) {
            return Effect.fail(
              new ModelRequestMismatch({ eventId: called.id, causationId, callIndex, recorded: called.data.requestDigest, requested })
            )
          }
          if (called.data.response === null) {
            return Effect.fail(new ModelCallFailed({ causationId, callIndex, reason: called.data.error ?? "no response recorded" }))
          }
          return Effect.succeed(called.data.response)
        })
    })
  )
}

const fields: ReadonlyArray<BlobField> = ["screenshot", "elements", "aria"]

/** The environment replaying the log's TrajectoryRecorded events, blobs from the BlobStore. */
export const recordedObservations = (events: ReadonlyArray<CoreEvent>): Layer.Layer<Observations, never, BlobStore> =>
  Layer.effect(
    Observations,
    Effect.gen(function* () {
      const blobs = yield* BlobStore
      const trajectories = new Map<string, TrajectoryEvent>()
      for (const e of events) if (e.type === "TrajectoryRecorded") trajectories.set(e.data.trajectoryId, e)

      const fetch = (t: TrajectoryEvent, step: number, observation: Observation) =>
        Effect.gen(function* () {
          const got: Record<BlobField, Uint8Array | null> = { screenshot: null, elements: null, aria: null }
          for (const field of fields) {
            const hash = observation[field]
            if (hash === null) continue
            const altered = (actual: string | null, reason: string) =>
              new BlobAltered({ hash, eventId: t.id, trajectoryId: t.data.trajectoryId, step, field, actual, reason })
            got[field] = yield* blobs.get(hash).pipe(
              Effect.catchTags({
                BlobNotFound: () => Effect.fail(altered(null, "not found in the blob store")),
                BlobCorrupt: (e) => Effect.fail(altered(e.actual, `its stored bytes hash to ${e.actual}`))
              })
            )
          }
          return { observation, ...got } satisfies Observed
        })

      const trajectory = (trajectoryId: string, step: number) => {
        const t = trajectories.get(trajectoryId)
        return t ? Effect.succeed(t) : Effect.fail(new ObservationNotRecorded({ trajectoryId, step }))
      }

      return Observations.of({
        // The attempts before the recorded one failed live: they fail here too, so the decider retries as it did.
        reset: (trajectoryId, attempt = 0) =>
          Effect.flatMap(
            trajectory(trajectoryId, -1),
            (t): Effect.Effect<Observed, ObservationError | BlobStoreError> =>
              attempt < t.data.attempts - 1 || t.data.outcome === "infra-error"
                ? Effect.fail(
                    new EnvironmentFailed({
                      trajectoryId,
                      attempt,
                      reason: t.data.infraError ?? "failed when recorded (an earlier attempt)"
                    })
                  )
                : fetch(t, -1, t.data.initial)
          ),
        end: () => Effect.void,
        act: (trajectoryId, step, action) =>
          Effect.gen(function* () {
            const t = yield* trajectory(trajectoryId, step)
            const recorded = t.data.steps[step]
            if (!recorded) return yield* new ObservationNotRecorded({ trajectoryId, step })
            const [want, got] = [canonicalJson(recorded.action), canonicalJson(action)]
            if (want === got) return yield* fetch(t, step, recorded.observation)
            // A password's text never reached the log: the sealed record stands for it, as it did live.
            // A select named by its label was recorded by its option's value: the label it kept says it is the same.
            if (!matchesSealed(recorded.action, action) && !matchesResolvedSelect(recorded.action, action))
              return yield* new ActionMismatch({ eventId: t.id, trajectoryId, step, recorded: want, requested: got })
            return { ...(yield* fetch(t, step, recorded.observation)), performed: recorded.action }
          })
      })
    })
  )
