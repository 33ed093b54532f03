/**
 * Training: listwise softmax over a state's candidates — the recorded action is the one
 * right answer, every other candidate a negative — plus, for a dpo state, a pairwise term
 * that pushes the chosen action above the one a failed trajectory took there. AdaGrad on
 * the sparse features, shuffled each epoch by a PRNG seeded from the recorded seed, so the
 * same records in the same order give the same weights, bit for bit.
 *
 * A linear ranker over transferable features: it trains in one pass of multiply-adds per
 * candidate (bench train), its weights read as an audit of what it learned, and with a few
 * hundred states per app it has too little data for anything with more parameters.
 *
 * @example
 * const model = trainLearner(examples, { seed: "run-1/round-2" })
 */
import { prng } from "@core/engine"
import { sha256 } from "@core/events"
import { indexOfChoice } from "./Candidates.ts"
import { stateFeatures } from "./Features.ts"
import type { StateFeatures } from "./Features.ts"
import { DIM, scoreOf, scoresOf } from "./Hashing.ts"
import type { FeatureRows } from "./Hashing.ts"
import { textFeatures, textMemory, textOptions } from "./TextChoice.ts"
import type { TextMemory } from "./TextChoice.ts"
import { LEARNER, learnerRulesAt, normalizeText } from "@core/domain"
import type { LearnerRules, LearnerVersion } from "@core/domain"
import { trainerName } from "./Model.ts"
import type { LearnedModel } from "./Model.ts"
import type { LearnerExample } from "./Records.ts"

export interface TrainOptions {
  readonly seed: string
  /** Passes over the examples; default 6. */
  readonly epochs?: number
  /**
   * `listwise` (default): softmax over all of a state's candidates. `pairwise`: logistic
   * on the chosen against a few drawn negatives — the family bench train compares it with.
   */
  readonly loss?: "listwise" | "pairwise"
  /**
   * `task` (default): every task counts the same however many trajectories of it were
   * verified — each state weighs 1 / the task's trajectories — so five verified rollouts of
   * an easy task do not outvote its demo and every other task. `state`: every state weighs 1.
   */
  readonly weighting?: "task" | "state"
  /** The learner's version (`run.learner`): what the model is named, and the rules it trains by; default the current one. */
  readonly learner?: LearnerVersion
}

const LEARNING_RATE = 0.2
const L2 = 1e-4
/** How much the dpo pair's term counts beside the listwise one. */
const REJECTED_WEIGHT = 1
const EPSILON = 1e-8
export const DEFAULT_EPOCHS = 6

interface Prepared {
  readonly features: StateFeatures
  readonly weight: number
  /** A type whose text is one of the field's options: which one. */
  readonly text: { readonly features: FeatureRows; readonly target: number } | null
  readonly target: number
  readonly rejected: ReadonlyArray<number>
}

/** The recorded text among the field's options, or null when it is none of them. */
const textTarget = (x: LearnerExample, field: StateFeatures["candidates"][number]["element"], memory: TextMemory): Prepared["text"] => {
  if (x.text === null || field === null) return null
  const options = textOptions(x.screen, field, memory)
  const target = options.findIndex((o) => normalizeText(o.text) === normalizeText(x.text!))
  return target < 0 || options.length < 2 ? null : { features: textFeatures(x.screen, field, options), target }
}

/** Per task, how many trajectories (or demos) its states come from. */
const trajectoriesPerTask = (examples: ReadonlyArray<LearnerExample>): ReadonlyMap<string, number> => {
  const sources = new Map<string, Set<string>>()
  for (const x of examples) {
    const task = x.taskId ?? ""
    const set = sources.get(task) ?? new Set<string>()
    set.add(x.source ?? "")
    sources.set(task, set)
  }
  return new Map([...sources].map(([t, s]) => [t, s.size]))
}

/**
 * The examples without detours (learner rule `skipsDetours`): a verified rollout or explorer
 * trajectory of a task (its sft states, counted per source) longer than the task's shortest
 * demo or pseudo-demo is left out. It reached the goal after steps the expert path shows
 * were not needed — an explorer's random first click, a wander through the cart — and a
 * linear ranker imitates those steps as readily as the needed ones. Shorter or equal ones
 * stay (a shortcut the demo missed is worth learning), as do dpo states, and every state of
 * a task without an expert trajectory.
 */
export const withoutDetours = (examples: ReadonlyArray<LearnerExample>): ReadonlyArray<LearnerExample> => {
  const key = (x: LearnerExample) => `${x.taskId ?? ""}\u0000${x.source ?? ""}`
  const length = new Map<string, number>()
  const expert = new Set<string>()
  for (const x of examples) {
    if (x.rejected.length > 0) continue
    length.set(key(x), (length.get(key(x)) ?? 0) + 1)
    if (x.expert === true) expert.add(key(x))
  }
  const shortest = new Map<string, number>()
  for (const x of examples) {
    if (!expert.has(key(x))) continue
    const task = x.taskId ?? ""
    shortest.set(task, Math.min(shortest.get(task) ?? Number.POSITIVE_INFINITY, length.get(key(x))!))
  }
  return examples.filter((x) => {
    if (x.rejected.length > 0 || expert.has(key(x))) return true
    const limit = shortest.get(x.taskId ?? "")
    return limit === undefined || (length.get(key(x)) ?? 0) <= limit
  })
}

/**
 * Each example's feature rows, once, with its weight; states whose recorded action is not
 * among their candidates are left out.
 */
export const prepare = (
  all: ReadonlyArray<LearnerExample>,
  weighting: "task" | "state" = "task",
  memory: TextMemory = [],
  rules: LearnerRules = learnerRulesAt(LEARNER.current)
): ReadonlyArray<Prepared> => {
  const examples = rules.skipsDetours ? withoutDetours(all) : all
  const perTask = weighting === "task" ? trajectoriesPerTask(examples) : null
  return examples.flatMap((x) => {
    const f = stateFeatures(x.screen)
    const target = indexOfChoice(f.candidates, x.chosen)
    if (target < 0) return []
    const rejected = x.rejected.map((r) => indexOfChoice(f.candidates, r)).filter((i) => i >= 0 && i !== target)
    const weight = perTask === null ? 1 : 1 / (perTask.get(x.taskId ?? "") ?? 1)
    return [{ features: f, target, rejected, weight, text: textTarget(x, f.candidates[target]!.element, memory) }]
  })
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x))

class AdaGrad {
  readonly w = new Float64Array(DIM)
  private readonly g2 = new Float64Array(DIM)
  step(f: FeatureRows, c: number, coefficient: number): void {
    if (coefficient === 0) return
    for (let i = f.starts[c]!; i < f.starts[c + 1]!; i++) {
      const k = f.index[i]!
      const g = coefficient * f.value[i]! + L2 * this.w[k]!
      this.g2[k]! += g * g
      this.w[k]! -= (LEARNING_RATE * g) / (Math.sqrt(this.g2[k]!) + EPSILON)
    }
  }
}

/** Negatives drawn per state by the pairwise loss. */
const PAIRWISE_NEGATIVES = 5

const pairwiseUpdate = (opt: AdaGrad, x: Prepared, draw: () => number): void => {
  const f = x.features
  const n = f.candidates.length
  const drawn = Array.from({ length: PAIRWISE_NEGATIVES }, () => Math.floor(draw() * n)).filter((i) => i !== x.target)
  const chosen = scoreOf(opt.w, f, x.target)
  for (const r of [...drawn, ...x.rejected]) {
    const g = x.weight * sigmoid(scoreOf(opt.w, f, r) - chosen)
    opt.step(f, r, g)
    opt.step(f, x.target, -g)
  }
}

const update = (opt: AdaGrad, x: Prepared): void => {
  const f = x.features
  const scores = scoresOf(opt.w, f)
  let max = Number.NEGATIVE_INFINITY
  for (const s of scores) if (s > max) max = s
  let total = 0
  for (let c = 0; c < scores.length; c++) total += Math.exp(scores[c]! - max)
  const coefficients = new Float64Array(scores.length)
  for (let c = 0; c < scores.length; c++) coefficients[c] = x.weight * (Math.exp(scores[c]! - max) / total - (c === x.target ? 1 : 0))
  for (const r of x.rejected) {
    const g = x.weight * REJECTED_WEIGHT * sigmoid(scores[r]! - scores[x.target]!)
    coefficients[r]! += g
    coefficients[x.target]! -= g
  }
  for (let c = 0; c < scores.length; c++) opt.step(f, c, coefficients[c]!)
  if (x.text !== null) listwise(opt, x.text.features, x.text.target, x.weight)
}

/** One listwise step on a set of options whose right one is `target`. */
const listwise = (opt: AdaGrad, f: FeatureRows, target: number, weight: number): void => {
  const scores = scoresOf(opt.w, f)
  let max = Number.NEGATIVE_INFINITY
  for (const s of scores) if (s > max) max = s
  let total = 0
  for (let c = 0; c < scores.length; c++) total += Math.exp(scores[c]! - max)
  for (let c = 0; c < scores.length; c++) opt.step(f, c, weight * (Math.exp(scores[c]! - max) / total - (c === target ? 1 : 0)))
}

/** Fisher–Yates with the seeded PRNG. */
const shuffled = (n: number, draw: () => number): Array<number> => {
  const order = Array.from({ length: n }, (_, i) => i)
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(draw() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  return order
}

/** The texts of the examples' types, with the fields they went into: what the text memory is built from. */
const typedTexts = (examples: ReadonlyArray<LearnerExample>) =>
  examples.flatMap((x) => {
    if (x.text === null || x.chosen.elementId === null) return []
    const field = x.screen.elements.find((e) => e.id === x.chosen.elementId)
    return field === undefined ? [] : [{ screen: x.screen, field, text: x.text, taskId: x.taskId }]
  })

/** Trains on states already prepared (bench train times this apart from feature extraction). */
export const trainPrepared = (prepared: ReadonlyArray<Prepared>, options: TrainOptions, memory: TextMemory = []): LearnedModel => {
  const epochs = options.epochs ?? DEFAULT_EPOCHS
  if (!Number.isInteger(epochs) || epochs < 1) throw new RangeError(`epochs must be a whole number ≥ 1, got ${epochs}`)
  const rng = prng(sha256(`learner:${options.seed}`))
  const opt = new AdaGrad()
  for (let e = 0; e < epochs; e++) {
    for (const i of shuffled(prepared.length, rng.float)) {
      if (options.loss === "pairwise") pairwiseUpdate(opt, prepared[i]!, rng.float)
      else update(opt, prepared[i]!)
    }
  }
  const weights: Array<readonly [number, number]> = []
  opt.w.forEach((v, i) => {
    if (v !== 0) weights.push([i, v])
  })
  return {
    version: trainerName(options.learner ?? LEARNER.current),
    dim: DIM,
    seed: options.seed,
    epochs,
    examples: prepared.length,
    ...(options.loss === "pairwise" ? { loss: "pairwise" as const } : {}),
    ...(options.weighting === "state" ? { weighting: "state" as const } : {}),
    ...(memory.length > 0 ? { texts: memory } : {}),
    weights
  }
}

/** Pure and deterministic: the same examples in the same order and the same seed give the same model, byte for byte. */
export const trainLearner = (examples: ReadonlyArray<LearnerExample>, options: TrainOptions): LearnedModel => {
  const memory = textMemory(typedTexts(examples))
  const rules = learnerRulesAt(options.learner ?? LEARNER.current)
  return trainPrepared(prepare(examples, options.weighting, memory, rules), options, memory)
}
