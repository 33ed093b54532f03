/**
 * The audit of one trajectory, from the log alone: the task, the demos its strategy graph
 * came from, each label function of that graph with how it was inferred and validated, each
 * LF's verdict with the step that satisfied it, the path that matched, the label (a pass
 * when expansion promoted a partial: `promoted`) and the dataset records it fed. The run's events and the workspace facts logged before it ended
 * are folded in log order with the run's own fold (`evolveRun`) up to the verdict, so the
 * graph shown is the one the verdict used (as its round started), not the final one.
 *
 * @example
 * const audit = auditTrajectoryOf(events, runId, "r1-s0-shop-cart-1") // or a one-line reason it cannot
 */
import { emptyGraph, sitePath } from "@core/domain"
import type { GraphNode, StrategyGraph } from "@core/domain"
import type {
  Action,
  CoreEvent,
  DataOf,
  LabelFunctionInferred,
  SourceRef,
  Target,
  TrajectoryRecorded,
  TrajectoryVerified
} from "@core/events"
import { evolveRun, initialRunState } from "./RunState.ts"
import type { RunState } from "./RunState.ts"
type Of<T extends CoreEvent["type"]> = Extract<CoreEvent, { type: T }>
type Recorded = DataOf<typeof TrajectoryRecorded>
type Verified = DataOf<typeof TrajectoryVerified>
type Inferred = DataOf<typeof LabelFunctionInferred>

const sameSource = (a: SourceRef, b: SourceRef): boolean => a.kind === b.kind && a.id === b.id

// ---------------------------------------------------------------------------------------
// Actions and steps, for people and programs

const quote = (s: string): string => JSON.stringify(s)

const targetText = (t: Target | null): string => {
  if (t === null) return "(no target)"
  const label = t.name !== null && t.name.trim() !== "" ? t.name : t.text
  return [t.role ?? "element", label === null ? null : quote(label)].filter((x) => x !== null).join(" ")
}

export const actionText = (a: Action): string => {
  switch (a.kind) {
    case "click":
    case "long_press":
      return `${a.kind} ${targetText(a.target)}`
    case "type":
      return `type ${a.secretEnv === undefined ? quote(a.text) : `$${a.secretEnv}`} into ${targetText(a.target)}${a.submit === true ? " and press Enter" : ""}`
    case "select":
      return `select ${quote(a.value)} in ${targetText(a.target)}`
    case "scroll":
      return `scroll ${a.direction}${a.target === null ? "" : ` in ${targetText(a.target)}`}`
    case "key":
      return `key ${a.key}`
    case "navigate":
      return `navigate to ${sitePath(a.url, true)}`
    case "open_app":
      return `open app ${a.app}`
    case "answer":
      return `answer ${quote(a.text)}`
    case "status":
      return `status ${a.status}`
    case "wait":
      return `wait ${a.ms} ms`
    case "back":
    case "home":
      return a.kind
  }
}

export interface StepEvidence {
  readonly index: number
  readonly action: Action
  readonly summary: string
  /** The observation after the step: the page it led to. */
  readonly url: string | null
  readonly error: string | null
}

const stepOf = (t: Recorded, index: number): StepEvidence | null => {
  const s = index >= 0 ? t.steps[index] : undefined
  if (s === undefined) return null
  return { index, action: s.action, summary: actionText(s.action), url: s.observation.url, error: s.observation.error }
}

// ---------------------------------------------------------------------------------------
// The audit, a pure function of the log

export interface TrajectoryAudit {
  readonly task: string
  readonly instruction: string | null
  readonly trajectory: {
    readonly id: string
    readonly run_id: string
    readonly round: number
    readonly sample: number
    readonly policy: string
    readonly outcome: Recorded["outcome"]
    readonly attempts: number
    readonly infra_error: string | null
    readonly steps: ReadonlyArray<StepEvidence>
  }
  /** The graph the verdict used: the task's graph as the trajectory's round started. */
  readonly graph: {
    readonly round: number
    readonly nodes: number
    readonly paths: ReadonlyArray<{
      readonly path_id: string
      readonly node_ids: ReadonlyArray<string>
      readonly source: SourceRef
      /** "goal-state": the outcome on its pages, not a way (data rules 9); "way" for any other path. */
      readonly evidence: "way" | "goal-state"
    }>
  }
  readonly demos: ReadonlyArray<{
    readonly demo_id: string
    readonly task: string | null
    readonly file: string | null
    readonly steps: number | null
  }>
  /** Trajectories of the run whose expansion added nodes or paths to that graph. */
  readonly expanded_from: ReadonlyArray<string>
  readonly key_steps: ReadonlyArray<{
    readonly source: SourceRef
    readonly step_index: number
    readonly description: string
    readonly reason: string | null
    readonly lf_id: string | null
    readonly rejected: string | null
  }>
  readonly label_functions: ReadonlyArray<{
    readonly lf_id: string
    readonly node_id: string
    readonly description: string
    readonly how: GraphNode["how"]
    readonly source: SourceRef
    readonly key_step_index: number | null
    readonly code: string | null
    readonly inference: Inferred["inference"] | null
    readonly validation: Inferred["validation"] | null
    readonly verdict: { readonly satisfied_at: number; readonly error: string | null; readonly step: StepEvidence | null } | null
  }>
  readonly path: {
    readonly matched: boolean
    readonly path_id: string | null
    readonly node_ids: ReadonlyArray<string> | null
    /** Which kind of evidence the matched path is: a way, or the goal's state on its pages; null when none matched. */
    readonly evidence: "way" | "goal-state" | null
    /** Along the matched path: where each node's LF held, recomputed from the from-step-0 evidence (null when it cannot tell). */
    readonly steps: ReadonlyArray<{
      readonly node_id: string
      readonly lf_id: string
      readonly description: string
      readonly step: number | null
      readonly evidence: StepEvidence | null
    }>
    /** Every path of the graph: how many of its nodes (from the start) held in order. */
    readonly candidates: ReadonlyArray<{
      readonly path_id: string
      readonly node_ids: ReadonlyArray<string>
      readonly held_in_order: number
    }>
  }
  /**
   * Data rules 6: the trajectory was partial on its round's graph, solved the task by
   * expansion's rule, and a path the round added accepts it; the path and where its LFs held.
   */
  readonly promoted: {
    readonly node_ids: ReadonlyArray<string>
    readonly matched: ReadonlyArray<{ readonly node_id: string; readonly lf_id: string; readonly step: number }>
  } | null
  readonly label: Verified["verdict"] | null
  /** The records it is in (a dpo record names it as chosen or rejected), and the tasks extrapolated from it. */
  readonly dataset_records: ReadonlyArray<{
    readonly record_id: string
    readonly format: string
    readonly round: number
    readonly task_id: string
    readonly as: string | null
  }>
  readonly extrapolated: ReadonlyArray<{
    readonly task_id: string
    readonly instruction: string
    readonly generator: string
    readonly pseudo_demo_steps: number
  }>
}

/** `nodeIds` walked with from-0 evidence: each node's step if it comes after the previous one's. */
const walkEvidence = (
  g: StrategyGraph,
  nodeIds: ReadonlyArray<string>,
  at: ReadonlyMap<string, number>
): Array<{ node: GraphNode | undefined; nodeId: string; step: number | null }> => {
  let prev = -1
  return nodeIds.map((nodeId) => {
    const node = g.nodes.find((n) => n.nodeId === nodeId)
    const a = node === undefined ? -1 : (at.get(node.lfId) ?? -1)
    const step = a > prev ? a : null
    if (step !== null) prev = step
    return { node, nodeId, step }
  })
}

const heldInOrder = (walked: ReadonlyArray<{ step: number | null }>): number => {
  const k = walked.findIndex((w) => w.step === null)
  return k === -1 ? walked.length : k
}

export const auditTrajectoryOf = (events: ReadonlyArray<CoreEvent>, runId: string, trajectoryId: string): TrajectoryAudit | string => {
  const stream = `run.${runId}.traj.${trajectoryId}`
  const recordedAt = events.findIndex((e) => e.type === "TrajectoryRecorded" && e.stream === stream)
  if (recordedAt === -1) return `trajectory ${trajectoryId} of run ${runId} was queued but never recorded (its rollout did not finish)`
  const recorded = (events[recordedAt] as Of<"TrajectoryRecorded">).data
  const verifiedAt = events.findIndex((e) => e.type === "TrajectoryVerified" && e.stream === stream)
  const verified = verifiedAt === -1 ? null : (events[verifiedAt] as Of<"TrajectoryVerified">).data
  // Data rules 6: a partial that a path its round added accepts is a pass (the verdict above stays as verification gave it).
  const promotion = events.find(
    (e): e is Of<"TrajectoryPromoted"> => e.type === "TrajectoryPromoted" && e.data.trajectoryId === trajectoryId
  )
  // What the run knew when the verdict was made: everything logged before it.
  const before = events.slice(0, verifiedAt === -1 ? events.length : verifiedAt)
  const state: RunState = before.reduce(evolveRun, initialRunState)
  const taskId = recorded.taskId
  const graph = state.roundGraphs.get(taskId) ?? emptyGraph(taskId)

  const sources: Array<SourceRef> = []
  for (const s of [...graph.nodes.map((n) => n.source), ...graph.paths.map((p) => p.source)]) {
    if (!sources.some((x) => sameSource(x, s))) sources.push(s)
  }
  const inferred = before.filter((e): e is Of<"LabelFunctionInferred"> => e.type === "LabelFunctionInferred" && e.data.taskId === taskId)
  const rejected = before.filter((e): e is Of<"LabelFunctionRejected"> => e.type === "LabelFunctionRejected" && e.data.taskId === taskId)

  const demos = sources
    .filter((s) => s.kind === "demo")
    .map((s) => {
      const d = state.demos.get(s.id)
      return { demo_id: s.id, task: d?.taskId ?? null, file: d?.source.ref ?? null, steps: d?.steps.length ?? null }
    })
  const keySteps = sources.flatMap((source) => {
    const lfAt = (i: number) => inferred.findLast((e) => sameSource(e.data.source, source) && e.data.keyStepIndex === i)?.data.lfId ?? null
    const rejectedAt = (i: number) =>
      rejected.findLast((e) => sameSource(e.data.source, source) && e.data.keyStepIndex === i)?.data.reason ?? null
    const identified = before.findLast(
      (e): e is Of<"KeyStepsIdentified"> => e.type === "KeyStepsIdentified" && sameSource(e.data.source, source)
    )
    const ks =
      identified !== undefined
        ? identified.data.keySteps.map((k) => ({ stepIndex: k.stepIndex, description: k.description, reason: k.reason as string | null }))
        : // Expansion logs its key steps only through the LFs it inferred or rejected for them.
          [...inferred, ...rejected]
            .filter((e) => sameSource(e.data.source, source))
            .map((e) => ({ stepIndex: e.data.keyStepIndex, description: e.data.description, reason: null }))
            .filter((k, i, all) => all.findIndex((x) => x.stepIndex === k.stepIndex) === i)
            .sort((a, b) => a.stepIndex - b.stepIndex)
    return ks.map((k) => ({
      source,
      step_index: k.stepIndex,
      description: k.description,
      reason: k.reason,
      lf_id: lfAt(k.stepIndex),
      rejected: rejectedAt(k.stepIndex)
    }))
  })

  const evidence = new Map((verified?.evidence ?? []).map((ev) => [ev.lfId, ev]))
  const labelFunctions = graph.nodes.map((node) => {
    const event =
      inferred.findLast((e) => e.data.lfId === node.lfId && sameSource(e.data.source, node.source)) ??
      before.findLast((e): e is Of<"LabelFunctionInferred"> => e.type === "LabelFunctionInferred" && e.data.lfId === node.lfId)
    const ev = evidence.get(node.lfId)
    return {
      lf_id: node.lfId,
      node_id: node.nodeId,
      description: node.description,
      how: node.how,
      source: event?.data.source ?? node.source,
      key_step_index: event?.data.keyStepIndex ?? null,
      code: event?.data.code ?? state.lfs.get(node.lfId)?.code ?? null,
      inference: event?.data.inference ?? null,
      validation: event?.data.validation ?? null,
      verdict: ev === undefined ? null : { satisfied_at: ev.satisfiedAt, error: ev.error, step: stepOf(recorded, ev.satisfiedAt) }
    }
  })

  const at = new Map([...evidence.values()].map((ev) => [ev.lfId, ev.error === null ? ev.satisfiedAt : -1]))
  const pathIds = verified?.verdict === "pass" && verified.path !== null ? verified.path : null
  const matchedPath =
    pathIds === null
      ? undefined
      : graph.paths.find((p) => p.nodeIds.length === pathIds.length && p.nodeIds.every((x, i) => x === pathIds[i]))
  const steps =
    pathIds === null
      ? []
      : walkEvidence(graph, pathIds, at).map((w) => ({
          node_id: w.nodeId,
          lf_id: w.node?.lfId ?? "",
          description: w.node?.description ?? "(not in the graph)",
          step: w.step,
          evidence: w.step === null ? null : stepOf(recorded, w.step)
        }))

  return {
    task: taskId,
    instruction: state.instructions.get(taskId) ?? null,
    trajectory: {
      id: trajectoryId,
      run_id: runId,
      round: recorded.round,
      sample: recorded.sample,
      policy: recorded.policy,
      outcome: recorded.outcome,
      attempts: recorded.attempts,
      infra_error: recorded.infraError,
      steps: recorded.steps.map((_, i) => stepOf(recorded, i)!)
    },
    graph: {
      round: state.round,
      nodes: graph.nodes.length,
      paths: graph.paths.map((p) => ({ path_id: p.pathId, node_ids: [...p.nodeIds], source: p.source, evidence: p.evidence ?? "way" }))
    },
    demos,
    expanded_from: sources.filter((s) => s.kind === "trajectory").map((s) => s.id),
    key_steps: keySteps,
    label_functions: labelFunctions,
    path: {
      matched: pathIds !== null,
      path_id: matchedPath?.pathId ?? null,
      node_ids: pathIds === null ? null : [...pathIds],
      evidence: pathIds === null ? null : (matchedPath?.evidence ?? "way"),
      steps,
      candidates: graph.paths.map((p) => ({
        path_id: p.pathId,
        node_ids: [...p.nodeIds],
        held_in_order: heldInOrder(walkEvidence(graph, p.nodeIds, at))
      }))
    },
    promoted:
      promotion === undefined
        ? null
        : {
            node_ids: [...promotion.data.path],
            matched: promotion.data.matched.map((m) => ({ node_id: m.nodeId, lf_id: m.lfId, step: m.satisfiedAt }))
          },
    label: promotion !== undefined ? "pass" : (verified?.verdict ?? null),
    dataset_records: events.flatMap((e) =>
      e.type === "DatasetRecordEmitted" && e.data.trajectoryIds.includes(trajectoryId)
        ? [
            {
              record_id: e.data.recordId,
              format: e.data.format,
              round: e.data.round,
              task_id: e.data.taskId,
              as: e.data.format === "dpo" ? (e.data.trajectoryIds[0] === trajectoryId ? "chosen" : "rejected") : null
            }
          ]
        : []
    ),
    extrapolated: events.flatMap((e) =>
      e.type === "TaskExtrapolated" && e.data.lineage.parentTrajectoryIds.includes(trajectoryId)
        ? [
            {
              task_id: e.data.newTaskId,
              instruction: e.data.instruction,
              generator: e.data.generator,
              pseudo_demo_steps: e.data.pseudoDemoSteps
            }
          ]
        : []
    )
  }
}

// ---------------------------------------------------------------------------------------
// Human output
