/**
 * The learned model: a linear listwise ranker over hashed features (Features.ts). Its
 * weights are stored sparse — the nonzero entries as `[index, weight]`, by index — and its
 * canonical JSON is what the weights blob holds and what a PolicyTrained event digests, so
 * the same training gives the same bytes on every machine.
 *
 * @example
 * const json = learnedModelJson(model) // sha256(json) names the blob
 * learnedModelFromJson(json)           // the same model, checked
 */
import { LEARNER } from "@core/domain"
import type { LearnerVersion } from "@core/domain"
import { canonicalJson } from "@core/events"
import { stateFeatures } from "./Features.ts"
import { DIM, scoresOf } from "./Hashing.ts"
import { indexOfChoice } from "./Candidates.ts"
import type { LearnerExample } from "./Records.ts"

/** The name a learner version trains under: what PolicyTrained's `trainer` and a model's JSON say ("learner-v2"). */
export const trainerName = (learner: LearnerVersion): string => `learner-v${learner}`

/** The current learner's name: what new learned runs and `core train` train as. */
export const TRAINER_VERSION = trainerName(LEARNER.current)

/** Every learner version's name: a model's JSON must say it is one of them. */
export const TRAINER_NAMES: ReadonlySet<string> = new Set(LEARNER.versions.map(trainerName))

export interface LearnedModel {
  /** The trainer that made it ({@link trainerName}). */
  readonly version: string
  readonly dim: number
  /** The seed its SGD shuffled with. */
  readonly seed: string
  readonly epochs: number
  /** Training states it learned from (records whose action the learner can propose). */
  readonly examples: number
  /** Present only when not the default listwise loss. */
  readonly loss?: "pairwise"
  /** Present only when not the default weighting by task. */
  readonly weighting?: "state"
  /** The text memory (TextChoice.ts): texts two tasks or more typed into a field, by field; absent when empty. */
  readonly texts?: ReadonlyArray<readonly [string, string]>
  /** Nonzero weights as [feature index, weight], by index. */
  readonly weights: ReadonlyArray<readonly [number, number]>
}

const dense = new WeakMap<LearnedModel, Float64Array>()

/** The weights as a vector, built once per model. */
export const weightsOf = (model: LearnedModel): Float64Array => {
  const known = dense.get(model)
  if (known !== undefined) return known
  const w = new Float64Array(model.dim)
  for (const [i, v] of model.weights) w[i] = v
  dense.set(model, w)
  return w
}

export const learnedModelJson = (model: LearnedModel): string => canonicalJson(model)

/** A model read back, checked for its version and shape; throws a one-line TypeError otherwise. */
export const learnedModelFromJson = (json: string): LearnedModel => {
  const v = JSON.parse(json) as Partial<LearnedModel> | null
  if (v === null || typeof v !== "object" || typeof v.version !== "string" || !TRAINER_NAMES.has(v.version))
    throw new TypeError(`not a model of the learner (${[...TRAINER_NAMES].join(", ")})`)
  const name = v.version
  if (v.dim !== DIM || typeof v.seed !== "string" || typeof v.epochs !== "number" || typeof v.examples !== "number")
    throw new TypeError(`${name} model without its dim, seed, epochs or examples`)
  if (!Array.isArray(v.weights)) throw new TypeError(`${name} model without weights`)
  if (
    v.texts !== undefined &&
    !(Array.isArray(v.texts) && v.texts.every((t) => Array.isArray(t) && t.length === 2 && t.every((x) => typeof x === "string")))
  )
    throw new TypeError(`${name} model with a malformed text memory`)
  for (const w of v.weights) {
    if (!Array.isArray(w) || w.length !== 2 || !Number.isInteger(w[0]) || w[0] < 0 || w[0] >= DIM || !Number.isFinite(w[1]))
      throw new TypeError(`${name} model with a malformed weight`)
  }
  return v as LearnedModel
}

/** The share of examples whose chosen action the model ranks first (ties count against it); 0 for none. */
export const nextActionAccuracy = (model: LearnedModel, examples: ReadonlyArray<LearnerExample>): number => {
  const w = weightsOf(model)
  let right = 0
  for (const x of examples) {
    const f = stateFeatures(x.screen)
    const target = indexOfChoice(f.candidates, x.chosen)
    if (target < 0) continue
    const scores = scoresOf(w, f)
    const best = scores[target]!
    if (scores.every((s, i) => i === target || s < best)) right++
  }
  return examples.length === 0 ? 0 : right / examples.length
}
