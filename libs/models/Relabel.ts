/**
 * Failure-driven task exploration by a model (Trajectory-Guided Extrapolation 2): one
 * "relabel" call asks what a failed trajectory's actions did, and the answer goes through
 * the reference's rejection rules (libs/domain Relabel). Greedy, one call, no retries: an
 * answer that breaks a rule is a refusal the caller logs, not something to argue with.
 *
 * @example
 * const r = yield* modelRelabel({ runId, causationId, callIndex: 0, model, site: "shop",
 *   instruction: "Open the Electronics category page.", steps, screen })
 * r.relabelled.kind === "intent" ? newTask(r.relabelled.intent, r.promptDigest) : refuse(r.relabelled.rule)
 */
import { Effect } from "effect"
import { parseIntent } from "@core/domain"
import type { Relabelled } from "@core/domain"
import type { Models } from "@core/engine"
import { chat, modelCallId } from "./Calls.ts"
import type { ModelError } from "./Calls.ts"
import { loadPrompt, renderPrompt } from "./Prompts.ts"
import type { PromptNotFound, PromptVariableMissing } from "./Prompts.ts"

export interface RelabelStep {
  /** The step described (libs/domain describeStep). */
  readonly text: string
  readonly urlBefore: string | null
  readonly urlAfter: string | null
}

export interface ModelRelabelInput {
  readonly runId: string
  /** The event being handled; this is its call `callIndex`. */
  readonly callIndex: number
  readonly causationId: string
  readonly model: string
  readonly site: string
  /** The task the trajectory was given. */
  readonly instruction: string
  readonly steps: ReadonlyArray<RelabelStep>
  /** The last screen, summarised (libs/domain screenSummary). */
  readonly screen: string
}

export interface ModelRelabel {
  readonly relabelled: Relabelled
  /** The model's answer as given. */
  readonly answer: string
  readonly promptDigest: string
  readonly modelCallId: string
}

/** The steps as the prompt lists them: numbered, with where each was taken and where it led. */
export const relabelStepsText = (steps: ReadonlyArray<RelabelStep>): string =>
  steps
    .map(
      (s, i) =>
        `${i + 1}. ${s.text} (on ${s.urlBefore ?? "?"}${s.urlAfter !== null && s.urlAfter !== s.urlBefore ? ` → ${s.urlAfter}` : ""})`
    )
    .join("\n")

export const modelRelabel = (
  input: ModelRelabelInput
): Effect.Effect<ModelRelabel, ModelError | PromptNotFound | PromptVariableMissing, Models> =>
  Effect.gen(function* () {
    const prompt = yield* loadPrompt("relabel")
    const text = yield* renderPrompt(prompt, {
      site: input.site,
      instruction: input.instruction.trim(),
      steps: relabelStepsText(input.steps),
      screen: input.screen.trim()
    })
    const answer = yield* chat({
      causationId: input.causationId,
      callIndex: input.callIndex,
      model: input.model,
      purpose: "relabel",
      prompt,
      text,
      maxTokens: 256
    })
    return {
      relabelled: parseIntent(answer.text),
      answer: answer.text,
      promptDigest: prompt.digest,
      modelCallId: modelCallId(input.runId, input.causationId, input.callIndex)
    }
  })
