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

/** A dataset record as the training filter reads it: its task, and the body a trainer reads. */
export interface TrainingRecordLike {
  readonly taskId: string
  readonly body: unknown
}

/** Why a record may not train a policy judged on held-out tasks. */
export interface RecordContamination {
  readonly heldOutId: string
  /** `held-out-task`: the record is of a held-out task itself; otherwise the guard's rule. */
  readonly rule: "held-out-task" | Contamination["rule"]
  readonly similarity: number
}

/** The instruction a record's body was made for: `meta.instruction` (sft, dpo) or `instruction` (rollout); null when it names none. */
export const recordInstruction = (body: unknown): string | null => {
  if (typeof body !== "object" || body === null) return null
  const b = body as { readonly meta?: { readonly instruction?: unknown }; readonly instruction?: unknown }
  const i = b.meta?.instruction ?? b.instruction
  return typeof i === "string" ? i : null
}

/**
 * The records a policy judged on `heldOut` may learn from, in their order, and each one left
 * out with why: a record of a held-out task, or one of a generated task (`generated` knows
 * its instruction, template and parameters) the guard would refuse. Extrapolation already
 * keeps such tasks out of a run's pool, but only against the held-out tasks the run
 * registered: an evaluation may judge on others (another pack, a run given held-out tasks to
 * play), so where records are chosen for training the guard is asked again against the
 * evaluation's own. The run's given tasks are not put through the wording rule: they are the
 * train split itself, and one instance of a template reads like its held-out sibling
 * ("the cheapest product in the Clothing category" and "… the Garden category").
 */
export const trainingRecords = <R extends TrainingRecordLike>(
  records: ReadonlyArray<R>,
  heldOut: ReadonlyArray<HeldOutTask>,
  generated: (taskId: string) => TaskLike | undefined
): { readonly kept: ReadonlyArray<R>; readonly excluded: ReadonlyArray<{ readonly record: R; readonly why: RecordContamination }> } => {
  const ids = new Set(heldOut.map((h) => h.id))
  const verdicts = new Map<string, RecordContamination | null>()
  const why = (r: R): RecordContamination | null => {
    if (ids.has(r.taskId)) return { heldOutId: r.taskId, rule: "held-out-task", similarity: 1 }
    const task = generated(r.taskId)
    if (task === undefined) return null
    const instruction = recordInstruction(r.body) ?? task.instruction
    const key = `${r.taskId}\n${instruction}`
    if (!verdicts.has(key)) verdicts.set(key, contaminationOf({ ...task, instruction }, heldOut))
    return verdicts.get(key)!
  }
  const kept: Array<R> = []
  const excluded: Array<{ readonly record: R; readonly why: RecordContamination }> = []
  for (const r of records) {
    const w = why(r)
    if (w === null) kept.push(r)
    else excluded.push({ record: r, why: w })
  }
  return { kept, excluded }
}
