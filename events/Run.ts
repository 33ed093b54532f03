/** Runs and rounds: the frame of a CORE self-training run. */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"

/** A JSON value. Configs and parameters are open-ended by nature. */
export const Json = Schema.Unknown

export const RunStarted = defineEvent(
  "RunStarted",
  1,
  Schema.Struct({
    /**
     * The merged configuration (file, environment, flags). Secrets appear only as the
     * *names* of the environment variables holding them: the log is immutable, so a key
     * written into it could never be removed.
     */
    config: Schema.Record(Schema.String, Json),
    /** Where each config value came from: "default" | "file" | "env:NAME" | "flag:--name". */
    configSources: Schema.Record(Schema.String, Schema.String),
    seed: Schema.String,
    code: Schema.Struct({ commit: Schema.NullOr(Schema.String), dirty: Schema.Boolean }),
    /** Versions of Bun, Chromium, nats-server… as each reported itself (null when absent). */
    tools: Schema.Record(Schema.String, Schema.NullOr(Schema.String)),
    command: Schema.String
  })
)

export const RoundStarted = defineEvent(
  "RoundStarted",
  1,
  Schema.Struct({
    round: Schema.Int,
    taskIds: Schema.Array(Schema.String),
    /** The policy acting in this round (model name or checkpoint digest). */
    policy: Schema.String,
    samplesPerTask: Schema.Int
  })
)

export const RoundCompleted = defineEvent(
  "RoundCompleted",
  1,
  Schema.Struct({
    round: Schema.Int,
    counts: Schema.Record(Schema.String, Schema.Int),
    datasetDigest: Schema.NullOr(Sha256)
  })
)

export const PolicyTrained = defineEvent(
  "PolicyTrained",
  1,
  Schema.Struct({
    round: Schema.Int,
    trainer: Schema.String,
    /** The dataset it was trained on, by content digest. */
    datasetDigest: Sha256,
    checkpoint: Schema.String,
    metrics: Schema.Record(Schema.String, Schema.Number),
    /** The weights blob of a learned model (sha256 of its JSON). */
    weights: Schema.optional(Sha256),
    /** The seed it was trained with. */
    seed: Schema.optional(Schema.String),
    /** What data taught it, e.g. the dataset stream sequences it covered: `{ count, first, last }`. */
    records: Schema.optional(Schema.Record(Schema.String, Json))
  })
)
