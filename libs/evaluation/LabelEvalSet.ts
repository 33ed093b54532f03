/**
 * The evaluation trajectory set for label functions. EVALUATION CODE: every trajectory is
 * labelled by its task's ground-truth checker on the episode's final state. Label functions
 * are inferred and validated on the demos; they are measured on these trajectories, which
 * no demo showed: for every train instance, its primary family's run again with other
 * incidental moves (same-path), every other path family (other-path), the primary script
 * with a sibling instance's parameters (wrong-item) or one value changed (wrong-value), and
 * seeded random-policy rollouts (random). A script that breaks midway is kept: its partial
 * trajectory is what a failing policy leaves behind, and the checker still judges it.
 *
 * @example
 * const set = yield* buildLabelEvalSet({ suite: "shop", progress: console.log })
 * labelEvalSetSummary(set).byKind["wrong-item"] // { total, positive, negative }
 */
import { Effect } from "effect"
import type { LfTrajectory } from "@core/domain"
import { randomRollout, samePathVariant, scriptsOf, seededRng, SOLVED_SUITES, wrongValueVariant } from "@core/sites/solutions"
import type { Step } from "@core/sites/solutions"
import { loadSuites, SITE_PARAMETERS } from "@core/sites/suites"
import type { SuiteTask } from "@core/sites/suites"
import { evalTaskOf, openScriptPlayer } from "./ScriptPlayer.ts"
import type { EvalTask } from "./ScriptPlayer.ts"

/**
 * `other-method`: the task done by another mechanism (a different control or shortcut makes
 * the change), which LFs from one demo are not expected to recognise; only app packs' hand-
 * written alternatives have it, so the bundled set's kinds leave it out.
 */
export type EvalKind = "same-path" | "other-path" | "other-method" | "wrong-item" | "wrong-value" | "random"
export type BundledEvalKind = Exclude<EvalKind, "other-method">
export const EVAL_KINDS: ReadonlyArray<BundledEvalKind> = ["same-path", "other-path", "wrong-item", "wrong-value", "random"]

export type { EvalTask } from "./ScriptPlayer.ts"

export interface EvalTrajectory<K extends string = EvalKind> {
  /** `${taskId}/${kind}/${family or seed}`. */
  readonly id: string
  /** The task whose label functions judge it and whose checker labels it. */
  readonly taskId: string
  readonly kind: K
  readonly family: string | null
  readonly trajectory: LfTrajectory
  /** Ground truth: the task's checker on the episode's final state. */
  readonly checker: boolean
  /** What was varied, the checker's reason, and why a script stopped early. */
  readonly note: string
  /** The script broke before its end: `trajectory` holds the steps up to the break. */
  readonly partial: boolean
}

/** Tasks with their demos, and trajectories their checkers judged: what label functions are measured on. */
export interface JudgedSet<K extends string = string> {
  readonly tasks: ReadonlyArray<EvalTask>
  readonly trajectories: ReadonlyArray<EvalTrajectory<K>>
}

export type LabelEvalSet = JudgedSet<EvalKind>

export interface LabelEvalSetOptions {
  /** One suite; all solved suites by default. */
  readonly suite?: string
  /** Only these train instances (task ids). */
  readonly instances?: ReadonlyArray<string>
  /** Random-policy rollouts per task, default 1. */
  readonly randomPerTask?: number
  /** Same-path perturbations per task, default 1. */
  readonly perturbedPerTask?: number
  /** Only these kinds (the demo always runs). */
  readonly kinds?: ReadonlyArray<EvalKind>
  /** The seed of every draw; a fixed default so reruns are identical. */
  readonly seed?: string
  readonly progress?: (line: string) => void
}

/** One run to make: which script, as what. */
interface Plan {
  readonly kind: EvalKind
  readonly family: string | null
  readonly key: string
  readonly note: string
  /** Null when the script cannot even be built (the reason is in `note`). */
  readonly steps: ReadonlyArray<Step> | null
}

const differing = (a: SuiteTask["parameters"], b: SuiteTask["parameters"]): string =>
  Object.keys(b)
    .filter((k) => a[k] !== b[k])
    .map((k) => `${k}=${JSON.stringify(b[k])}`)
    .join(", ")

/** Every parameter names something this seed's site has (a product of its catalog, a post of its forum…). */
const validOn = (seed: number, site: string, parameters: SuiteTask["parameters"]): boolean =>
  Object.entries(parameters).every(([k, v]) => SITE_PARAMETERS[site]?.[k]?.(v, seed) === null)

/**
 * The sibling whose parameters a wrong-item run uses. Items are mostly seed-specific, so
 * one that also exists on this task's seed comes first (its run can reach the wrong item
 * rather than break looking for it); then train siblings before held-out ones.
 */
export const siblingOf = (task: SuiteTask, all: ReadonlyArray<SuiteTask>): SuiteTask | undefined => {
  const others = all.filter((t) => t.templateId === task.templateId && t.id !== task.id && differing(task.parameters, t.parameters) !== "")
  const rank = (t: SuiteTask) => (validOn(task.siteSeed, task.site, t.parameters) ? 0 : 2) + (t.split === "train" ? 0 : 1)
  return [...others].sort((a, b) => rank(a) - rank(b))[0]
}

/** Every run of one task, in a fixed order. */
const plansOf = (
  task: SuiteTask,
  all: ReadonlyArray<SuiteTask>,
  o: Required<Pick<LabelEvalSetOptions, "randomPerTask" | "perturbedPerTask" | "seed">>
): ReadonlyArray<Plan> => {
  const scripts = scriptsOf(task) ?? {}
  const primary = task.pathFamilies[0]!.id
  const main = scripts[primary]?.() ?? []
  const plans: Array<Plan> = []
  for (let i = 0; i < o.perturbedPerTask; i++) {
    const v = samePathVariant(main, seededRng(o.seed, task.id, "same-path", i))
    plans.push({ kind: "same-path", family: primary, key: `${primary}#${i}`, note: v.note, steps: v.steps })
  }
  for (const family of task.pathFamilies.slice(1)) {
    const script = scripts[family.id]
    plans.push({
      kind: "other-path",
      family: family.id,
      key: family.id,
      note: script === undefined ? "no script for this family" : "",
      steps: script?.() ?? null
    })
  }
  const sibling = siblingOf(task, all)
  const wrong = sibling === undefined ? undefined : scriptsOf(task, sibling.parameters)?.[primary]
  plans.push({
    kind: "wrong-item",
    family: primary,
    key: primary,
    note:
      sibling === undefined
        ? "no sibling instance with other parameters"
        : `parameters of ${sibling.id} (${sibling.split}): ${differing(task.parameters, sibling.parameters)}`,
    steps: wrong?.() ?? null
  })
  const value = wrongValueVariant(main, task.parameters, seededRng(o.seed, task.id, "wrong-value"))
  plans.push({ kind: "wrong-value", family: primary, key: primary, note: value?.note ?? "nothing to change", steps: value?.steps ?? null })
  for (let i = 0; i < o.randomPerTask; i++) {
    plans.push({
      kind: "random",
      family: null,
      key: `seed-${i}`,
      note: `random policy, draws ${o.seed}/${task.id}/random/${i}`,
      steps: randomRollout(seededRng(o.seed, task.id, "random", i))
    })
  }
  return plans
}

/**
 * The train instances of the solved suites (of `suite`, when given) that `instances` names,
 * all of them by default, beside every task of those suites (siblings are drawn from them);
 * a suite without scripts or an instance that is not a train one fails in one line.
 */
export const trainInstances = (options: { readonly suite?: string; readonly instances?: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const suites = (yield* loadSuites()).filter(
      (s) => SOLVED_SUITES.includes(s.suite) && (options.suite === undefined || s.suite === options.suite)
    )
    if (suites.length === 0)
      return yield* Effect.fail(new Error(`no scripted solutions for suite '${options.suite}' (have: ${SOLVED_SUITES.join(", ")})`))
    const all = suites.flatMap((s) => s.tasks)
    const wanted = options.instances === undefined ? undefined : new Set(options.instances)
    const tasks = all.filter((t) => t.split === "train" && (wanted === undefined || wanted.has(t.id)))
    const missing = [...(wanted ?? [])].filter((id) => !tasks.some((t) => t.id === id))
    if (missing.length > 0)
      return yield* Effect.fail(new Error(`not train instances of ${suites.map((s) => s.suite).join(", ")}: ${missing.join(", ")}`))
    return { all, tasks }
  })

/** Builds the evaluation set; see the module comment. Never fails on a failing script: that is a trajectory too. */
export const buildLabelEvalSet = (options: LabelEvalSetOptions = {}) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    const o = {
      randomPerTask: options.randomPerTask ?? 1,
      perturbedPerTask: options.perturbedPerTask ?? 1,
      seed: options.seed ?? "core-label-eval-v1"
    }
    const kinds = new Set(options.kinds ?? EVAL_KINDS)
    const { all, tasks } = yield* trainInstances(options)

    const { judge, lfOf } = yield* openScriptPlayer()

    const evalTasks: Array<EvalTask> = []
    const trajectories: Array<EvalTrajectory> = []
    for (const task of tasks) {
      const primary = task.pathFamilies[0]!.id
      const started = performance.now()
      const demo = yield* judge(task, scriptsOf(task)?.[primary]?.() ?? [])
      const evalTask = yield* evalTaskOf(task, demo, lfOf)
      if (!evalTask.demoChecker) log(`demo of ${task.id} (${primary}) does not pass: ${evalTask.demoNote}`)
      evalTasks.push(evalTask)
      for (const plan of plansOf(task, all, o)) {
        if (!kinds.has(plan.kind)) continue
        const id = `${task.id}/${plan.kind}/${plan.key}`
        if (plan.steps === null) {
          log(`skip ${id}: ${plan.note}`)
          continue
        }
        const judged = yield* judge(task, plan.steps)
        const broke = judged.run.error === null ? [] : [`stopped early at ${judged.run.error.message}`]
        const note = [plan.note, ...broke, `checker: ${judged.reason}`].filter((x) => x !== "").join("; ")
        trajectories.push({
          id,
          taskId: task.id,
          kind: plan.kind,
          family: plan.family,
          trajectory: yield* lfOf(judged.run),
          checker: judged.checker,
          note,
          partial: judged.run.error !== null
        })
        log(`${judged.checker ? "pos" : "neg"} ${id} (${judged.run.steps.length} steps): ${note}`)
      }
      log(`${task.id}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    }
    return { tasks: evalTasks, trajectories } satisfies LabelEvalSet
  }).pipe(Effect.scoped)

export interface VerdictCounts {
  readonly total: number
  readonly positive: number
  readonly negative: number
}

export interface LabelEvalSetSummary extends VerdictCounts {
  readonly tasks: number
  readonly partial: number
  readonly byKind: Readonly<Record<BundledEvalKind, VerdictCounts>>
  readonly bySuite: Readonly<Record<string, VerdictCounts>>
}

const count = (ts: ReadonlyArray<EvalTrajectory>): VerdictCounts => {
  const positive = ts.filter((t) => t.checker).length
  return { total: ts.length, positive, negative: ts.length - positive }
}

/** Counts by kind, by suite and by checker verdict. */
export const labelEvalSetSummary = (set: LabelEvalSet): LabelEvalSetSummary => {
  const suiteOf = new Map(set.tasks.map((t) => [t.taskId, t.suite]))
  const suites = [...new Set(set.tasks.map((t) => t.suite))]
  return {
    ...count(set.trajectories),
    tasks: set.tasks.length,
    partial: set.trajectories.filter((t) => t.partial).length,
    byKind: Object.fromEntries(EVAL_KINDS.map((k) => [k, count(set.trajectories.filter((t) => t.kind === k))])) as Record<
      BundledEvalKind,
      VerdictCounts
    >,
    bySuite: Object.fromEntries(suites.map((s) => [s, count(set.trajectories.filter((t) => suiteOf.get(t.taskId) === s))]))
  }
}
