/**
 * A run's metrics (the figures `bun core run` and `demo` print), from its events and — EVALUATION — the ground-truth
 * checkers' verdicts on its episodes. Pure, so it is tested on plain values.
 *
 * - `tasks_with_alternatives`: tasks whose suite lists ≥ 2 path families;
 * - paths count by meaning: two paths with the same label functions in the same order (form
 *   fields on one page in any order) are one path; `by_nodes` counts node sequences instead,
 *   as figures were counted before;
 * - `tasks_with_multiple_paths`: tasks with ≥ 2 distinct *verified* paths — a path is
 *   verified when a trajectory along it passes its checker: the demo's path (the expert demo
 *   passed its checker when it was recorded), a path an expansion built from a trajectory
 *   the checker passes (the path holds on it in order: the decider checked), and every path
 *   a passing trajectory matched while its checker agreed;
 * - `verdict_vs_ground_truth`: CORE's `pass` against the checkers' success, over every
 *   trajectory of the run, and (`rollouts`) over the policy's rollouts alone — the explorer's
 *   episodes replay the demo once they rejoin it, so they pass more easily;
 * - `extrapolated`: tasks Trajectory-Guided Extrapolation added (and refused), and their
 *   rollouts — kept out of every figure above, since no checker knows those tasks;
 * - `datasets`: what the rounds' seals counted.
 *
 * @example
 * const m = runMetrics({ runId, events, groundTruth, tasks })
 */
import type { CoreEvent } from "@core/events"
import { pathSignature } from "@core/domain"
import { finalVerdicts, graphsOf, isExplorerId } from "@core/pipeline"

export interface RunMetricsInput {
  readonly events: ReadonlyArray<CoreEvent>
  readonly groundTruth: ReadonlyMap<string, { readonly success: boolean; readonly reason: string }>
  /** The run's own tasks; a bundled suite's list their path families (an app pack's do not). */
  readonly tasks: ReadonlyArray<{ readonly id: string; readonly pathFamilies?: ReadonlyArray<unknown> }>
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : Math.round((a / b) * 10000) / 10000)

const scores = (c: { readonly tp: number; readonly fp: number; readonly fn: number }) => ({
  precision: ratio(c.tp, c.tp + c.fp),
  recall: ratio(c.tp, c.tp + c.fn),
  predicted_pass: c.tp + c.fp
})

export const runMetrics = (input: RunMetricsInput & { readonly runId: string }) => {
  const own = new Set(input.tasks.map((t) => t.id))
  // As the datasets count them: a partial that expansion promoted (data rules 6) is a pass.
  const everyVerdict = finalVerdicts(input.events)
  // The figures below are about the run's own tasks; extrapolated tasks are counted apart (no checker knows them).
  const verdicts = everyVerdict.filter((v) => own.has(v.taskId))
  const extrapolated = everyVerdict.filter((v) => !own.has(v.taskId))
  const seals = input.events.flatMap((e) => (e.type === "DatasetSealed" ? [e.data] : []))
  const count = (v: string) => verdicts.filter((d) => d.verdict === v).length
  // Folded as the run's deciders fold them, so a figure never counts a node or path the graph does not hold.
  const graphs = graphsOf(input.events)
  const nodes = new Set([...graphs.values()].flatMap((g) => g.nodes.map((n) => n.nodeId)))
  // A path's meaning (its label functions in order): two paths with one signature are one path, counted once.
  const meaningOf = new Map<string, string>()
  for (const [taskId, g] of graphs) {
    for (const p of g.paths) meaningOf.set(`${taskId}|${p.pathId}`, pathSignature(g, p.nodeIds))
  }
  // A path is named by its node ids in TrajectoryVerified; PathAdded gives their path id.
  const pathIdByNodes = new Map<string, string>()
  for (const e of input.events) if (e.type === "PathAdded") pathIdByNodes.set(`${e.data.taskId}|${e.data.nodeIds.join(",")}`, e.data.pathId)
  const verified = new Map<string, Set<string>>()
  // A goal-state path is evidence of an outcome, not a way to it: paths count ways.
  const ways = (t: string) =>
    graphs
      .get(t)
      ?.paths.filter((p) => p.evidence === undefined)
      .map((p) => p.pathId) ?? []
  for (const e of input.events) {
    if (e.type !== "PathAdded" || e.data.evidence !== undefined) continue
    const along = e.data.source.kind === "demo" || input.groundTruth.get(e.data.source.id)?.success === true
    if (along) verified.set(e.data.taskId, (verified.get(e.data.taskId) ?? new Set()).add(e.data.pathId))
  }
  const all = { tp: 0, fp: 0, fn: 0 }
  const policy = { tp: 0, fp: 0, fn: 0 }
  for (const v of verdicts) {
    const truth = input.groundTruth.get(v.trajectoryId)
    if (truth === undefined || v.verdict === "infra-error") continue
    const pass = v.verdict === "pass"
    for (const c of isExplorerId(v.trajectoryId) ? [all] : [all, policy]) {
      if (pass && truth.success) c.tp++
      if (pass && !truth.success) c.fp++
      if (!pass && truth.success) c.fn++
    }
    if (pass && truth.success && v.path !== null) {
      const id = pathIdByNodes.get(`${v.taskId}|${v.path.join(",")}`)
      if (id !== undefined && ways(v.taskId).includes(id)) verified.set(v.taskId, (verified.get(v.taskId) ?? new Set()).add(id))
    }
  }
  const taskIds = input.tasks.map((t) => t.id)
  const mean = (counts: ReadonlyArray<number>) =>
    counts.length === 0 ? 0 : Math.round((counts.reduce((a, b) => a + b, 0) / counts.length) * 100) / 100
  const pathIds = ways
  const meanings = (t: string, ids: Iterable<string>) => new Set([...ids].map((id) => meaningOf.get(`${t}|${id}`) ?? id))
  return {
    run_id: input.runId,
    tasks: taskIds.length,
    trajectories: verdicts.length,
    pass: count("pass"),
    partial: count("partial"),
    fail: count("fail"),
    infra_errors: count("infra-error"),
    nodes: nodes.size,
    // Paths count by meaning: distinct label-function sequences (form fields on one page as a set).
    paths_per_task_mean: mean(taskIds.map((t) => meanings(t, pathIds(t)).size)),
    tasks_with_alternatives: input.tasks.filter((t) => (t.pathFamilies?.length ?? 0) >= 2).length,
    tasks_with_multiple_paths: taskIds.filter((t) => meanings(t, verified.get(t) ?? []).size >= 2).length,
    /** The same two figures counting every distinct node sequence as a path, as runs were counted before. */
    by_nodes: {
      paths_per_task_mean: mean(taskIds.map((t) => pathIds(t).length)),
      tasks_with_multiple_paths: taskIds.filter((t) => (verified.get(t)?.size ?? 0) >= 2).length
    },
    verdict_vs_ground_truth: { ...scores(all), rollouts: scores(policy) },
    // Needs the label evaluation set scored against the expanded graphs: `bun core eval labels --run <id>` measures it.
    recall_other_paths: null as number | null,
    extrapolated: {
      tasks: input.events.filter((e) => e.type === "TaskExtrapolated").length,
      refused: input.events.filter((e) => e.type === "TaskExtrapolationRejected").length,
      trajectories: extrapolated.length,
      pass: extrapolated.filter((v) => v.verdict === "pass").length
    },
    datasets: {
      rounds_sealed: seals.length,
      records: seals.reduce((n, s) => n + s.recordCount, 0),
      sft: seals.reduce((n, s) => n + s.counts.sft, 0),
      dpo: seals.reduce((n, s) => n + s.counts.dpo, 0),
      rollout: seals.reduce((n, s) => n + s.counts.rollout, 0)
    }
  }
}
export type RunMetrics = ReturnType<typeof runMetrics>

/**
 * The summary table, one line per figure, then where to look next; the time row only when
 * the run was timed (not when re-derived from the log). Lines, not printing: the caller prints.
 */
export const metricsLines = (m: RunMetrics, seconds: number | null): ReadonlyArray<string> => {
  const v = m.verdict_vs_ground_truth
  const rows: ReadonlyArray<readonly [string, string]> = [
    ["run", m.run_id],
    ["tasks", String(m.tasks)],
    ["trajectories", `${m.trajectories} (pass ${m.pass}, partial ${m.partial}, fail ${m.fail}, infra-error ${m.infra_errors})`],
    ["graph", `${m.nodes} nodes, ${m.paths_per_task_mean} paths per task`],
    [
      "multiple paths",
      `${m.tasks_with_multiple_paths} of ${m.tasks_with_alternatives} tasks with alternatives (${m.by_nodes.tasks_with_multiple_paths} counting node sequences)`
    ],
    ["vs ground truth", `precision ${v.precision ?? "n/a"}, recall ${v.recall ?? "n/a"}, ${v.predicted_pass} predicted passes`],
    [
      "  rollouts only",
      `precision ${v.rollouts.precision ?? "n/a"}, recall ${v.rollouts.recall ?? "n/a"}, ${v.rollouts.predicted_pass} predicted passes`
    ],
    [
      "extrapolated",
      `${m.extrapolated.tasks} new tasks (${m.extrapolated.refused} refused), ${m.extrapolated.trajectories} rollouts, ${m.extrapolated.pass} pass`
    ],
    [
      "datasets",
      `${m.datasets.records} records in ${m.datasets.rounds_sealed} sealed rounds (sft ${m.datasets.sft}, dpo ${m.datasets.dpo}, rollout ${m.datasets.rollout})`
    ],
    ...(seconds === null ? [] : [["time", `${seconds} s`] as const])
  ]
  return [
    ...rows.map(([k, val]) => `${k.padEnd(16)} ${val}`),
    `Audit one: bun core audit trajectory <id>   Graph: bun core graph show <task>   Replay: bun core replay ${m.run_id}`,
    `Data: bun core dataset export --run ${m.run_id} --format sft|dpo|rollout --out FILE`,
    `In a browser: bun core ui, then http://127.0.0.1:4680/runs/${m.run_id}`
  ]
}
