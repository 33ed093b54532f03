/**
 * Jobs: rollout and exploration work handed to workers through a work queue (DESIGN §2,
 * Scale-out). The queue itself is transport; these events are the record of it.
 */
import { Schema } from "effect"
import { defineEvent } from "./Event.ts"

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
