/**
 * Label-function synthesis by a model (Semantic Code Abstraction, step 3): ask for an LF,
 * validate it, and on rejection ask again with the reason, up to `attempts` times. The
 * loop reads nothing but the model's answers and the validator's verdicts — no clock, no
 * randomness — so a replay answering from the log takes the same path and makes the same
 * calls with the same request digests.
 *
 * @example
 * const result = yield* modelSynthesize({ runId, causationId, firstCallIndex: 0, model,
 *   instruction, keyStep: { stepIndex: 4, description, step }, context, apiDocs,
 *   validate: (code) => validateOnDemo(code) })
 * result.accepted ? inferred(result.code) : rejected(result.reason)
 */
import { Effect } from "effect"
import { canonicalJson } from "@core/events"
import type { Models } from "@core/engine"
import { chat, modelCallId } from "./Calls.ts"
import type { ModelError } from "./Calls.ts"
import { extractCode } from "./Code.ts"
import { loadPrompt, renderPrompt } from "./Prompts.ts"
import type { PromptNotFound, PromptVariableMissing } from "./Prompts.ts"

export type Verdict = { readonly accepted: true } | { readonly accepted: false; readonly reason: string }

export interface ModelSynthesizeInput<E, R> {
  readonly runId: string
  /** The event being handled; attempt i is its call `firstCallIndex + i`. */
  readonly causationId: string
  readonly firstCallIndex: number
  readonly model: string
  readonly instruction: string
  /** The key step: its description and the demo's step itself (rendered as canonical JSON). */
  readonly keyStep: { readonly stepIndex: number; readonly description: string; readonly step: unknown }
  /** The demo's steps around the key step, described. */
  readonly context: string
  /** The LF API's documentation (markdown). */
  readonly apiDocs: string
  /** Default 5, as in the reference. */
  readonly attempts?: number
  readonly validate: (code: string) => Effect.Effect<Verdict, E, R>
}

export interface ModelSynthesis {
  /** The accepted code; when none was accepted, the last candidate (null if no answer had code). */
  readonly code: string | null
  readonly accepted: boolean
  /** Model calls made. */
  readonly attempts: number
  /** The last rejection's reason; null when accepted. */
  readonly reason: string | null
  readonly modelCallIds: Array<string>
}

export const DEFAULT_ATTEMPTS = 5
export const NO_CODE = "no code block"

const stepJson = (keyStep: ModelSynthesizeInput<unknown, unknown>["keyStep"]): string =>
  // Canonical, not JSON.stringify: a step decoded from the log may order its keys differently, and the prompt's bytes are digested.
  `${keyStep.description.trim()}\n\nThe step (index ${keyStep.stepIndex}) as recorded:\n\`\`\`json\n${canonicalJson(keyStep.step)}\n\`\`\``

const feedbackFor = (reason: string, code: string | null): string =>
  code === null
    ? `Your previous answer was rejected: ${reason}. Answer with one fenced javascript block.`
    : `Your previous label function was rejected: ${reason}.\nIt was:\n\`\`\`javascript\n${code}\n\`\`\`\nWrite a corrected one.`

/** Up to `attempts` "lf-synthesis" calls, each answer's code validated; stops at the first accepted. */
export const modelSynthesize = <E = never, R = never>(
  input: ModelSynthesizeInput<E, R>
): Effect.Effect<ModelSynthesis, ModelError | PromptNotFound | PromptVariableMissing | E, Models | R> =>
  Effect.gen(function* () {
    const prompt = yield* loadPrompt("lf-synthesis")
    const attempts = Math.max(1, input.attempts ?? DEFAULT_ATTEMPTS)
    const modelCallIds: Array<string> = []
    let code: string | null = null
    let reason: string | null = null
    let feedback = ""
    for (let i = 0; i < attempts; i++) {
      const callIndex = input.firstCallIndex + i
      const text = yield* renderPrompt(prompt, {
        api: input.apiDocs.trim(),
        instruction: input.instruction.trim(),
        keyStep: stepJson(input.keyStep),
        context: input.context.trim(),
        feedback
      })
      const answer = yield* chat({
        causationId: input.causationId,
        callIndex,
        model: input.model,
        purpose: "lf-synthesis",
        prompt,
        text,
        maxTokens: 1024
      })
      modelCallIds.push(modelCallId(input.runId, input.causationId, callIndex))
      const candidate = extractCode(answer.text)
      // An answer without code keeps the previous candidate: it is still the best one on offer.
      if (candidate !== null) code = candidate
      const verdict: Verdict = candidate === null ? { accepted: false, reason: NO_CODE } : yield* input.validate(candidate)
      if (verdict.accepted) return { code: candidate, accepted: true, attempts: i + 1, reason: null, modelCallIds }
      reason = verdict.reason
      feedback = feedbackFor(verdict.reason, candidate)
    }
    return { code, accepted: false, attempts, reason, modelCallIds }
  })
