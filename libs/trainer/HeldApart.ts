/**
 * The examples `train --run` holds apart to measure next-action accuracy on states the
 * measured model never saw. Whole trajectories are held apart — an sft record and the dpo
 * record of the same step hold the same state, so splitting record by record would test on
 * training data — ranked by the sha256 of their id (a dpo record counts under its chosen
 * trajectory), taken in that order while they fit within a tenth of the examples. The choice
 * depends on nothing but the records, so training twice holds apart the same ones.
 *
 * @example
 * const { train, held } = holdApart(records) // held: about 10% of the examples, whole trajectories
 */
import { sha256 } from "@core/events"

export const HELD_APART_SHARE = 0.1

export interface Countable {
  readonly trajectoryIds: ReadonlyArray<string>
  /** How many learner examples the record holds. */
  readonly examples: number
}

/**
 * The records split into those to train on and those held apart, each in its given order.
 * Nothing is held apart when the records come from fewer than two trajectories: a model
 * measured on everything would have learned from nothing.
 */
export const holdApart = <R extends Countable>(records: ReadonlyArray<R>): { train: Array<R>; held: Array<R> } => {
  const keyOf = (r: R) => r.trajectoryIds[0] ?? ""
  const perKey = new Map<string, number>()
  for (const r of records) perKey.set(keyOf(r), (perKey.get(keyOf(r)) ?? 0) + r.examples)
  const total = [...perKey.values()].reduce((a, b) => a + b, 0)
  // A trajectory without examples (a rollout record's) teaches and tests nothing: never held apart.
  const ranked = [...perKey.keys()]
    .filter((k) => perKey.get(k)! > 0)
    .map((k) => [sha256(k), k] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const share = Math.ceil(total * HELD_APART_SHARE)
  const heldKeys = new Set<string>()
  let heldExamples = 0
  // The last trajectory is never taken, so something is always left to train on.
  for (const [, key] of ranked.slice(0, -1)) {
    const size = perKey.get(key)!
    // Those that fit within the share; the first one even when it alone is larger.
    if (heldKeys.size > 0 && heldExamples + size > share) continue
    heldKeys.add(key)
    heldExamples += size
    if (heldExamples >= share) break
  }
  const train: Array<R> = []
  const held: Array<R> = []
  for (const r of records) (heldKeys.has(keyOf(r)) ? held : train).push(r)
  return { train, held }
}
