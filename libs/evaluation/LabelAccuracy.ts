/**
 * Label-function accuracy (`bun core eval labels`). EVALUATION CODE: the ground truth is
 * the checkers' verdict on each trajectory of the evaluation set (LabelEvalSet.ts). For
 * each task, label functions are inferred from its demo exactly as `bun core infer` does
 * (`inferLabelFunctions`, validated in the sandbox); a trajectory is labelled successful
 * when every inferred LF of the task holds, in key-step order, at strictly increasing
 * steps. None of the evaluated trajectories took part in inference or validation.
 *
 * @example
 * const report = scoreLabels(labels) // { trajectories, tp, fp, tn, fn, precision, recall, recall_same_path, … }
 */
import { Effect } from "effect"
import { fromStep } from "@core/domain"
import { labelFunctionId } from "@core/events"
import type { LfTrajectory, StrategyGraph, VerdictRules } from "@core/domain"
import { confusionFigures, inferLabelFunctions, verifyTrajectory } from "@core/pipeline"
import { Sandbox } from "@core/sandbox"
import type { EvalKind, JudgedSet } from "./LabelEvalSet.ts"

export interface TaskLabels {
  readonly taskId: string
  readonly keySteps: number
  /** The accepted LFs, in key-step order. */
  readonly lfs: ReadonlyArray<{ readonly stepIndex: number; readonly lfId: string; readonly code: string; readonly evidence: string }>
  readonly rejected: ReadonlyArray<{ readonly stepIndex: number; readonly reason: string }>
}

export interface TrajectoryLabel {
  readonly id: string
  readonly taskId: string
  /** An evaluation kind (EvalKind), or a corruption's type. */
  readonly kind: string
  readonly checker: boolean
  /** CORE's label: every LF of the task held in order. */
  readonly pass: boolean
  /** Where each LF held (as far as the ordered check got). */
  readonly steps: ReadonlyArray<number>
  /** Which label function held at each of `steps`: on a false pass, what let it through. */
  readonly held: ReadonlyArray<{ readonly lfId: string; readonly step: number }>
  /** Sandbox errors met on the way (a hostile or broken LF), if any. */
  readonly errors: ReadonlyArray<string>
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : Math.round((a / b) * 10000) / 10000)

/** The confusion counts and rates; pure. */
export const scoreLabels = (labels: ReadonlyArray<TrajectoryLabel>) => {
  const count = (f: (l: TrajectoryLabel) => boolean) => labels.filter(f).length
  const tp = count((l) => l.pass && l.checker)
  const fp = count((l) => l.pass && !l.checker)
  const tn = count((l) => !l.pass && !l.checker)
  const fn = count((l) => !l.pass && l.checker)
  const recallOf = (kind: EvalKind) =>
    ratio(
      count((l) => l.kind === kind && l.pass && l.checker),
      count((l) => l.kind === kind && l.checker)
    )
  const kinds: ReadonlyArray<EvalKind> = ["same-path", "other-path", "other-method", "wrong-item", "wrong-value", "random"]
  return {
    trajectories: labels.length,
    positives: tp + fn,
    tp,
    fp,
    tn,
    fn,
    // precision, recall, NPV, agreement and Cohen's κ: the terms published judges are compared on.
    ...confusionFigures({ tp, fp, tn, fn }),
    recall_same_path: recallOf("same-path"),
    recall_other_paths: recallOf("other-path"),
    recall_other_methods: recallOf("other-method"),
    by_kind: Object.fromEntries(
      kinds.map((k) => [
        k,
        {
          total: count((l) => l.kind === k),
          positives: count((l) => l.kind === k && l.checker),
          labelled_pass: count((l) => l.kind === k && l.pass),
          fp: count((l) => l.kind === k && l.pass && !l.checker),
          fn: count((l) => l.kind === k && !l.pass && l.checker)
        }
      ])
    )
  }
}
export type LabelScore = ReturnType<typeof scoreLabels>

/** Label functions for every task of the set, from its demo alone (embedded backends). */
export const labelTasks = (set: JudgedSet, progress: (line: string) => void = () => {}) =>
  Effect.gen(function* () {
    const out: Array<TaskLabels> = []
    for (const [i, task] of set.tasks.entries()) {
      const r = yield* inferLabelFunctions({
        runId: "eval-labels",
        causationId: task.taskId,
        instruction: task.instruction,
        demo: task.demo,
        demoKey: `eval-demo:${task.taskId}`,
        failures: [],
        model: null
      })
      const lfs = r.labelFunctions.flatMap((l) =>
        l.kind === "inferred" ? [{ stepIndex: l.keyStep.stepIndex, lfId: labelFunctionId(l.code), code: l.code, evidence: l.evidence }] : []
      )
      const rejected = r.labelFunctions.flatMap((l) =>
        l.kind === "rejected" ? [{ stepIndex: l.keyStep.stepIndex, reason: l.reason }] : []
      )
      out.push({ taskId: task.taskId, keySteps: r.keySteps.length, lfs, rejected })
      progress(
        `labels: ${i + 1}/${set.tasks.length} ${task.taskId}: ${r.keySteps.length} key steps, ${lfs.length} label functions, ${rejected.length} rejected`
      )
    }
    return out
  })

/**
 * CORE's label for each trajectory. Each LF first runs on the whole trajectory; when the
 * first steps they hold at are not in order, the ordered check asks each LF again from
 * the step after the previous one's (a view of the trajectory), so a later occurrence counts.
 */
export const labelTrajectories = (set: JudgedSet, labels: ReadonlyArray<TaskLabels>, progress: (line: string) => void = () => {}) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox
    const byTask = new Map(labels.map((l) => [l.taskId, l]))
    const out: Array<TrajectoryLabel> = []
    for (const [n, e] of set.trajectories.entries()) {
      const lfs = byTask.get(e.taskId)?.lfs ?? []
      const errors: Array<string> = []
      const key = `eval:${e.id}`
      const whole = yield* sandbox.evaluateBatch(lfs.map((lf) => ({ code: lf.code, trajectory: { key, value: e.trajectory } })))
      const first = whole.map((v) => {
        if (v.kind !== "ok") errors.push(`${v.kind}: ${v.reason}`)
        return v.kind === "ok" ? v.satisfiedAt : -1
      })
      const views = new Map<number, LfTrajectory>()
      const at = (i: number, from: number) =>
        Effect.gen(function* () {
          if (first[i]! < 0 || first[i]! >= from) return first[i]!
          const view = views.get(from) ?? fromStep(e.trajectory, from)
          views.set(from, view)
          const [v] = yield* sandbox.evaluateBatch([{ code: lfs[i]!.code, trajectory: { key: `${key}@${from}`, value: view } }])
          if (v!.kind !== "ok") errors.push(`${v!.kind}: ${v!.reason}`)
          return v!.kind === "ok" ? v!.satisfiedAt : -1
        })
      // The rule of `holdsInOrder` (@core/domain), with effectful look-ups.
      const steps: Array<number> = []
      let from = 0
      let pass = lfs.length > 0
      for (let i = 0; i < lfs.length && pass; i++) {
        const found = yield* at(i, from)
        if (found < 0) pass = false
        else {
          steps.push(found)
          from = found + 1
        }
      }
      const held = steps.map((step, i) => ({ lfId: lfs[i]!.lfId, step }))
      out.push({ id: e.id, taskId: e.taskId, kind: e.kind, checker: e.checker, pass, steps, held, errors })
      if ((n + 1) % 25 === 0 || n + 1 === set.trajectories.length)
        progress(`labels: judged ${n + 1}/${set.trajectories.length} trajectories`)
    }
    return out
  })

/**
 * CORE's label for each trajectory by a run's strategy graphs (`eval labels --run`): a pass
 * when some path of its task's graph holds in order (the graph verdict) — after expansion a task
 * may have several. Trajectories of tasks the run has no graph for are left out.
 */
export const labelTrajectoriesWithGraphs = (
  set: JudgedSet,
  graphs: ReadonlyMap<string, StrategyGraph>,
  codes: ReadonlyMap<string, string>,
  progress: (line: string) => void = () => {},
  rules: (graph: StrategyGraph, trajectory: LfTrajectory) => VerdictRules = () => ({})
) =>
  Effect.gen(function* () {
    const out: Array<TrajectoryLabel> = []
    const chosen = set.trajectories.filter((e) => (graphs.get(e.taskId)?.paths.length ?? 0) > 0)
    for (const [n, e] of chosen.entries()) {
      const graph = graphs.get(e.taskId)!
      const r = yield* verifyTrajectory({ graph, codes, trajectory: e.trajectory, key: `eval:${e.id}`, rules: rules(graph, e.trajectory) })
      const errors =
        r.kind === "infra-error"
          ? [`infra-error: ${r.reason}`]
          : r.verdict.evidence.flatMap((ev) => (ev.error === null ? [] : [`error: ${ev.error}`]))
      const pass = r.kind === "verdict" && r.verdict.verdict === "pass"
      const matched = r.kind === "verdict" ? r.verdict.matched : []
      const steps = matched.map((m) => m.satisfiedAt)
      const held = matched.map((m) => ({ lfId: m.lfId, step: m.satisfiedAt }))
      out.push({ id: e.id, taskId: e.taskId, kind: e.kind, checker: e.checker, pass, steps, held, errors })
      if ((n + 1) % 25 === 0 || n + 1 === chosen.length)
        progress(`labels: judged ${n + 1}/${chosen.length} trajectories by the run's graphs`)
    }
    return out
  })
