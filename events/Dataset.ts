/**
 * Training data: the product. Trainers subscribe to these events, so a record is final
 * when emitted, and a sealed round is a content digest a PolicyTrained event can name.
 */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"
import { Count } from "./Trajectory.ts"

export const DatasetFormat = Schema.Literals(["sft", "dpo", "rollout"])
export type DatasetFormat = typeof DatasetFormat.Type

export const DatasetRecordEmitted = defineEvent(
  "DatasetRecordEmitted",
  1,
  Schema.Struct({
    /** `digest({ format, body })`: the same record is the same id in every run and replay. */
    recordId: Sha256,
    round: Count,
    format: DatasetFormat,
    /** One for sft and rollout; chosen then rejected for dpo. */
    trajectoryIds: Schema.Array(Schema.String),
    taskId: Schema.String,
    /** The record as the trainer reads it; images are referenced by hash, listed in `blobs`. */
    body: Schema.Json,
    blobs: Schema.Array(Sha256)
  })
)

export const DatasetSealed = defineEvent(
  "DatasetSealed",
  1,
  Schema.Struct({
    round: Count,
    counts: Schema.Struct({ sft: Count, dpo: Count, rollout: Count }),
    recordCount: Count,
    /** Digest of the sorted record ids: what PolicyTrained and RoundCompleted name. */
    contentDigest: Sha256
  })
)
