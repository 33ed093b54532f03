/** Runs and rounds: the frame of a CORE self-training run. */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"
import { Count } from "./Trajectory.ts"

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
    /**
     * The weights a trainer stored, by the sha256 of their bytes: a blob of the BlobStore an
     * audit or a worker fetches (the learner's canonical model JSON). Absent where the model is
     * rebuilt from the log instead (the retrieval policy) and in events from before the key.
     */
    weights: Schema.optionalKey(Sha256),
    /** The seed the trainer trained with (the learner's: a digest of the run's seed and the round). */
    seed: Schema.optionalKey(Schema.String),
    /**
     * The data it learned from: `count` dataset records — every record of the sealed rounds
     * `rounds`, in log order (0 is the demos' round) — of which `datasetDigest` is the seals' digest.
     * A trainer following the stream (`core train --follow`) covers the records of stream
     * sequences `first` to `last` instead (of rounds `rounds`, sealed or not, where it names
     * them: its first versions did not), each once, and its `datasetDigest` is the digest of
     * their ids in that order.
     */
    records: Schema.optionalKey(
      Schema.Struct({
        count: Count,
        rounds: Schema.optionalKey(Schema.Array(Count)),
        first: Schema.optionalKey(Count),
        last: Schema.optionalKey(Count)
      })
    ),
    /**
     * A run that takes its policy from a trainer following the dataset stream (`run --policy
     * learned --trainer NAME`): the trainer, its stream and the version the run took — the
     * position of that PolicyTrained among the stream's, from 1, and its event id. Version 0:
     * the trainer had published nothing yet, and the round's rollouts explore. The rest of the
     * event is the taken version's own (its weights, seed, records and metrics), so an audit
     * reads which data taught the policy a round acted with.
     */
    published: Schema.optionalKey(
      Schema.Struct({
        trainer: Schema.String,
        stream: Schema.String,
        version: Count,
        eventId: Schema.optionalKey(Schema.String)
      })
    )
  })
)
