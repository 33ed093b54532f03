/**
 * The envelope every event travels in, and the rule for its id.
 *
 * Ids are `sha256(runId, causationId, type, ordinal)` (docs/architecture.md, "Events"): a decider that
 * re-derives the same event from the same inputs gets the same id, which is what lets a
 * replay compare events and lets the store refuse a duplicate commit.
 */
import { Schema } from "effect"
import { digest } from "./Canonical.ts"

/** An event's encoded JSON may not exceed this many bytes (NATS's own limit is 1 MB). */
export const MAX_EVENT_BYTES = 256 * 1024

/** Lower-case hex sha256. */
export const Sha256 = Schema.String.pipe(Schema.check(Schema.isPattern(/^[0-9a-f]{64}$/)))

/** ISO-8601 instant, as the Clock service prints it. */
export const Instant = Schema.String.pipe(Schema.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)))

/**
 * A stream name: `ws.<kind>.<id>` for workspace facts that outlive runs,
 * `run.<runId>.<kind>.<id>` for a run, or `trainer.<kind>.<id>` for what a trainer outside
 * any run publishes (`core train`), which no run's deciders read. Tokens are NATS subject
 * tokens, so no dots, spaces or wildcards inside one.
 */
export const StreamName = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^((ws|trainer)\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+|run\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/))
)

/** Fields every event has besides `type`, `version` and `data`. */
export const envelopeFields = {
  id: Sha256,
  stream: StreamName,
  runId: Schema.NullOr(Schema.String),
  causationId: Schema.NullOr(Schema.String),
  recordedAt: Instant
} as const

/** The envelope with its data still undecoded: what the store reads before the catalog. */
export const RawEnvelope = Schema.Struct({
  ...envelopeFields,
  type: Schema.String,
  version: Schema.Int,
  data: Schema.Unknown
})
export type RawEnvelope = typeof RawEnvelope.Type

/**
 * The deterministic event id.
 *
 * @example
 * eventId({ runId: "r1", causationId: null, type: "RunStarted", ordinal: 0 })
 */
export const eventId = (input: {
  readonly runId: string | null
  readonly causationId: string | null
  readonly type: string
  readonly ordinal: number
}): string => digest([input.runId, input.causationId, input.type, input.ordinal])

/** `ws.<kind>.<id>` */
export const workspaceStream = (kind: string, id: string): string => `ws.${kind}.${id}`

/** `run.<runId>.<kind>.<id>` */
export const runStream = (runId: string, kind: string, id: string): string => `run.${runId}.${kind}.${id}`

/** The run a stream belongs to (`run.<runId>.…` → runId); null for a workspace or trainer stream. */
export const runOfStream = (stream: string): string | null => (stream.startsWith("run.") ? (stream.split(".")[1] ?? null) : null)
