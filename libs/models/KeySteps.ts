/**
 * Key-step identification by a model (Semantic Code Abstraction, step 2): the model picks
 * from the demo's step descriptions; its answer is snapped back onto real steps, so a
 * paraphrase, a hallucinated step or a repeated number cannot become a key step.
 *
 * @example
 * const { keySteps, modelCallIds } = yield* modelKeySteps({ runId, causationId: demoEvent.id,
 *   callIndex: 0, model, instruction, descriptions }) // needs Models
 */
import { Effect } from "effect"
import type { Models } from "@core/engine"
import { chat, modelCallId } from "./Calls.ts"
import type { ModelError } from "./Calls.ts"
import { loadPrompt, renderPrompt } from "./Prompts.ts"
import type { PromptNotFound, PromptVariableMissing } from "./Prompts.ts"

export interface StepDescription {
  readonly stepIndex: number
  readonly text: string
  /** The step's action kind; a final "answer" or "status" step is always key. */
  readonly kind: string
}

/** Below this token overlap (Dice coefficient) a quoted description matches no step. */
export const SNAP_THRESHOLD = 0.5

const FINAL_KINDS: ReadonlySet<string> = new Set(["answer", "status"])

const tokens = (text: string): ReadonlySet<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])

const dice = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  if (a.size === 0 || b.size === 0) return 0
  let shared = 0
  for (const t of a) if (b.has(t)) shared++
  return (2 * shared) / (a.size + b.size)
}

/** What the answer names: list numbers (1-based) or description texts. */
type Pick = { readonly number: number } | { readonly text: string }

const pickOf = (item: unknown): Pick | null => {
  if (typeof item === "number") return Number.isInteger(item) ? { number: item } : null
  if (typeof item !== "string") return null
  // "3", "3. Click on …", "Step 3": the model quoting the list's numbering.
  const numbered = /^\s*(?:step\s*)?(\d+)\s*(?:[.):]|$)/i.exec(item)
  return numbered ? { number: Number(numbered[1]) } : { text: item }
}

/** The last JSON array of numbers/strings in the text: a model that reasons first answers last. */
const jsonPicks = (text: string): Array<Pick> | null => {
  let found: Array<Pick> | null = null
  for (const m of text.matchAll(/\[[^[\]]*\]/g)) {
    let parsed: unknown
    try {
      parsed = JSON.parse(m[0])
    } catch {
      continue
    }
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === "number" || typeof x === "string")) continue
    found = parsed.map(pickOf).filter((p): p is Pick => p !== null)
  }
  return found
}

/** Without a JSON array: quoted descriptions, then the bare numbers outside any quote. */
const loosePicks = (text: string): Array<Pick> => {
  const quoted = /"([^"\n]{3,})"|“([^”\n]{3,})”/g
  const picks: Array<Pick> = []
  for (const m of text.matchAll(quoted)) {
    const p = pickOf(m[1] ?? m[2]!)
    if (p) picks.push(p)
  }
  for (const m of text.replace(quoted, " ").matchAll(/\b\d+\b/g)) picks.push({ number: Number(m[0]) })
  return picks
}

/**
 * The step indices the model's answer names, sorted: numbers are positions in
 * `descriptions` (1-based, as the prompt lists them); texts snap to the most similar
 * description, or to none below `SNAP_THRESHOLD`. Duplicates collapse; the final step is
 * kept whenever it answers or sets the status, whatever the model said.
 */
export const snapKeySteps = (answerText: string, descriptions: ReadonlyArray<StepDescription>): Array<number> => {
  const text = answerText.replace(/<think>[\s\S]*?(<\/think>|$)/g, " ")
  const picks = jsonPicks(text) ?? loosePicks(text)
  const described = descriptions.map((d) => tokens(d.text))
  const chosen = new Set<number>()
  for (const pick of picks) {
    if ("number" in pick) {
      const d = descriptions[pick.number - 1]
      if (pick.number >= 1 && d) chosen.add(d.stepIndex)
      continue
    }
    const wanted = tokens(pick.text)
    let best: { score: number; stepIndex: number } | null = null
    for (const [i, d] of descriptions.entries()) {
      const score = dice(wanted, described[i]!)
      // On a tie (a step repeated word for word), prefer the copy not yet chosen.
      const better = best === null || score > best.score || (score === best.score && chosen.has(best.stepIndex) && !chosen.has(d.stepIndex))
      if (score >= SNAP_THRESHOLD && better) best = { score, stepIndex: d.stepIndex }
    }
    if (best !== null) chosen.add(best.stepIndex)
  }
  const last = descriptions.reduce<StepDescription | undefined>((a, d) => (a === undefined || d.stepIndex > a.stepIndex ? d : a), undefined)
  if (last && FINAL_KINDS.has(last.kind)) chosen.add(last.stepIndex)
  return [...chosen].sort((a, b) => a - b)
}

/** The numbered list the prompt shows: "1. Click on …". */
export const numberedDescriptions = (descriptions: ReadonlyArray<StepDescription>): string =>
  descriptions.map((d, i) => `${i + 1}. ${d.text.replace(/\s+/g, " ").trim()}`).join("\n")

export interface ModelKeyStepsInput {
  readonly runId: string
  /** The event being handled (e.g. the DemoIngested): the call's cause. */
  readonly causationId: string
  readonly callIndex: number
  readonly model: string
  readonly instruction: string
  readonly descriptions: ReadonlyArray<StepDescription>
}

export interface ModelKeySteps {
  readonly keySteps: Array<{ readonly stepIndex: number; readonly description: string }>
  readonly modelCallIds: Array<string>
}

/** One "key-steps" call, its answer snapped onto `descriptions`. */
export const modelKeySteps = Effect.fnUntraced(function* (
  input: ModelKeyStepsInput
): Effect.fn.Return<ModelKeySteps, ModelError | PromptNotFound | PromptVariableMissing, Models> {
  const prompt = yield* loadPrompt("key-steps")
  const text = yield* renderPrompt(prompt, {
    instruction: input.instruction.trim(),
    descriptions: numberedDescriptions(input.descriptions)
  })
  const answer = yield* chat({
    causationId: input.causationId,
    callIndex: input.callIndex,
    model: input.model,
    purpose: "key-steps",
    prompt,
    text,
    maxTokens: 512
  })
  const byIndex = new Map(input.descriptions.map((d) => [d.stepIndex, d.text]))
  return {
    keySteps: snapKeySteps(answer.text, input.descriptions).map((stepIndex) => ({ stepIndex, description: byIndex.get(stepIndex)! })),
    modelCallIds: [modelCallId(input.runId, input.causationId, input.callIndex)]
  }
})
