/**
 * `eval labels` over the bundled sites: the evaluation set (LabelEvalSet.ts), cached since
 * building it drives Chromium for many minutes, labelled by each demo's LFs alone or by a
 * run's strategy graphs (LabelAccuracy.ts), and the report with its targets. EVALUATION CODE.
 *
 * @example
 * const set = yield* cachedLabelSet(path, buildLabelEvalSet({ ...options, progress }), false, progress)
 * const { tasks, labels } = yield* labelSet(set, null, progress)
 * const report = labelReport(tasks, labels, started)
 */
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { digest } from "@core/events"
import type { CoreEvent } from "@core/events"
import { DATA_RULES, dataRulesAt, goalStateOf, goalStateReadingOf, nodeIdOf, pathIdOf, semanticKeyOf } from "@core/domain"
import type { GraphNode, GraphPath, LfTrajectory, StrategyGraph, VerdictRules } from "@core/domain"
import { evolveRun, initialRunState, labelSandbox, verdictRules } from "@core/pipeline"
import { noModels } from "@core/engine"
import type { Suite } from "@core/sites/suites"
import { labelTasks, labelTrajectories, labelTrajectoriesWithGraphs, scoreLabels } from "./LabelAccuracy.ts"
import type { TaskLabels, TrajectoryLabel } from "./LabelAccuracy.ts"
import type { JudgedSet } from "./LabelEvalSet.ts"

/** Bump when the set's construction changes, so stale caches are not read. 2: selects are recorded by their option's value. */
const SET_VERSION = "2"

export const TARGETS = { precision: 0.98, recall_same_path: 0.9 } as const

export interface LabelSetOptions {
  readonly suite: string | undefined
  readonly instances: ReadonlyArray<string> | undefined
  readonly randomPerTask: number
  readonly perturbedPerTask: number
}

/** The cache key of the set these options build from these suites. */
export const labelSetKey = (options: LabelSetOptions, suites: ReadonlyArray<Suite>): string =>
  digest({
    SET_VERSION,
    options,
    // The instances with another start or route are held out and never part of the set: they leave its cache key alone.
    suites: suites.map((s) => ({ suite: s.suite, version: s.version, tasks: s.tasks.filter((t) => t.variant === undefined) }))
  }).slice(0, 16)

export const cachedLabelSet = <S extends JudgedSet, E>(
  path: string,
  build: Effect.Effect<S, E>,
  rebuild: boolean,
  progress: (line: string) => void
) =>
  Effect.gen(function* () {
    if (!rebuild && existsSync(path)) {
      progress(`evaluation set from ${path} (--rebuild builds it again)`)
      return JSON.parse(readFileSync(path, "utf8")) as S
    }
    const set = yield* build
    mkdirSync(join(path, ".."), { recursive: true })
    writeFileSync(`${path}.tmp`, JSON.stringify(set))
    renameSync(`${path}.tmp`, path)
    return set
  })

export interface RunLabelling {
  readonly graphs: ReadonlyMap<string, StrategyGraph>
  readonly codes: ReadonlyMap<string, string>
  readonly rules: (graph: StrategyGraph, t: LfTrajectory) => VerdictRules
}

/** A run's final strategy graphs and the code of every LF they name, folded from its log. */
export const runLabelling = (events: ReadonlyArray<CoreEvent>): RunLabelling => {
  const state = events.reduce(evolveRun, initialRunState)
  return {
    graphs: state.graphs,
    codes: new Map([...state.lfs.values()].map((lf) => [lf.lfId, lf.code])),
    // Judged as the run judged its own trajectories: its data rules say how a path is read.
    rules: (graph: StrategyGraph, t: LfTrajectory): VerdictRules => verdictRules(state.rules.data, graph, t)
  }
}

/**
 * Each task's graph as a run's round 0 holds it — the demo's LFs as one path, and its
 * goal-state path — judged under today's data rules (a goal undone or redone before the claim
 * is refused): CORE's verdict before any expansion, where `labelTrajectories` measures the LFs alone.
 */
export const demoLabelling = (set: JudgedSet, tasks: ReadonlyArray<TaskLabels>): RunLabelling => {
  const rules = dataRulesAt(DATA_RULES.current)
  const graphs = new Map<string, StrategyGraph>()
  for (const t of tasks) {
    const demo = set.tasks.find((x) => x.taskId === t.taskId)?.demo
    if (demo === undefined || t.lfs.length === 0) continue
    const nodes: Array<GraphNode> = t.lfs.map((lf) => {
      const semanticKey = semanticKeyOf(demo, lf.stepIndex)
      const source = { kind: "demo", id: t.taskId } as const
      return { nodeId: nodeIdOf(semanticKey), lfId: lf.lfId, description: lf.evidence, semanticKey, how: "demo", source }
    })
    const nodeIds = nodes.map((n) => n.nodeId)
    const source = { kind: "demo", id: t.taskId } as const
    const paths: Array<GraphPath> = [{ pathId: pathIdOf(t.taskId, nodeIds), nodeIds, source }]
    // As the strategy graph decider adds it: the goal-state path beside the demo's.
    const goal = goalStateOf(
      demo,
      t.lfs.map((lf) => lf.stepIndex),
      nodeIds,
      goalStateReadingOf(rules)
    )
    if (rules.addsGoalStatePaths && goal !== null)
      paths.push({ pathId: pathIdOf(t.taskId, goal.nodeIds), ...goal, source, evidence: "goal-state" })
    graphs.set(t.taskId, { taskId: t.taskId, nodes: nodes.filter((n, i) => nodes.findIndex((m) => m.nodeId === n.nodeId) === i), paths })
  }
  return {
    graphs,
    codes: new Map(tasks.flatMap((t) => t.lfs.map((lf) => [lf.lfId, lf.code] as const))),
    rules: (graph, t) => verdictRules(rules, graph, t)
  }
}

/**
 * Every trajectory of the set labelled: by a run's graphs when given, else by LFs inferred
 * from each task's demo — alone, or with `round0` as a run's first graph judges (demoLabelling).
 */
export const labelSet = (set: JudgedSet, run: RunLabelling | null, progress: (line: string) => void, round0 = false) =>
  Effect.scoped(
    Effect.gen(function* () {
      if (run !== null) {
        const labels = yield* labelTrajectoriesWithGraphs(set, run.graphs, run.codes, progress, run.rules)
        const tasks: ReadonlyArray<TaskLabels> = [...run.graphs.values()]
          .filter((g) => set.tasks.some((t) => t.taskId === g.taskId))
          .map((g) => ({
            taskId: g.taskId,
            keySteps: g.nodes.length,
            lfs: g.nodes.map((n) => ({ stepIndex: -1, lfId: n.lfId, code: run.codes.get(n.lfId) ?? "", evidence: n.how })),
            rejected: []
          }))
        return { tasks, labels }
      }
      const tasks = yield* labelTasks(set, progress)
      if (round0) {
        const demo = demoLabelling(set, tasks)
        return { tasks, labels: yield* labelTrajectoriesWithGraphs(set, demo.graphs, demo.codes, progress, demo.rules) }
      }
      const labels = yield* labelTrajectories(set, tasks, progress)
      return { tasks, labels }
    })
  ).pipe(Effect.provide(Layer.mergeAll(labelSandbox(), noModels)))

/** The scores, the targets and whether they are met, and the trajectories labelled wrongly. */
export const labelReport = (tasks: ReadonlyArray<TaskLabels>, labels: ReadonlyArray<TrajectoryLabel>, started: number) => {
  const score = scoreLabels(labels)
  return {
    ...score,
    tasks: tasks.length,
    label_functions: tasks.reduce((n, t) => n + t.lfs.length, 0),
    rejected_key_steps: tasks.reduce((n, t) => n + t.rejected.length, 0),
    targets: TARGETS,
    ok: (score.precision ?? 0) >= TARGETS.precision && (score.recall_same_path ?? 0) >= TARGETS.recall_same_path,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    mistakes: labels
      .filter((l) => l.pass !== l.checker)
      .map((l) => ({ id: l.id, kind: l.kind, checker: l.checker, pass: l.pass, steps: l.steps }))
  }
}
