/**
 * Resuming an interrupted run (`bun core run --resume <runId>`): the driver re-decides the
 * logged events in log order, as replay does, and appends only the decisions the log does
 * not have yet (event ids are deterministic, so "already there" is an id lookup). What the
 * log recorded is served from it — an episode it holds is not played again, a model call
 * it holds is not made again — and everything else runs live.
 *
 * @example
 * const layer = resumeLayers(events, { observations: liveObservations(…), models: ModelClient.layer(…) })
 */
import { Effect, Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { CoreEvent } from "@core/events"
import { recordedModels, recordedObservations } from "./Recorded.ts"
import { Models, Observations } from "./Services.ts"

/** Observations and Models answering from the log where it has the answer, live otherwise. */
export const resumeLayers = <E1, R1, E2, R2>(
  events: ReadonlyArray<CoreEvent>,
  live: { readonly observations: Layer.Layer<Observations, E1, R1>; readonly models: Layer.Layer<Models, E2, R2> }
): Layer.Layer<Observations | Models, E1 | E2, R1 | R2 | BlobStore> => {
  const recordedTrajectories = new Set(events.flatMap((e) => (e.type === "TrajectoryRecorded" ? [e.data.trajectoryId] : [])))
  const recordedCalls = new Set(events.flatMap((e) => (e.type === "ModelCalled" ? [`${e.causationId}#${e.data.callIndex}`] : [])))
  const observations = Layer.effect(
    Observations,
    Effect.gen(function* () {
      const recorded = yield* Effect.provide(Observations.use(Effect.succeed), recordedObservations(events))
      const liveObs = yield* Effect.provide(Observations.use(Effect.succeed), live.observations)
      const pick = (trajectoryId: string) => (recordedTrajectories.has(trajectoryId) ? recorded : liveObs)
      return Observations.of({
        reset: (id, attempt) => pick(id).reset(id, attempt),
        act: (id, step, action) => pick(id).act(id, step, action),
        end: (id) => pick(id).end(id)
      })
    })
  )
  const models = Layer.effect(
    Models,
    Effect.gen(function* () {
      const recorded = yield* Effect.provide(Models.use(Effect.succeed), recordedModels(events))
      const liveModels = yield* Effect.provide(Models.use(Effect.succeed), live.models)
      return Models.of({
        complete: (request) => (recordedCalls.has(`${request.causationId}#${request.callIndex}`) ? recorded : liveModels).complete(request)
      })
    })
  )
  return Layer.merge(observations, models)
}
