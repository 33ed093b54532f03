/**
 * How CORE's own model calls are built: one user message with the rendered prompt, greedy
 * sampling, and the id of the `ModelCalled` event each call becomes — which decision
 * events cite as `modelCallIds` for the audit trail (DESIGN §2, Audit).
 */
import type { Effect } from "effect"
import { eventId } from "@core/events"
import { Models } from "@core/replay"
import type { ModelAnswer, ModelCallFailed, ModelCallNotRecorded, ModelRequestMismatch } from "@core/replay"
import { promptRef } from "./Prompts.ts"
import type { Prompt } from "./Prompts.ts"

export type ModelError = ModelCallFailed | ModelCallNotRecorded | ModelRequestMismatch

/** The id `ModelClient` gives the `ModelCalled` event of call `callIndex` made for `causationId`. */
export const modelCallId = (runId: string, causationId: string, callIndex: number): string =>
  eventId({ runId, causationId, type: "ModelCalled", ordinal: callIndex })

export interface ChatCall {
  readonly causationId: string
  readonly callIndex: number
  readonly model: string
  readonly purpose: string
  readonly prompt: Prompt
  /** The rendered prompt: the whole user message. */
  readonly text: string
  readonly maxTokens: number
}

/**
 * One chat completion through `Models`. Temperature 0, because a label function or a
 * key-step choice should not depend on a sampling accident; replay does not need it
 * (answers come from the log), but a re-run with a fresh server comes closer.
 */
export const chat = (call: ChatCall): Effect.Effect<ModelAnswer, ModelError, Models> =>
  Models.use((models) =>
    models.complete({
      causationId: call.causationId,
      callIndex: call.callIndex,
      model: call.model,
      purpose: call.purpose,
      prompt: promptRef(call.prompt),
      body: { messages: [{ role: "user", content: call.text }], temperature: 0, max_tokens: call.maxTokens }
    }))
