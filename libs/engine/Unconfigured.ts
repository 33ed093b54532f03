/**
 * The recorded services when a run has nothing behind them: no model server configured (the
 * embedded backends never call one), or no environment (inference). A call is then a bug in
 * the caller, reported as the service's own failure rather than a crash.
 *
 * @example
 * drive({ … }).pipe(Effect.provide(Layer.mergeAll(noModels, noObservations, …)))
 */
import { Effect, Layer } from "effect"
import { ModelCallFailed, Models, ObservationNotRecorded, Observations } from "./Services.ts"

/** No model configured: a call is a bug in the caller, reported as a failed call. */
export const noModels = Layer.succeed(
  Models,
  Models.of({
    complete: (request) =>
      Effect.fail(
        new ModelCallFailed({
          causationId: request.causationId,
          callIndex: request.callIndex,
          reason: "no model server configured (models.baseUrl)"
        })
      )
  })
)

/** A run that drives no environment (inference): asking for an observation is a bug in the caller. */
export const noObservations = Layer.succeed(
  Observations,
  Observations.of({
    reset: (trajectoryId) => Effect.fail(new ObservationNotRecorded({ trajectoryId, step: -1 })),
    act: (trajectoryId, step) => Effect.fail(new ObservationNotRecorded({ trajectoryId, step })),
    end: () => Effect.void
  })
)
