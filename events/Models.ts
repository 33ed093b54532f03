/**
 * Model calls: the largest source of nondeterminism, recorded in full so replay needs no
 * model server (docs/architecture.md, "Replay").
 *
 * The call's cause is the envelope's `causationId` (the event whose handling made the
 * call), and the envelope's ordinal is `callIndex`; so a recorded call is found by
 * `(causationId, callIndex)`, and its event id is that key hashed. A replayed request
 * whose `requestDigest` differs from the recorded one is a divergence, not a cache miss.
 */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"
import { Count } from "./Trajectory.ts"

export const ModelUsage = Schema.Struct({
  inputTokens: Schema.NullOr(Count),
  outputTokens: Schema.NullOr(Count)
})

export const ModelCalled = defineEvent(
  "ModelCalled",
  1,
  Schema.Struct({
    /** Position of this call among the calls one cause made (0, 1, …). */
    callIndex: Count,
    model: Schema.String,
    /** What the call was for: "policy-action", "key-steps", "lf-synthesis", "intent-relabel", … */
    purpose: Schema.String,
    /** Digest of the canonical request (messages, images by hash, sampling parameters). */
    requestDigest: Sha256,
    /** The full request as a blob when it was kept (images make it large), for audit. */
    requestBlob: Schema.NullOr(Sha256),
    /** The prompt template, so a changed prompt is visible apart from a changed input. */
    prompt: Schema.Struct({ name: Schema.String, version: Schema.String, digest: Sha256 }),
    /** Null when the call failed; then `error` says how. */
    response: Schema.NullOr(
      Schema.Struct({
        text: Schema.String,
        /** As the server reported it: "stop", "length", "tool_calls", … */
        finishReason: Schema.String,
        usage: ModelUsage
      })
    ),
    error: Schema.NullOr(Schema.String),
    latencyMs: Schema.Number.check(Schema.isGreaterThanOrEqualTo(0))
  })
)
