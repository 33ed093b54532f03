/**
 * The services through which model completions and environment observations reach a
 * decider. Only the interfaces live here; the recorded layers (`Recorded.ts`) answer from
 * the log, and the live layers belong to the model client and the environments.
 *
 * @example
 * const models = yield* Models
 * const answer = yield* models.complete({ causationId: event.id, callIndex: 0, model: "m",
 *   purpose: "key-steps", prompt, body: { messages } })
 */
import { Context, Schema } from "effect"
import type { Effect } from "effect"
import type { BlobStoreError } from "@core/blobstore"
import { digest } from "@core/events"
import type { Action, Observation } from "@core/events"

export interface ModelRequest {
  /** The event whose handling makes the call, and the call's position among its calls. */
  readonly causationId: string
  readonly callIndex: number
  readonly model: string
  readonly purpose: string
  readonly prompt: { readonly name: string; readonly version: string; readonly digest: string }
  /** The canonical request: messages (images by hash) and sampling parameters. */
  readonly body: unknown
}

export interface ModelAnswer {
  readonly text: string
  readonly finishReason: string
  readonly usage: { readonly inputTokens: number | null; readonly outputTokens: number | null }
}

/** ModelCalled's `requestDigest`: the live client and the recorded layer must agree on it. */
export const requestDigest = (r: Pick<ModelRequest, "model" | "prompt" | "body">): string =>
  digest({ model: r.model, prompt: r.prompt, body: r.body })

/** The call failed when it was made (and so fails the same way on replay): a decider input, not a divergence. */
export class ModelCallFailed extends Schema.TaggedError<ModelCallFailed>()("ModelCallFailed", {
  causationId: Schema.String,
  callIndex: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `model call ${this.callIndex} of ${this.causationId.slice(0, 12)} failed: ${this.reason}`
  }
}

/** Replay asked for a call the log has no record of. */
export class ModelCallNotRecorded extends Schema.TaggedError<ModelCallNotRecorded>()("ModelCallNotRecorded", {
  causationId: Schema.String,
  callIndex: Schema.Number
}) {
  override get message() {
    return `no ModelCalled recorded for call ${this.callIndex} of event ${this.causationId.slice(0, 12)}`
  }
}

/** Replay made a recorded call with a different request: the decider's inputs changed. */
export class ModelRequestMismatch extends Schema.TaggedError<ModelRequestMismatch>()("ModelRequestMismatch", {
  eventId: Schema.String,
  causationId: Schema.String,
  callIndex: Schema.Number,
  recorded: Schema.String,
  requested: Schema.String
}) {
  override get message() {
    return `model call ${this.callIndex} of event ${this.causationId.slice(0, 12)}: request digest ${this.requested.slice(0, 12)} differs from the recorded ${this.recorded.slice(0, 12)} (ModelCalled ${this.eventId.slice(0, 12)})`
  }
}

export class Models extends Context.Service<
  Models,
  {
    complete(request: ModelRequest): Effect.Effect<ModelAnswer, ModelCallFailed | ModelCallNotRecorded | ModelRequestMismatch>
  }
>()("@core/engine/Models") {}

/** An observation with its blobs fetched and checked against their hashes. */
export interface Observed {
  readonly observation: Observation
  readonly screenshot: Uint8Array | null
  readonly elements: Uint8Array | null
  readonly aria: Uint8Array | null
  /** The action as the trajectory records it, when not the one asked for: a password typed, sealed. */
  readonly performed?: Action
}

export type BlobField = "screenshot" | "elements" | "aria"

export class ObservationNotRecorded extends Schema.TaggedError<ObservationNotRecorded>()("ObservationNotRecorded", {
  trajectoryId: Schema.String,
  step: Schema.Number
}) {
  override get message() {
    return `trajectory ${this.trajectoryId} has no recorded observation for step ${this.step}`
  }
}

/** Replay took a different action than the one recorded at this step. */
export class ActionMismatch extends Schema.TaggedError<ActionMismatch>()("ActionMismatch", {
  eventId: Schema.String,
  trajectoryId: Schema.String,
  step: Schema.Number,
  recorded: Schema.String,
  requested: Schema.String
}) {
  override get message() {
    return `trajectory ${this.trajectoryId} step ${this.step}: action ${this.requested} differs from the recorded ${this.recorded}`
  }
}

/** A blob an observation refers to is missing or no longer hashes to its name. */
export class BlobAltered extends Schema.TaggedError<BlobAltered>()("BlobAltered", {
  hash: Schema.String,
  /** The TrajectoryRecorded event whose observation refers to the blob. */
  eventId: Schema.String,
  trajectoryId: Schema.String,
  /** -1 for the initial observation. */
  step: Schema.Number,
  field: Schema.String,
  /** What the stored bytes hash to; null when the blob is missing. */
  actual: Schema.NullOr(Schema.String),
  reason: Schema.String
}) {
  override get message() {
    const where = this.step < 0 ? "initial observation" : `step ${this.step}`
    return `blob ${this.hash} (${this.field} of trajectory ${this.trajectoryId} ${where}, event ${this.eventId.slice(0, 12)}): ${this.reason}`
  }
}

/**
 * The environment itself broke (browser crash, site timeout): the episode is restarted,
 * never counted as a failed trajectory. Replay raises it for the attempts a run's log says
 * failed, so a decider retries there too.
 */
export class EnvironmentFailed extends Schema.TaggedError<EnvironmentFailed>()("EnvironmentFailed", {
  trajectoryId: Schema.String,
  attempt: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `trajectory ${this.trajectoryId} attempt ${this.attempt + 1}: environment failure: ${this.reason}`
  }
}

export type ObservationError = ObservationNotRecorded | ActionMismatch | BlobAltered | EnvironmentFailed

/**
 * The environment as a decider sees it. `reset` starts attempt `attempt` (0-based) of an
 * episode and gives the observation before the first action; `act(k, action)` performs
 * step k (0-based) and gives what followed it; `end` frees the episode (a no-op on replay).
 * A trajectory id names its task (see `trajectoryIdOf` in @core/pipeline), so the live
 * environment knows where to start.
 */
export class Observations extends Context.Service<
  Observations,
  {
    reset(trajectoryId: string, attempt?: number): Effect.Effect<Observed, ObservationError | BlobStoreError>
    act(trajectoryId: string, step: number, action: Action): Effect.Effect<Observed, ObservationError | BlobStoreError>
    end(trajectoryId: string): Effect.Effect<void>
  }
>()("@core/engine/Observations") {}

/** Errors that mean replay's recorded inputs and the decider disagree: each is a divergence. */
export const inputMismatchTags: ReadonlySet<string> = new Set([
  "ModelCallNotRecorded",
  "ModelRequestMismatch",
  "ObservationNotRecorded",
  "ActionMismatch",
  "BlobAltered",
  "PublishedPolicyNotRecorded"
])
