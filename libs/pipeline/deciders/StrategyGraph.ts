/**
 * The strategy-graph decider (docs/method.md, "The strategy graph"): grows each task's graph.
 *
 * - When a demo's inference job completes, its accepted label functions become nodes (one
 *   per meaning: `nodeIdOf(semanticKeyOf(step))`) and the demo's key-step sequence a path.
 * - When a partially passing trajectory — or a passing explorer episode, which may have
 *   reached a node's LF another way — solved the task by the rule of `reachedTerminal`
 *   and did not change state again before its final claim (`undoneAfterGoal`, libs/domain
 *   Expansion.ts), it goes through Semantic Code Abstraction itself — its LFs
 *   validated on it and against the task's failed trajectories of the run — and its path
 *   joins the graph if it holds on the trajectory in order and is new. Under data rules
 *   that drop no-op paths, a new path whose extra key steps changed nothing
 *   (`noOpSteps`) is refused instead, and `PathRefused` says which steps; under data
 *   rules 7, so is one whose trajectory never entered a value the task's demo typed or
 *   picked from its instruction (`valuesLeftOut`), and `PathRefused` names them. At most
 *   `run.expandPerTask` paths per task and round: expansion is inference, and it costs.
 * - Under data rules 6, such a solved partial trajectory that the graph as it now stands
 *   accepts — by its own new path, or one another trajectory of its round added — counts
 *   as a pass: `TrajectoryPromoted`, with the path and its steps. The cap does not stop it:
 *   it infers nothing.
 *
 * Everything it emits goes to `run.<runId>.graph.<taskId>`; the new paths count from the
 * next round on (verdicts use the graph as the round started).
 *
 * @example
 * const decisions = yield* strategyGraph.decide(state, jobCompleted) // NodeExpanded…, PathAdded
 */
import { Effect } from "effect"
import {
  addNode,
  addPath,
  demoValues,
  emptyGraph,
  expansionPath,
  goalStateOf,
  goalStateReadingOf,
  hasPath,
  hasPathByMeaning,
  identifyKeySteps,
  LF_API_VERSION,
  nodeByMeaning,
  nodeIdOf,
  noOpSteps,
  pathIdOf,
  pathSignature,
  reachedTerminal,
  semanticKeyOf,
  undoneAfterGoal,
  valuesLeftOut
} from "@core/domain"
import type { GraphSource, LfTrajectory, SemanticKey, StrategyGraph, VerdictRules } from "@core/domain"
import {
  LabelFunctionInferred,
  LabelFunctionRejected,
  labelFunctionId,
  NodeExpanded,
  PathAdded,
  PathRefused,
  runStream,
  TrajectoryPromoted
} from "@core/events"
import type { CoreEvent, DataOf } from "@core/events"
import { defineDecider, emitter } from "@core/engine"
import { inferLabelFunctions } from "../LabelInference.ts"
import type { KnownFailure } from "../LabelInference.ts"
import { evolveRun, expandedKey, initialRunState, sourceKey } from "../RunState.ts"
import type { RunState } from "../RunState.ts"
import { isExplorerId } from "../Rollout.ts"
import { loadDemoTrajectory, loadRecordedTrajectory } from "../Trajectories.ts"
import { verdictRules, verifyTrajectory } from "../Verification.ts"

/** Failed trajectories of the task a new LF must stay false on (validation: an LF true on a failure would pass failures too), at most this many. */
const MAX_FAILURES = 5

/**
 * The node a key step becomes. Its meaning names one (`nodeIdOf`); under the data rules of
 * version 2 a node with the same label function and kind is that node already, since the
 * two accept the same steps (they differed only by a URL pattern the LF does not read).
 */
const nodeIdFor = (g: StrategyGraph, byMeaning: boolean, key: SemanticKey, lfId: string): string => {
  const own = nodeIdOf(key)
  if (!byMeaning || g.nodes.some((n) => n.nodeId === own)) return own
  return nodeByMeaning(g, lfId, key.actionKind)?.nodeId ?? own
}

/** Is the path there already: the same nodes, or under version 2 the same label-function sequence? */
const knownPath = (g: StrategyGraph, byMeaning: boolean, nodeIds: ReadonlyArray<string>): boolean =>
  byMeaning ? hasPathByMeaning(g, nodeIds) : hasPath(g, nodeIds)

const pathAdded = (g: StrategyGraph, byMeaning: boolean, taskId: string, nodeIds: ReadonlyArray<string>, source: GraphSource) => ({
  taskId,
  pathId: pathIdOf(taskId, nodeIds),
  nodeIds: [...nodeIds],
  source,
  ...(byMeaning ? { signature: pathSignature(g, nodeIds) } : {})
})

/** The nodes and path of a demo's accepted LFs, in key-step order. */
const fromDemo = (s: RunState, e: Extract<CoreEvent, { type: "JobCompleted" }>) =>
  Effect.gen(function* () {
    const demoId = e.data.jobId.slice("infer-".length)
    const demo = s.demos.get(demoId)
    const lfs = [...(s.inferredFrom.get(sourceKey({ kind: "demo", id: demoId })) ?? [])].sort((a, b) => a.keyStepIndex - b.keyStepIndex)
    if (demo === undefined || lfs.length === 0 || e.runId === null) return []
    const t = yield* loadDemoTrajectory(demo)
    const { made, emit } = emitter(e, runStream(e.runId, "graph", demo.taskId))
    let g = s.graphs.get(demo.taskId) ?? emptyGraph(demo.taskId)
    const source = { kind: "demo" as const, id: demoId }
    const nodeIds: Array<string> = []
    const byMeaning = s.rules.data.pathsByMeaning
    for (const lf of lfs) {
      const semanticKey = semanticKeyOf(t, lf.keyStepIndex)
      const nodeId = nodeIdFor(g, byMeaning, semanticKey, lf.lfId)
      nodeIds.push(nodeId)
      if (g.nodes.some((n) => n.nodeId === nodeId)) continue
      const node = { taskId: demo.taskId, nodeId, lfId: lf.lfId, description: lf.description, semanticKey, source, how: "demo" as const }
      g = addNode(g, node)
      emit(NodeExpanded, node)
    }
    if (!knownPath(g, byMeaning, nodeIds)) emit(PathAdded, pathAdded(g, byMeaning, demo.taskId, nodeIds, source))
    if (s.rules.data.addsGoalStatePaths) {
      // Beside the demo's way, what its outcome rests on: the same nodes without the steps that only found the way.
      const goal = goalStateOf(
        t,
        lfs.map((lf) => lf.keyStepIndex),
        nodeIds,
        goalStateReadingOf(s.rules.data)
      )
      if (goal !== null && !knownPath(g, byMeaning, goal.nodeIds))
        emit(PathAdded, {
          ...pathAdded(g, byMeaning, demo.taskId, goal.nodeIds, source),
          evidence: "goal-state" as const,
          ...(goal.anchors === undefined ? {} : { anchors: goal.anchors })
        })
    }
    return made
  })

/** The run's failed trajectories of a task, as known failures for validating new LFs. */
const knownFailures = (s: RunState, taskId: string) =>
  Effect.gen(function* () {
    const out: Array<KnownFailure> = []
    for (const [id, v] of s.verdicts) {
      if (out.length >= MAX_FAILURES) break
      const data = s.trajectories.get(id)
      if (v.taskId !== taskId || v.verdict !== "fail" || data === undefined || data.steps.length === 0) continue
      out.push({
        trajectoryId: id,
        key: `trajectory:${s.runId}:${id}`,
        trajectory: yield* loadRecordedTrajectory(data, s.config?.hashRouting)
      })
    }
    return out
  })

/** Does `nodeIds` hold on the trajectory it came from, in order, with these LFs? */
const holdsOn = (
  g: StrategyGraph,
  nodeIds: ReadonlyArray<string>,
  codes: ReadonlyMap<string, string>,
  t: LfTrajectory,
  key: string,
  rules: VerdictRules
) =>
  Effect.gen(function* () {
    const one = addPath({ ...g, paths: [] }, { pathId: "candidate", nodeIds, source: { kind: "trajectory", id: "candidate" } })
    const r = yield* verifyTrajectory({ graph: one, codes, trajectory: t, key, rules })
    return r.kind === "verdict" && r.verdict.verdict === "pass"
  })

/**
 * A solved trajectory's inferred LFs recorded (LabelFunctionInferred / Rejected, emitted at
 * once) and turned into nodes: the graph with its new nodes (not yet emitted: only those
 * of an added path are), each key step's node, and the accepted codes added to `codes`.
 */
const recordInferred = (
  labelFunctions: Effect.Success<ReturnType<typeof inferLabelFunctions>>["labelFunctions"],
  ctx: {
    readonly graph: StrategyGraph
    readonly byMeaning: boolean
    readonly taskId: string
    readonly source: GraphSource
    readonly t: LfTrajectory
    readonly codes: Map<string, string>
    readonly emit: ReturnType<typeof emitter>["emit"]
  }
) => {
  const { byMeaning, taskId, source, t, codes, emit } = ctx
  let g = ctx.graph
  const keyStepNodes: Array<{ stepIndex: number; nodeId: string }> = []
  const newNodes: Array<DataOf<typeof NodeExpanded>> = []
  for (const lf of labelFunctions) {
    const base = { taskId, source, keyStepIndex: lf.keyStep.stepIndex, description: lf.keyStep.description }
    if (lf.kind === "rejected") {
      emit(LabelFunctionRejected, {
        ...base,
        candidateCode: lf.candidateCode,
        reason: lf.reason,
        attempts: lf.attempts,
        modelCallIds: [...lf.modelCallIds]
      })
      continue
    }
    const lfId = labelFunctionId(lf.code)
    emit(LabelFunctionInferred, {
      ...base,
      lfId,
      code: lf.code,
      apiVersion: LF_API_VERSION,
      inference: { method: lf.method, evidence: lf.evidence, attempts: lf.attempts, modelCallIds: [...lf.modelCallIds] },
      validation: { ...lf.validation, onFailures: [...lf.validation.onFailures] }
    })
    codes.set(lfId, lf.code)
    const semanticKey = semanticKeyOf(t, lf.keyStep.stepIndex)
    const nodeId = nodeIdFor(g, byMeaning, semanticKey, lfId)
    keyStepNodes.push({ stepIndex: lf.keyStep.stepIndex, nodeId })
    if (g.nodes.some((n) => n.nodeId === nodeId)) continue
    const node = { taskId, nodeId, lfId, description: lf.keyStep.description, semanticKey, source, how: "partial" as const }
    g = addNode(g, node)
    newNodes.push(node)
  }
  return { graph: g, keyStepNodes, newNodes }
}

/** The values the task's demos entered from its instruction that the trajectory never entered (data rules 7). */
const leftOut = (s: RunState, taskId: string, t: LfTrajectory): ReadonlyArray<string> => {
  const instruction = s.instructions.get(taskId) ?? ""
  const values = [...s.demos.values()]
    .filter((d) => d.taskId === taskId)
    .flatMap((d) =>
      demoValues(
        instruction,
        d.steps.map((st) => st.action)
      )
    )
  return valuesLeftOut(
    [...new Set(values)],
    t.steps.map((st) => st.action)
  )
}

/** What expansion decided on a solved trajectory: its LFs recorded, and its path added when new, not a no-op and holding on it. */
const expand = (
  s: RunState,
  e: Extract<CoreEvent, { type: "TrajectoryVerified" }>,
  ctx: {
    readonly config: NonNullable<RunState["config"]>
    readonly runId: string
    readonly t: LfTrajectory
    readonly key: string
    readonly hit: NonNullable<ReturnType<typeof reachedTerminal>>
    readonly codes: Map<string, string>
    readonly emit: ReturnType<typeof emitter>["emit"]
  }
) =>
  Effect.gen(function* () {
    const { config, t, key, hit, codes, emit } = ctx
    const { trajectoryId, taskId } = e.data
    const inferred = yield* inferLabelFunctions({
      runId: ctx.runId,
      causationId: e.id,
      instruction: s.instructions.get(taskId) ?? "",
      demo: t,
      demoKey: key,
      failures: yield* knownFailures(s, taskId),
      model: null,
      synthesis: config.synthesis
    })
    const source = { kind: "trajectory" as const, id: trajectoryId }
    const byMeaning = s.rules.data.pathsByMeaning
    const {
      graph: g,
      keyStepNodes,
      newNodes
    } = recordInferred(inferred.labelFunctions, {
      graph: s.graphs.get(taskId) ?? emptyGraph(taskId),
      byMeaning,
      taskId,
      source,
      t,
      codes,
      emit
    })
    const nodeIds = expansionPath(keyStepNodes, hit)
    if (knownPath(g, byMeaning, nodeIds)) return g
    const left = s.rules.data.refusesPathsWithoutValues ? leftOut(s, taskId, t) : []
    if (left.length > 0) {
      emit(PathRefused, { taskId, nodeIds: [...nodeIds], source, reason: "leaves-out", steps: [], values: [...left] })
      return g
    }
    const noOp = s.rules.data.dropsNoOpPaths ? noOpSteps(g, t, keyStepNodes, hit, nodeIds) : null
    if (noOp !== null) {
      emit(PathRefused, { taskId, nodeIds: [...nodeIds], source, reason: "no-op", steps: [...noOp] })
      return g
    }
    // Nodes of an existing meaning keep their first LF: the path must hold with those, on the trajectory it came from.
    if (!(yield* holdsOn(g, nodeIds, codes, t, key, verdictRules(s.rules.data, g, t)))) return g
    for (const node of newNodes.filter((n) => nodeIds.includes(n.nodeId))) emit(NodeExpanded, node)
    const added = pathAdded(g, byMeaning, taskId, nodeIds, source)
    emit(PathAdded, added)
    return addPath(g, { pathId: added.pathId, nodeIds: added.nodeIds, source })
  })

/**
 * Data rules 6: a partial trajectory that solved the task (the caller checked expansion's
 * rule) passes when the graph as it stands now — the paths its round added, its own among
 * them — accepts it. It was partial on the graph as the round started, so a path that
 * holds now is one the round added.
 */
const promote = (
  e: Extract<CoreEvent, { type: "TrajectoryVerified" }>,
  ctx: { readonly rules: RunState["rules"]["data"]; readonly graph: StrategyGraph; readonly t: LfTrajectory; readonly key: string },
  codes: ReadonlyMap<string, string>,
  emit: ReturnType<typeof emitter>["emit"]
) =>
  Effect.gen(function* () {
    const { rules, graph, t, key } = ctx
    const r = yield* verifyTrajectory({ graph, codes, trajectory: t, key, rules: verdictRules(rules, graph, t) })
    if (r.kind !== "verdict" || r.verdict.verdict !== "pass" || r.verdict.path === null) return
    emit(TrajectoryPromoted, {
      trajectoryId: e.data.trajectoryId,
      taskId: e.data.taskId,
      path: [...r.verdict.path],
      matched: r.verdict.matched.map((m) => ({ ...m }))
    })
  })

const fromPartial = (s: RunState, e: Extract<CoreEvent, { type: "TrajectoryVerified" }>) =>
  Effect.gen(function* () {
    const { trajectoryId, taskId } = e.data
    const data = s.trajectories.get(trajectoryId)
    const config = s.config
    // A passing explorer episode may have reached a node's LF another way (Expansion b): its own key steps say.
    const candidate = e.data.verdict === "partial" || (e.data.verdict === "pass" && isExplorerId(trajectoryId))
    if (!candidate || data === undefined || config === null || e.runId === null) return []
    const promotes = e.data.verdict === "partial" && s.rules.data.promotesSolvedPartials
    // The round's budget of expansions spent: a solved partial may still pass by a path the round added.
    const capped = (s.expanded.get(expandedKey(data.round, taskId)) ?? 0) >= config.expandPerTask
    if (capped && !promotes) return []
    const graph = s.roundGraphs.get(taskId) ?? s.graphs.get(taskId)
    if (graph === undefined) return []
    const evidence = new Map(e.data.evidence.map((ev) => [ev.lfId, ev.error === null ? ev.satisfiedAt : -1]))
    const answerAlone = s.rules.data.answerAlone
    const hit = reachedTerminal(graph, evidence, data.steps.at(-1)?.action ?? null, { answerAlone })
    if (hit === null) return []

    const t = yield* loadRecordedTrajectory(data, config.hashRouting)
    if (undoneAfterGoal(identifyKeySteps(t), hit)) return []
    const key = `trajectory:${e.runId}:${trajectoryId}`
    const { made, emit } = emitter(e, runStream(e.runId, "graph", taskId))
    const codes = new Map([...s.lfs.values()].map((lf) => [lf.lfId, lf.code]))
    const after = capped ? (s.graphs.get(taskId) ?? graph) : yield* expand(s, e, { config, runId: e.runId, t, key, hit, codes, emit })
    // Nodes the expansion inferred without adding its path sit in `after` on no path: they decide nothing.
    if (promotes) yield* promote(e, { rules: s.rules.data, graph: after, t, key }, codes, emit)
    return made
  })

export const strategyGraph = defineDecider({
  name: "strategy-graph",
  // Version 2 decides by the run's data rules: runs recorded before them still decide as version 1 did.
  version: "2",
  handles: ["JobCompleted", "TrajectoryVerified"],
  emits: ["NodeExpanded", "PathAdded", "PathRefused", "TrajectoryPromoted", "LabelFunctionInferred", "LabelFunctionRejected"],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) => {
    if (s.config === null) return Effect.succeed([])
    if (e.type === "JobCompleted" && e.data.jobId.startsWith("infer-") && e.data.outcome === "done") return fromDemo(s, e)
    if (e.type === "TrajectoryVerified") return fromPartial(s, e)
    return Effect.succeed([])
  }
})
