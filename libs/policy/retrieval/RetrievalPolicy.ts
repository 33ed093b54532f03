/**
 * An embedded retrieval policy: no GPU, no model server. Trained (`trainRetrieval`) from
 * verified dataset records, it acts on a new page for a possibly new instruction by
 * finding the recorded decisions made in the most similar situation and replaying them
 * there — with the new instruction's parameters put in for the recorded ones and the
 * target found again on the current page. Like every policy it sees only the instruction
 * and the observations.
 *
 * The decision (docs/method.md, "Embedded retrieval policy"):
 *  1. instruction similarity: the larger of TF-IDF cosine and the template alignment's
 *     similarity (alignInstructions), so a held-out parameter value — a rare, heavily
 *     weighted term — does not hide its own template;
 *  2. context: the page (after substitution; id-like segments generalised) and progress
 *     (step index, shared history, same last action);
 *  3. the recorded action, substituted and grounded (Grounding); an ungroundable one is
 *     skipped, an action the history already shows more often than the example's does is
 *     penalised;
 *  4. a softmax draw with a low temperature over the candidates near the best; null when
 *     nothing clears the threshold, so the caller falls back to its exploration policy.
 * Version 2 (Reading.ts) reads a recorded answer's price or count off the live page.
 *
 * @example
 * const model = trainRetrieval(examples)
 * retrievalAction(model, { instruction: "Open the Kitchen category page.", url, elements, history: [], stepBudget: 10 }, prng(seed))
 * // { kind: "click", target: { role: "link", name: "Kitchen", elementId: "e7", text: "Kitchen" } }
 */
import type { Action } from "@core/events"
import { canonicalJson } from "@core/events"
import type { Draws, PolicyInput } from "../PolicyView.ts"
import { softmaxDraw } from "../Sampling.ts"
import { collapse, normalizeText } from "@core/domain"
import type { RetrievalRules } from "@core/domain"
import { alignInstructions, substitute, substitutePage } from "./Alignment.ts"
import type { Substitution } from "./Alignment.ts"
import { concretise } from "./Concretise.ts"
import { describeAction, idfOf } from "./RetrievalIndex.ts"
import type { RetrievalModel, RetrievalModelExample } from "./RetrievalIndex.ts"
import { pageKey, pageSimilarity, terms } from "./Text.ts"

export interface RetrievalOptions {
  /** Softmax temperature over candidate scores (in [0, 1]); default 0.05: a candidate 0.1 below the best is drawn e^-2 as often. */
  readonly temperature?: number
  /** Below this score no candidate is confident; default 0.5. */
  readonly threshold?: number
  /** Only candidates this close to the best are drawn from; default 0.15. */
  readonly margin?: number
  /** Which rules act (@core/domain RETRIEVAL). Default the first version's: callers that record no version replay as they always did. */
  readonly rules?: RetrievalRules
  /** The live page's accessibility snapshot: from `readsPage` on, a recorded price or count is read off it. */
  readonly page?: string | null
}

export interface RetrievalCandidate {
  readonly action: Action
  /** instruction × (0.25 + 0.75 × context) × grounding × instance-specificity × repetition, in [0, 1]. */
  readonly score: number
  /** Index into model.examples of the best example behind it. */
  readonly example: number
  readonly instruction: number
  readonly page: number
  readonly progress: number
  readonly grounding: number
}

const DEFAULT_TEMPERATURE = 0.05
const DEFAULT_THRESHOLD = 0.5
const DEFAULT_MARGIN = 0.15
/** Context = PAGE × page + (1 − PAGE) × progress: where and how far along count alike (a form page holds many steps). */
const PAGE = 0.5
/** What a fitting instruction is worth with no fitting context: too little to act on alone. */
const BASE = 0.25
/** An action repeated beyond what the example had done: usually a loop, occasionally paging. */
const REPEATED = 0.3
/**
 * For another instance of the template, an action the substitution left unchanged is
 * scaled from this (no sibling instance did it: it belongs to the recorded instance's data)
 * up to 1 (every sibling did it: part of the template's procedure).
 */
const SPECIFIC = 0.5
const CONTENT: ReadonlySet<Action["kind"]> = new Set(["click", "long_press", "type", "select", "answer"])

interface Prepared {
  readonly idf: ReadonlyMap<string, number>
  readonly unseen: number
  readonly groups: ReadonlyArray<{
    readonly instruction: string
    readonly vector: ReadonlyMap<string, number>
    readonly norm: number
    readonly members: ReadonlyArray<number>
  }>
  /** Per live instruction (constant through an episode): each group's similarity and substitutions. */
  readonly matches: Map<string, ReadonlyArray<Match>>
}

interface Match {
  readonly instruction: number
  readonly substitutions: ReadonlyArray<Substitution>
}

/** Instructions whose matches are kept per model: a few episodes run at once. */
const MATCHES_KEPT = 64

// Memoised per model object: a model is immutable, and deciding every step re-reads it.
const cache = new WeakMap<RetrievalModel, Prepared>()

const vectorOf = (s: string, weight: (t: string) => number): { vector: Map<string, number>; norm: number } => {
  const vector = new Map<string, number>()
  for (const t of terms(s)) vector.set(t, (vector.get(t) ?? 0) + weight(t))
  let sq = 0
  for (const v of vector.values()) sq += v * v
  return { vector, norm: Math.sqrt(sq) }
}

const prepare = (model: RetrievalModel): Prepared => {
  const hit = cache.get(model)
  if (hit !== undefined) return hit
  const idf = new Map(model.idf.map(([t, v]) => [t, v] as const))
  const unseen = idfOf(model.documents, 0)
  const weight = (t: string): number => idf.get(t) ?? unseen
  const byInstruction = new Map<string, Array<number>>()
  model.examples.forEach((e, k) => {
    const members = byInstruction.get(e.instruction)
    if (members === undefined) byInstruction.set(e.instruction, [k])
    else members.push(k)
  })
  const groups = [...byInstruction].map(([instruction, members]) => ({ instruction, members, ...vectorOf(instruction, weight) }))
  const prepared = { idf, unseen, groups, matches: new Map<string, ReadonlyArray<Match>>() }
  cache.set(model, prepared)
  return prepared
}

const cosine = (
  a: { vector: ReadonlyMap<string, number>; norm: number },
  b: { vector: ReadonlyMap<string, number>; norm: number }
): number => {
  if (a.norm === 0 || b.norm === 0) return 0
  let dot = 0
  for (const [t, v] of a.vector) dot += v * (b.vector.get(t) ?? 0)
  return dot / (a.norm * b.norm)
}

/** Instruction similarity to every group: the larger of TF-IDF cosine and template alignment. */
const matchesOf = (prepared: Prepared, instruction: string): ReadonlyArray<Match> => {
  const hit = prepared.matches.get(instruction)
  if (hit !== undefined) return hit
  const weight = (t: string): number => prepared.idf.get(t) ?? prepared.unseen
  const text = collapse(instruction)
  const query = vectorOf(instruction, weight)
  const out = prepared.groups.map((g): Match => {
    if (g.instruction === text) return { instruction: 1, substitutions: [] }
    const alignment = alignInstructions(g.instruction, instruction, weight)
    return { instruction: Math.max(cosine(g, query), alignment.similarity), substitutions: alignment.substitutions }
  })
  if (prepared.matches.size >= MATCHES_KEPT) prepared.matches.clear()
  prepared.matches.set(instruction, out)
  return out
}

const count = (xs: ReadonlyArray<string>, x: string): number => xs.reduce((n, y) => n + (y === x ? 1 : 0), 0)

const sharedCount = (xs: ReadonlyArray<string>, ys: ReadonlyArray<string>): number => {
  const left = new Map<string, number>()
  for (const x of xs) left.set(x, (left.get(x) ?? 0) + 1)
  let n = 0
  for (const y of ys) {
    const c = left.get(y) ?? 0
    if (c > 0) {
      n++
      left.set(y, c - 1)
    }
  }
  return n
}

/**
 * How far along the recorded episode the live one is, in [0, 1]: step distance (paths of
 * other lengths shift it by a step or two), the share of history in common, and — weighing
 * most — whether the last actions agree: on a form page that holds several steps it is what
 * tells the next field from the one after it.
 */
const progressOf = (step: number, recorded: ReadonlyArray<string>, live: ReadonlyArray<string>): number => {
  const near = Math.exp(-Math.abs(step - live.length) / 2)
  const longest = Math.max(recorded.length, live.length)
  const shared = longest === 0 ? 1 : sharedCount(recorded, live) / longest
  const last = recorded.at(-1) === live.at(-1) ? 1 : 0
  return 0.3 * near + 0.2 * shared + 0.5 * last
}

interface Scored {
  readonly k: number
  readonly pre: number
  readonly instruction: number
  readonly page: number
  readonly progress: number
  readonly subs: ReadonlyArray<Substitution>
  readonly history: ReadonlyArray<string>
}

/**
 * The candidates within `margin` of the best, best first (ties: the earlier example),
 * one per distinct action; empty when none reaches `threshold`.
 */
export const rankRetrieval = (
  model: RetrievalModel,
  input: PolicyInput,
  options: RetrievalOptions = {}
): ReadonlyArray<RetrievalCandidate> => {
  const threshold = options.threshold ?? DEFAULT_THRESHOLD
  const margin = options.margin ?? DEFAULT_MARGIN
  const reading = options.rules?.readsPage === true ? (options.page ?? null) : null
  const prepared = prepare(model)
  const page = pageKey(input.url)
  const live = input.history.map((h) => normalizeText(describeAction(h.action)))
  const scored: Array<Scored> = []
  const matches = matchesOf(prepared, input.instruction)
  prepared.groups.forEach((g, gi) => {
    const { instruction, substitutions: subs } = matches[gi]!
    if (instruction < threshold) return
    // one episode's examples share their pages and history prefixes: substitute each once
    const pages = new Map<string | null, number>()
    const described = new Map<string, string>()
    for (const k of g.members) {
      const e: RetrievalModelExample = model.examples[k]!
      let pageSim = pages.get(e.page)
      if (pageSim === undefined) pages.set(e.page, (pageSim = pageSimilarity(substitutePage(e.page, subs), page)))
      if (instruction * (BASE + (1 - BASE) * (PAGE * pageSim + 1 - PAGE)) < threshold) continue
      const history =
        subs.length === 0
          ? e.history
          : e.history.map((h) => {
              let d = described.get(h)
              if (d === undefined) described.set(h, (d = normalizeText(substitute(h, subs).text)))
              return d
            })
      const progress = progressOf(e.step, history, live)
      const pre = instruction * (BASE + (1 - BASE) * (PAGE * pageSim + (1 - PAGE) * progress))
      if (pre >= threshold) scored.push({ k, pre, instruction, page: pageSim, progress, subs, history })
    }
  })
  scored.sort((x, y) => y.pre - x.pre || x.k - y.k)
  const found = new Map<string, RetrievalCandidate>()
  let best = -Infinity
  for (const s of scored) {
    // grounding and repetition only lower a score: nothing after this can come within the margin
    if (s.pre < best - margin) break
    const e = model.examples[s.k]!
    // an answer or a status has no target to find: the page it was given on stands in for one
    const terminal = e.page === null || page === null ? 1 : s.page
    const made = concretise(e.action, s.subs, input, terminal, reading)
    if (made === null) continue
    const d = normalizeText(describeAction(made.action))
    const repeated = count(live, d) > count(s.history, d)
    const specific =
      s.subs.length > 0 && !made.substituted && CONTENT.has(made.action.kind) && e.agreement !== null
        ? SPECIFIC + (1 - SPECIFIC) * e.agreement
        : 1
    const score = s.pre * made.grounding * specific * (repeated ? REPEATED : 1)
    if (score < threshold) continue
    best = Math.max(best, score)
    const key = canonicalJson(made.action)
    const seen = found.get(key)
    if (seen === undefined || score > seen.score) {
      found.set(key, {
        action: made.action,
        score,
        example: s.k,
        instruction: s.instruction,
        page: s.page,
        progress: s.progress,
        grounding: made.grounding
      })
    }
  }
  return [...found.values()].filter((c) => c.score >= best - margin).sort((x, y) => y.score - x.score || x.example - y.example)
}

/**
 * The next action, or null when no recorded decision fits with confidence (the caller
 * falls back to its exploration policy). Draws once from `rng` when it returns an action,
 * never when it returns null.
 */
export const retrievalAction = (model: RetrievalModel, input: PolicyInput, rng: Draws, options: RetrievalOptions = {}): Action | null => {
  const temperature = options.temperature ?? DEFAULT_TEMPERATURE
  if (!(temperature > 0)) throw new RangeError(`temperature must be positive, got ${temperature}`)
  const cs = rankRetrieval(model, input, options)
  if (cs.length === 0) return null
  // Ranked best first, so the sampler's best is the first candidate's score, as it always was.
  return softmaxDraw(cs, (c) => c.score, temperature, rng).action
}
