/**
 * The retrieval model: verified examples, normalised, merged and sorted so that the same
 * examples in any order give the same model — and the same bytes, since its canonical
 * JSON is what an event digests (keys sorted at every level, arrays in a fixed order).
 */
import type { Action } from "@core/events"
import { canonicalJson } from "@core/events"
import { collapse, describeStep, lfAction, normalizeText } from "@core/domain"
import { alignInstructions } from "./Alignment.ts"
import { pageKey, terms, tokenize } from "./Text.ts"

/** One decision of a verified trajectory: in this situation, this action was right. */
export interface RetrievalExample {
  readonly instruction: string
  /** The page it was taken on: a full URL or path + query; null when there is none (Android). */
  readonly url: string | null
  /** The action's index in its episode. */
  readonly step: number
  /** `describeAction` of the earlier actions of the episode, oldest first (other strings still work, but never match the live history). */
  readonly history: ReadonlyArray<string>
  readonly action: Action
  /** How much the example counts (e.g. the number of trajectories that agree); default 1, 0 drops it. */
  readonly weight?: number
}

export interface RetrievalModelExample {
  /** With element ids removed (they are episode-local), keys sorted. */
  readonly action: Action
  /**
   * Of the other instances of this instruction's template in the model (sibling
   * instructions: aligned with substitutions), the share that also took this action
   * somewhere; null without siblings. Low for an action tied to its instance's data that
   * the instruction does not name (the category a browsed-to product happens to be in).
   */
  readonly agreement: number | null
  /** normalizeText of each description. */
  readonly history: ReadonlyArray<string>
  /** White space collapsed; case kept, since capitals mark parameters. */
  readonly instruction: string
  /** `pageKey` of the URL. */
  readonly page: string | null
  readonly step: number
  /** The sum over identical examples. */
  readonly weight: number
}

export interface RetrievalModel {
  /** Distinct instructions the idf was counted over. */
  readonly documents: number
  readonly examples: ReadonlyArray<RetrievalModelExample>
  /** [term, inverse document frequency], sorted by term (an array: numeric-looking object keys would be reordered). */
  readonly idf: ReadonlyArray<readonly [string, number]>
  readonly version: "retrieval-v1"
}

/** The project's step description (`describeStep`), so live history and recorded history compare. */
export const describeAction = (a: Action): string => describeStep(lfAction(a))

const withoutElementId = (a: Action): Action =>
  "target" in a && a.target !== null ? ({ ...a, target: { ...a.target, elementId: null } } as Action) : a

/** Keys sorted at every level: JSON.parse keeps the text's key order. */
const sorted = <T>(value: T): T => JSON.parse(canonicalJson(value)) as T

export const idfOf = (documents: number, df: number): number => Math.log((1 + documents) / (1 + df)) + 1

export const trainRetrieval = (examples: ReadonlyArray<RetrievalExample>): RetrievalModel => {
  const merged = new Map<string, { readonly example: Omit<RetrievalModelExample, "weight" | "agreement">; weight: number }>()
  for (const e of examples) {
    const weight = e.weight ?? 1
    if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`example weight must be a finite non-negative number, got ${weight}`)
    if (!Number.isInteger(e.step) || e.step < 0) throw new RangeError(`example step must be a non-negative integer, got ${e.step}`)
    if (weight === 0) continue
    const example = {
      action: sorted(withoutElementId(e.action)),
      history: e.history.map(normalizeText),
      instruction: collapse(e.instruction),
      page: pageKey(e.url),
      step: e.step
    }
    const key = canonicalJson(example)
    const seen = merged.get(key)
    if (seen === undefined) merged.set(key, { example, weight })
    else seen.weight += weight
  }
  const kept = [...merged.keys()].sort().map((k) => merged.get(k)!)
  const instructions = [...new Set(kept.map((e) => e.example.instruction))].sort()
  const df = new Map<string, number>()
  for (const i of instructions) for (const t of new Set(terms(i))) df.set(t, (df.get(t) ?? 0) + 1)
  const idf = [...df.keys()].sort().map((t) => [t, idfOf(instructions.length, df.get(t)!)] as const)
  const weights = new Map(idf)
  const unseen = idfOf(instructions.length, 0)
  const siblings = siblingsOf(instructions, (t) => weights.get(t) ?? unseen)
  const done = new Map<string, Set<string>>()
  for (const { example } of kept) {
    const set = done.get(example.instruction) ?? new Set<string>()
    set.add(normalizeText(describeAction(example.action)))
    done.set(example.instruction, set)
  }
  const examplesOut = kept.map(({ example, weight }) => {
    const sib = siblings.get(example.instruction) ?? []
    const d = normalizeText(describeAction(example.action))
    const agreement = sib.length === 0 ? null : sib.filter((j) => done.get(j)?.has(d) === true).length / sib.length
    return {
      action: example.action,
      agreement,
      history: example.history,
      instruction: example.instruction,
      page: example.page,
      step: example.step,
      weight
    }
  })
  return { documents: instructions.length, examples: examplesOut, idf, version: "retrieval-v1" }
}

/** Alignment similarity at which two instructions with substitutions are one template's instances. */
const SIBLING_SIMILARITY = 0.7
/** Cheap pre-filter before aligning a pair: the share of wording (not values) they have in common. */
const SIBLING_WORDING = 0.5

/** The words of an instruction that are template, not value: lower-case and not value-like. */
const wording = (s: string): ReadonlySet<string> =>
  new Set(
    tokenize(s)
      .filter((t) => t.kind === "word" && !t.strong && !t.capitalised)
      .map((t) => t.norm)
  )

const siblingsOf = (instructions: ReadonlyArray<string>, weight: (t: string) => number): ReadonlyMap<string, ReadonlyArray<string>> => {
  const words = instructions.map(wording)
  const out = new Map<string, Array<string>>(instructions.map((i) => [i, []]))
  for (let x = 0; x < instructions.length; x++) {
    for (let y = x + 1; y < instructions.length; y++) {
      const a = words[x]!
      const b = words[y]!
      const shared = [...a].filter((w) => b.has(w)).length
      const union = a.size + b.size - shared
      if (union > 0 && shared / union < SIBLING_WORDING) continue
      const al = alignInstructions(instructions[x]!, instructions[y]!, weight)
      if (al.similarity < SIBLING_SIMILARITY || al.substitutions.length === 0) continue
      out.get(instructions[x]!)!.push(instructions[y]!)
      out.get(instructions[y]!)!.push(instructions[x]!)
    }
  }
  return out
}

/** The string to digest for the model (RFC 8785 canonical JSON); equal to JSON.stringify of a model trainRetrieval made. */
export const modelDigestInput = (model: RetrievalModel): string => canonicalJson(model)

/** A model read back from JSON, checked for its version and shape; throws a one-line error otherwise. */
export const retrievalModelFromJson = (json: string): RetrievalModel => {
  const v = JSON.parse(json) as Partial<RetrievalModel> | null
  if (v === null || typeof v !== "object" || v.version !== "retrieval-v1") throw new TypeError("not a retrieval-v1 model")
  if (!Array.isArray(v.examples) || !Array.isArray(v.idf) || typeof v.documents !== "number")
    throw new TypeError("retrieval-v1 model without examples, idf or documents")
  for (const e of v.examples) {
    if (
      typeof e?.instruction !== "string" ||
      typeof e.step !== "number" ||
      !(e.agreement === null || typeof e.agreement === "number") ||
      !Array.isArray(e.history) ||
      typeof e.action?.kind !== "string" ||
      typeof e.weight !== "number"
    ) {
      throw new TypeError("retrieval-v1 model with a malformed example")
    }
  }
  return v as RetrievalModel
}
