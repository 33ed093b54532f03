/**
 * How CORE's own model calls are built: one user message with the rendered prompt (or a
 * whole conversation, images by hash), greedy sampling unless told otherwise, and the id
 * of the `ModelCalled` event each call becomes — which decision events cite as
 * `modelCallIds` for the audit trail (`bun core audit label-function` lists them).
 */
import type { Effect } from "effect"
import { eventId } from "@core/events"
import { Models } from "@core/engine"
import type { ModelAnswer, ModelCallFailed, ModelCallNotRecorded, ModelRequestMismatch } from "@core/engine"
import type { ImageRef } from "./Images.ts"
import { promptRef } from "./Prompts.ts"
import type { Prompt } from "./Prompts.ts"

export type ModelError = ModelCallFailed | ModelCallNotRecorded | ModelRequestMismatch

/** The id `ModelClient` gives the `ModelCalled` event of call `callIndex` made for `causationId`. */
export const modelCallId = (runId: string, causationId: string, callIndex: number): string =>
  eventId({ runId, causationId, type: "ModelCalled", ordinal: callIndex })

export type ChatPart = { readonly type: "text"; readonly text: string } | ImageRef

export interface ChatMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string | ReadonlyArray<ChatPart>
}

interface ChatCallBase {
  readonly causationId: string
  readonly callIndex: number
  readonly model: string
  readonly purpose: string
  readonly prompt: Prompt
  readonly maxTokens: number
  /** Default 0. */
  readonly temperature?: number
  /** Sent as `top_p` only when given. */
  readonly topP?: number
}

export type ChatCall =
  /** `text`: the rendered prompt is the whole (single) user message. */
  | (ChatCallBase & { readonly text: string; readonly messages?: undefined })
  /** `messages`: the whole conversation, images as `image_ref` parts. */
  | (ChatCallBase & { readonly messages: ReadonlyArray<ChatMessage>; readonly text?: undefined })

/**
 * One chat completion through `Models`. Temperature 0 by default, because a label
 * function or a key-step choice should not depend on a sampling accident; replay does not
 * need it (answers come from the log), but a re-run with a fresh server comes closer. A
 * policy sampling rollouts passes its own temperature and top-p.
 */
export const chat = (call: ChatCall): Effect.Effect<ModelAnswer, ModelError, Models> =>
  Models.use((models) =>
    models.complete({
      causationId: call.causationId,
      callIndex: call.callIndex,
      model: call.model,
      purpose: call.purpose,
      prompt: promptRef(call.prompt),
      body: {
        messages: call.messages ?? [{ role: "user", content: call.text }],
        temperature: call.temperature ?? 0,
        ...(call.topP === undefined ? {} : { top_p: call.topP }),
        max_tokens: call.maxTokens
      }
    })
  )
