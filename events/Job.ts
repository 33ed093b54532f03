/**
 * Jobs: rollout, exploration and inference work, recorded as it is queued and completed.
 * Work may be handed to workers through a queue; the queue is only transport, and these
 * events are the record of what was asked and what came of it.
 *
 * A job's `params` stay an open record in the event, since a kind's parameters grow (an
 * explorer's `rejoin` came later) and every logged version must still decode; each kind's
 * schema below says what its deciders write and read.
 *
 * @example
 * const params = decodeJobParams(RolloutParams, queued.data.params) // null: not a rollout job's
 */
import { Result, Schema } from "effect"
import { defineEvent } from "./Event.ts"
import { Action } from "./Trajectory.ts"

export const JobKind = Schema.Literals(["rollout", "explore", "verify", "infer"])

export const JobQueued = defineEvent(
  "JobQueued",
  1,
  Schema.Struct({
    jobId: Schema.String,
    kind: JobKind,
    round: Schema.Int,
    taskId: Schema.String,
    /** Job parameters as the decider chose them (sample index, budget, start node…). */
    params: Schema.Record(Schema.String, Schema.Unknown)
  })
)

export const JobCompleted = defineEvent(
  "JobCompleted",
  1,
  Schema.Struct({
    jobId: Schema.String,
    outcome: Schema.Literals(["done", "failed", "infra-error"]),
    /** Which worker ran it and how many deliveries it took: redeliveries are normal, and worth seeing. */
    worker: Schema.String,
    attempts: Schema.Int,
    /** Ids of the events the job produced. */
    produced: Schema.Array(Schema.String),
    error: Schema.NullOr(Schema.String)
  })
)

/** One episode of a task: the trajectory it records, which of the task's rollouts it is, its step budget. */
export const RolloutParams = Schema.Struct({
  trajectoryId: Schema.String,
  sample: Schema.Int,
  stepBudget: Schema.Int
})
export type RolloutParams = typeof RolloutParams.Type

/**
 * An explorer episode: the demo replayed through a node's key step (`prefix`, `fromStep`;
 * -1 starts at the start state), then the exploration policy, kept off the demo's next
 * target (`avoid`), rejoining the demo where it reaches a page the demo acted on later.
 * Explorer jobs queued before rejoining existed have no `rejoin`.
 */
export const ExploreParams = Schema.Struct({
  ...RolloutParams.fields,
  fromStep: Schema.Int,
  prefix: Schema.Array(Action),
  avoid: Schema.NullOr(Schema.Struct({ role: Schema.String, name: Schema.String })),
  rejoin: Schema.optionalKey(Schema.Array(Schema.Struct({ urlBefore: Schema.NullOr(Schema.String), action: Action })))
})
export type ExploreParams = typeof ExploreParams.Type

/** Label inference from one demo, as the version with this content digest was ingested. */
export const InferParams = Schema.Struct({
  demoId: Schema.String,
  contentDigest: Schema.String
})
export type InferParams = typeof InferParams.Type

/** A job's parameters decoded with its kind's schema; null when they do not fit it (another decider's job). */
export const decodeJobParams = <A>(schema: Schema.Decoder<A>, params: unknown): A | null => {
  let decode = decoders.get(schema)
  if (decode === undefined) decoders.set(schema, (decode = Schema.decodeUnknownResult(schema)))
  const decoded = decode(params)
  return Result.isSuccess(decoded) ? (decoded.success as A) : null
}

/** Each schema's decoder, built once: rollout jobs are decoded on every check for one. */
const decoders = new WeakMap<Schema.Decoder<unknown>, (input: unknown) => Result.Result<unknown, unknown>>()
