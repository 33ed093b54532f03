/**
 * MEASUREMENT: how a run's verdicts agree with an outside judgement of the same episodes
 * (a bundled site's checker, an app pack's `evaluate`). Pure, over the run's events and the
 * judgements kept beside the log; nothing here feeds a decision.
 *
 * A trajectory counts when it has a verdict other than infra-error and a judgement; its
 * verdict is the one the run's data counts (`finalVerdicts`: a promoted partial is a pass).
 * `novel_predicted_pass` counts the predicted passes whose actions match no demo of their
 * task: passes the label functions found on paths nobody showed them.
 *
 * @example
 * const scores = agreementOf(events, judgements)
 * scores.overall.precision // 0.97
 */
import type { Action, CoreEvent } from "@core/events"
import { finalVerdicts } from "./Verdicts.ts"

export interface AgreementScores extends ConfusionFigures {
  readonly judged: number
  readonly predicted_pass: number
  readonly novel_predicted_pass: number
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : Math.round((a / b) * 10000) / 10000)

export interface Confusion {
  readonly tp: number
  readonly fp: number
  readonly tn: number
  readonly fn: number
}

/**
 * The figures published judges are compared on: precision, recall, NPV (how often a refusal
 * is right) and Cohen's κ (agreement beyond what the two labels' base rates give by chance).
 * A figure whose denominator is empty is null; κ is null when chance alone agrees fully.
 *
 * @example
 * confusionFigures({ tp: 40, fp: 0, tn: 50, fn: 10 }).kappa // 0.8
 */
export interface ConfusionFigures {
  readonly precision: number | null
  readonly recall: number | null
  readonly npv: number | null
  readonly agreement: number | null
  readonly kappa: number | null
}

export const confusionFigures = ({ tp, fp, tn, fn }: Confusion): ConfusionFigures => {
  const n = tp + fp + tn + fn
  const observed = n === 0 ? 0 : (tp + tn) / n
  const chance = n === 0 ? 1 : ((tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)) / (n * n)
  return {
    precision: ratio(tp, tp + fp),
    recall: ratio(tp, tp + fn),
    npv: ratio(tn, tn + fn),
    agreement: ratio(tp + tn, n),
    kappa: chance >= 1 ? null : Math.round(((observed - chance) / (1 - chance)) * 10000) / 10000
  }
}

/** An action as a person would repeat it: no element ids, which differ every episode. */
const signature = (actions: ReadonlyArray<Action>): string =>
  JSON.stringify(
    actions.map((a) => {
      const { target, ...rest } = a as Action & { readonly target?: { readonly role: string | null; readonly name: string | null } | null }
      return target == null ? rest : { ...rest, target: [target.role, target.name] }
    })
  )

interface Tally {
  judged: number
  tp: number
  fp: number
  fn: number
  tn: number
  novel: number
}
const empty = (): Tally => ({ judged: 0, tp: 0, fp: 0, fn: 0, tn: 0, novel: 0 })
const scores = (t: Tally): AgreementScores => ({
  judged: t.judged,
  predicted_pass: t.tp + t.fp,
  novel_predicted_pass: t.novel,
  ...confusionFigures(t)
})

export const agreementOf = (
  events: ReadonlyArray<CoreEvent>,
  judgements: ReadonlyMap<string, { readonly success: boolean }>
): { readonly overall: AgreementScores; readonly per_task: Readonly<Record<string, AgreementScores>> } => {
  const demos = new Map<string, Set<string>>()
  const actions = new Map<string, ReadonlyArray<Action>>()
  for (const e of events) {
    if (e.type === "DemoIngested")
      demos.set(e.data.taskId, (demos.get(e.data.taskId) ?? new Set()).add(signature(e.data.steps.map((s) => s.action))))
    if (e.type === "TrajectoryRecorded")
      actions.set(
        e.data.trajectoryId,
        e.data.steps.map((s) => s.action)
      )
  }
  const overall = empty()
  const perTask = new Map<string, Tally>()
  for (const v of finalVerdicts(events)) {
    if (v.verdict === "infra-error") continue
    const truth = judgements.get(v.trajectoryId)
    if (truth === undefined) continue
    const task = perTask.get(v.taskId) ?? empty()
    perTask.set(v.taskId, task)
    const predicted = v.verdict === "pass"
    const novel = predicted && !(demos.get(v.taskId)?.has(signature(actions.get(v.trajectoryId) ?? [])) ?? false)
    for (const t of [overall, task]) {
      t.judged++
      if (predicted && truth.success) t.tp++
      else if (predicted) t.fp++
      else if (truth.success) t.fn++
      else t.tn++
      if (novel) t.novel++
    }
  }
  return {
    overall: scores(overall),
    per_task: Object.fromEntries([...perTask].sort(([a], [b]) => a.localeCompare(b)).map(([k, t]) => [k, scores(t)]))
  }
}
