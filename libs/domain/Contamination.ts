/**
 * The contamination guard of Trajectory-Guided Extrapolation (docs/method.md, "Extrapolation"): a
 * generated task must not be a held-out task in disguise, or the held-out evaluation
 * measures memory instead of generalisation. A candidate is contaminated when it is
 *
 *  1. the same template with the same normalised parameters as a held-out task (values
 *     compared lower-cased, white space collapsed, numbers as written: "2" and " 2 " agree), or
 *  2. near-identical in wording: the Jaccard index of the two instructions' token sets
 *     (lower-cased letters-and-digits runs) is at least 0.8 — a paraphrase that moves words
 *     around or drops one is caught; one about another product is not.
 *
 * Pure: the caller logs the rejection with what it returns.
 *
 * @example
 * contaminationOf({ instruction: "Open the Juniper Essential Smart Plug product page" }, heldOut)
 * // { heldOutId: "shop-open-product-3", rule: "wording", similarity: 0.888… }
 */
import { collapse } from "./LfTrajectory.ts"

export interface TaskLike {
  readonly instruction: string
  /** The suite template the task instantiates, when it has one (generated tasks may not). */
  readonly templateId?: string | null
  readonly parameters?: Readonly<Record<string, string | number>> | null
}

export interface HeldOutTask extends TaskLike {
  readonly id: string
}

export interface Contamination {
  readonly heldOutId: string
  readonly rule: "template-parameters" | "wording"
  /** The instructions' token Jaccard index (1 for rule 1 when the wording is the same too). */
  readonly similarity: number
}

/** At or above this token Jaccard index, two instructions ask for the same thing. */
export const WORDING_THRESHOLD = 0.8

const tokens = (s: string): ReadonlySet<string> => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])

/** |A ∩ B| / |A ∪ B| of the two instructions' token sets; 1 for two empty instructions. */
export const instructionJaccard = (a: string, b: string): number => {
  const x = tokens(a)
  const y = tokens(b)
  if (x.size === 0 && y.size === 0) return 1
  let shared = 0
  for (const t of x) if (y.has(t)) shared++
  return shared / (x.size + y.size - shared)
}

const normalizedParameters = (p: Readonly<Record<string, string | number>>): string =>
  JSON.stringify(
    Object.keys(p)
      .sort()
      .map((k) => [k, collapse(String(p[k])).toLowerCase()])
  )

const sameTemplateAndParameters = (a: TaskLike, b: TaskLike): boolean =>
  a.templateId != null &&
  a.templateId === b.templateId &&
  a.parameters != null &&
  b.parameters != null &&
  normalizedParameters(a.parameters) === normalizedParameters(b.parameters)

/** The first held-out task the candidate is too close to, and by which rule; null when it is clean. */
export const contaminationOf = (candidate: TaskLike, heldOut: ReadonlyArray<HeldOutTask>): Contamination | null => {
  for (const h of heldOut) {
    const similarity = instructionJaccard(candidate.instruction, h.instruction)
    if (sameTemplateAndParameters(candidate, h)) return { heldOutId: h.id, rule: "template-parameters", similarity }
    if (similarity >= WORDING_THRESHOLD) return { heldOutId: h.id, rule: "wording", similarity }
  }
  return null
}
