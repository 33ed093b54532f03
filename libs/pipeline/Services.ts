/**
 * The layers a run's deciders get live: the LF sandbox with the LF API as its prelude, and
 * — when no model server is configured — a Models service that refuses, since the
 * embedded backends never call it.
 */
import { Effect, Layer } from "effect"
import { LF_API_SOURCE } from "@core/domain"
import { ModelCallFailed, Models, ObservationNotRecorded, Observations } from "@core/replay"
import { Sandbox } from "@core/sandbox"

/** The sandbox every LF runs in: the LF API as prelude, defaults otherwise. */
export const labelSandbox = (options: { readonly workers?: number } = {}) => Sandbox.layer({ prelude: LF_API_SOURCE, ...options })

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
