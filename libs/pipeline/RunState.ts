/**
 * What a CORE run's deciders know — the loop of inferring label functions, rolling out,
 * verifying and expanding: its config, the tasks, every label function inferred so far,
 * each task's strategy graph — live, and as it stood when the current round started — and
 * the round's trajectories and verdicts. One pure fold, shared by the graph, rollout,
 * verification and round deciders: they share its `evolve` and `initial`, so the driver
 * and replay fold each event into one state for all of them, which they only read.
 *
 * @example
 * const state = events.reduce(evolveRun, initialRunState)
 * state.graphs.get("shop-cart-1")?.paths.length
 */
import { Schema } from "effect"
import { addNode, addPath, emptyGraph } from "@core/domain"
import type { StrategyGraph } from "@core/domain"
import { resolveRules, sftMeta } from "@core/domain"
import type { Rules } from "@core/domain"
import type { Action, CoreEvent, DataOf, DemoIngested, TrajectoryRecorded } from "@core/events"
import { runConfigOf } from "./RunConfig.ts"
import type { RunConfig } from "./RunConfig.ts"

/** A task's strategy graph whose events do not fold into a graph: the log holds something this build cannot read. */
export class GraphUnfoldable extends Schema.TaggedError<GraphUnfoldable>()("GraphUnfoldable", {
  taskId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the log's strategy graph of ${this.taskId} does not fold: ${this.reason}`
  }
}

export const RUN_COMMAND = "run"

export type TrajectoryData = DataOf<typeof TrajectoryRecorded>
export type DemoData = DataOf<typeof DemoIngested>

export interface LabelFunctionInfo {
  readonly lfId: string
  readonly code: string
  readonly taskId: string
  readonly source: { readonly kind: "demo" | "trajectory"; readonly id: string }
  readonly keyStepIndex: number
  readonly description: string
}

/** A task as the workspace registered it: what extrapolation and the contamination guard may read. */
export interface TaskInfo {
  readonly taskId: string
  readonly site: string
  readonly instruction: string
  readonly template: { readonly id: string; readonly parameters: Readonly<Record<string, unknown>> } | null
}

/** One decision of an sft record (its `meta`), with the round whose dataset holds it. */
export interface SftExample {
  readonly round: number
  readonly instruction: string
  readonly url: string | null
  readonly step: number
  readonly history: ReadonlyArray<string>
  readonly action: Action
}

/** One dataset record as the log emitted it, with the round whose dataset holds it. */
export interface LearningRecord {
  readonly round: number
  readonly recordId: string
  readonly format: string
  readonly body: unknown
}

/**
 * What a learned run (policy "learned") trains on: its seed and every dataset record in log
 * order. Kept as data, so the state's fold — shared with verification — never reaches the
 * learner; the policy-training decider trains from it.
 */
export interface Learning {
  readonly seed: string
  readonly records: ReadonlyArray<LearningRecord>
}

/** A task Trajectory-Guided Extrapolation added to the pool. */
export interface ExtrapolatedInfo {
  readonly taskId: string
  readonly parentTaskId: string
  readonly round: number
  readonly instruction: string
  readonly pseudoDemoTrajectoryId: string
  readonly pseudoDemoSteps: number
  /** The parent's steps kept, when not a prefix (data rules 2). */
  readonly pseudoDemoStepIndices: ReadonlyArray<number> | null
  readonly pseudoDemoAddsClosing: boolean
  readonly generator: "success-augmentation" | "failure-relabel"
}

export interface RunState {
  readonly runId: string | null
  readonly config: RunConfig | null
  /** The config's recorded versions resolved once into named rules (every axis's first version before RunStarted). */
  readonly rules: Rules
  readonly instructions: ReadonlyMap<string, string>
  readonly tasks: ReadonlyMap<string, TaskInfo>
  /** In log order. */
  readonly extrapolated: ReadonlyMap<string, ExtrapolatedInfo>
  /** Instructions the generators proposed and the pool refused, already logged. */
  readonly refused: ReadonlySet<string>
  /** Dataset records emitted so far (a record is emitted once per run). */
  readonly records: ReadonlySet<string>
  /** The sft records' decisions, in log order: what the embedded policy learns from. */
  readonly examples: ReadonlyArray<SftExample>
  /** A learned run's seed and dataset records; null for every other run (nothing is kept). */
  readonly learning: Learning | null
  /** Per round: its dataset's content digest. */
  readonly seals: ReadonlyMap<number, string>
  /**
   * The last PolicyTrained: the round it covers, the dataset digest and weights it names,
   * and whether it took a version a trainer outside the run published (whose model is its
   * weights blob, not one the run rebuilds from its records).
   */
  readonly trained: {
    readonly round: number
    readonly datasetDigest: string
    readonly weights: string | null
    readonly published: boolean
  } | null
  readonly demos: ReadonlyMap<string, DemoData>
  readonly lfs: ReadonlyMap<string, LabelFunctionInfo>
  /** Per source (`demo:<id>` / `trajectory:<id>`): the LFs inferred from it, by key step. */
  readonly inferredFrom: ReadonlyMap<string, ReadonlyArray<LabelFunctionInfo>>
  /** Per source: key steps that got no LF. */
  readonly rejectedFrom: ReadonlyMap<string, number>
  readonly graphs: ReadonlyMap<string, StrategyGraph>
  /** The graphs as the current round started: every verdict of the round uses these (scheduling cannot matter). */
  readonly roundGraphs: ReadonlyMap<string, StrategyGraph>
  readonly round: number
  readonly inferJobs: { readonly queued: number; readonly done: number }
  /** Per round: rollout and explorer episodes queued (each ends in one verdict). */
  readonly episodesQueued: ReadonlyMap<number, number>
  readonly trajectories: ReadonlyMap<string, TrajectoryData>
  readonly verdicts: ReadonlyMap<
    string,
    {
      readonly taskId: string
      readonly round: number
      readonly verdict: string
      /** The passing path's LFs and the steps they held at (data rules 2; empty otherwise). */
      readonly matched: ReadonlyArray<{ readonly nodeId: string; readonly lfId: string; readonly satisfiedAt: number }>
    }
  >
  /** Per trajectory: the step at which each LF of its verdict first held (-1: never, or an LF error). */
  readonly evidence: ReadonlyMap<string, ReadonlyArray<number>>
  /** Per round and task: partial trajectories already turned into paths. */
  readonly expanded: ReadonlyMap<string, number>
  /** The last round completed (0: the demos' round); -1 before. */
  readonly roundsCompleted: number
}

/** A run's rules, from the versions its config recorded. */
export const runRules = (config: RunConfig | null): Rules =>
  resolveRules({
    data: config?.dataRules,
    exploration: config?.exploration,
    synthesis: config?.synthesis,
    retrieval: config?.retrieval,
    lfGuide: config?.lfGuide,
    learner: config?.learner
  })

export const initialRunState: RunState = {
  runId: null,
  config: null,
  rules: runRules(null),
  instructions: new Map(),
  tasks: new Map(),
  extrapolated: new Map(),
  refused: new Set(),
  records: new Set(),
  examples: [],
  learning: null,
  seals: new Map(),
  trained: null,
  demos: new Map(),
  lfs: new Map(),
  inferredFrom: new Map(),
  rejectedFrom: new Map(),
  graphs: new Map(),
  roundGraphs: new Map(),
  round: 0,
  inferJobs: { queued: 0, done: 0 },
  episodesQueued: new Map(),
  trajectories: new Map(),
  verdicts: new Map(),
  evidence: new Map(),
  expanded: new Map(),
  roundsCompleted: -1
}

export const sourceKey = (s: { readonly kind: string; readonly id: string }): string => `${s.kind}:${s.id}`

const push = <K, V>(m: ReadonlyMap<K, ReadonlyArray<V>>, k: K, v: V): ReadonlyMap<K, ReadonlyArray<V>> =>
  new Map(m).set(k, [...(m.get(k) ?? []), v])

export const evolveRun = (s: RunState, e: CoreEvent): RunState => {
  switch (e.type) {
    case "TaskRegistered": {
      const info: TaskInfo = { taskId: e.data.taskId, site: e.data.site, instruction: e.data.instruction, template: e.data.template }
      return {
        ...s,
        instructions: new Map(s.instructions).set(e.data.taskId, e.data.instruction),
        tasks: new Map(s.tasks).set(e.data.taskId, info)
      }
    }
    case "TaskExtrapolated": {
      const from = s.trajectories.get(e.data.pseudoDemoTrajectoryId)
      const info: ExtrapolatedInfo = {
        taskId: e.data.newTaskId,
        parentTaskId: e.data.lineage.parentTaskId,
        round: from?.round ?? s.round,
        instruction: e.data.instruction,
        pseudoDemoTrajectoryId: e.data.pseudoDemoTrajectoryId,
        pseudoDemoSteps: e.data.pseudoDemoSteps,
        pseudoDemoStepIndices: e.data.pseudoDemoStepIndices ?? null,
        pseudoDemoAddsClosing: e.data.pseudoDemoAddsClosing === true,
        generator: e.data.generator
      }
      return {
        ...s,
        instructions: new Map(s.instructions).set(info.taskId, info.instruction),
        extrapolated: new Map(s.extrapolated).set(info.taskId, info)
      }
    }
    case "TaskExtrapolationRejected":
      return { ...s, refused: new Set(s.refused).add(e.data.instruction) }
    case "DatasetRecordEmitted": {
      const records = new Set(s.records).add(e.data.recordId)
      const meta = e.data.format === "sft" ? sftMeta(e.data.body) : null
      const examples = meta === null ? s.examples : [...s.examples, { round: e.data.round, ...meta }]
      const { round, recordId, format, body } = e.data
      const learning = s.learning === null ? null : { ...s.learning, records: [...s.learning.records, { round, recordId, format, body }] }
      return { ...s, records, examples, learning }
    }
    case "DatasetSealed":
      return { ...s, seals: new Map(s.seals).set(e.data.round, e.data.contentDigest) }
    case "PolicyTrained":
      // A trainer outside the run (bun core train) publishes on its own stream with no run id: it never stands for the run's round.
      if (e.runId === null || e.runId !== s.runId) return s
      return {
        ...s,
        trained: {
          round: e.data.round,
          datasetDigest: e.data.datasetDigest,
          weights: e.data.weights ?? null,
          published: e.data.published !== undefined
        }
      }
    case "DemoIngested":
      return { ...s, demos: new Map(s.demos).set(e.data.demoId, e.data) }
    case "RunStarted": {
      if (e.data.command !== RUN_COMMAND) return s
      const config = runConfigOf(e.data.config)
      const learning = config.policy.kind === "learned" ? { seed: e.data.seed, records: [] } : null
      return { ...s, runId: e.runId, config, rules: runRules(config), learning }
    }
    case "JobQueued":
      if (s.config === null) return s
      if (e.data.kind === "infer") return { ...s, inferJobs: { ...s.inferJobs, queued: s.inferJobs.queued + 1 } }
      if (e.data.kind === "rollout" || e.data.kind === "explore") {
        return { ...s, episodesQueued: new Map(s.episodesQueued).set(e.data.round, (s.episodesQueued.get(e.data.round) ?? 0) + 1) }
      }
      return s
    case "JobCompleted":
      return e.data.jobId.startsWith("infer-") && s.config !== null
        ? { ...s, inferJobs: { ...s.inferJobs, done: s.inferJobs.done + 1 } }
        : s
    case "LabelFunctionInferred": {
      const info: LabelFunctionInfo = {
        lfId: e.data.lfId,
        code: e.data.code,
        taskId: e.data.taskId,
        source: e.data.source,
        keyStepIndex: e.data.keyStepIndex,
        description: e.data.description
      }
      return { ...s, lfs: new Map(s.lfs).set(info.lfId, info), inferredFrom: push(s.inferredFrom, sourceKey(e.data.source), info) }
    }
    case "LabelFunctionRejected": {
      const k = sourceKey(e.data.source)
      return { ...s, rejectedFrom: new Map(s.rejectedFrom).set(k, (s.rejectedFrom.get(k) ?? 0) + 1) }
    }
    case "NodeExpanded": {
      const g = s.graphs.get(e.data.taskId) ?? emptyGraph(e.data.taskId)
      const node = {
        nodeId: e.data.nodeId,
        lfId: e.data.lfId,
        description: e.data.description,
        semanticKey: e.data.semanticKey,
        how: e.data.how,
        source: e.data.source
      }
      return { ...s, graphs: new Map(s.graphs).set(e.data.taskId, addNode(g, node)) }
    }
    case "PathAdded": {
      const g = s.graphs.get(e.data.taskId) ?? emptyGraph(e.data.taskId)
      const graphs = new Map(s.graphs).set(
        e.data.taskId,
        addPath(g, {
          pathId: e.data.pathId,
          nodeIds: e.data.nodeIds,
          source: e.data.source,
          ...(e.data.evidence === undefined ? {} : { evidence: e.data.evidence }),
          ...(e.data.anchors === undefined ? {} : { anchors: e.data.anchors })
        })
      )
      const from = e.data.source.kind === "trajectory" ? s.trajectories.get(e.data.source.id) : undefined
      if (from === undefined) return { ...s, graphs }
      const k = expandedKey(from.round, e.data.taskId)
      return { ...s, graphs, expanded: new Map(s.expanded).set(k, (s.expanded.get(k) ?? 0) + 1) }
    }
    case "RoundStarted":
      return { ...s, round: e.data.round, roundGraphs: s.graphs }
    case "RoundCompleted":
      return { ...s, roundsCompleted: Math.max(s.roundsCompleted, e.data.round) }
    case "TrajectoryRecorded":
      return { ...s, trajectories: new Map(s.trajectories).set(e.data.trajectoryId, e.data) }
    case "TrajectoryVerified": {
      const round = s.trajectories.get(e.data.trajectoryId)?.round ?? s.round
      return {
        ...s,
        verdicts: new Map(s.verdicts).set(e.data.trajectoryId, {
          taskId: e.data.taskId,
          round,
          verdict: e.data.verdict,
          matched: e.data.matched ?? []
        }),
        evidence: new Map(s.evidence).set(
          e.data.trajectoryId,
          e.data.evidence.map((ev) => (ev.error === null ? ev.satisfiedAt : -1))
        )
      }
    }
    case "TrajectoryPromoted": {
      // Data rules 6: a solved partial that a path its round added accepts is a pass, with that path's steps.
      const v = s.verdicts.get(e.data.trajectoryId)
      if (v === undefined) return s
      return {
        ...s,
        verdicts: new Map(s.verdicts).set(e.data.trajectoryId, { ...v, verdict: "pass", matched: e.data.matched })
      }
    }
    default:
      return s
  }
}

export const expandedKey = (round: number, taskId: string): string => `${round}:${taskId}`

/** The tasks a round plays: the run's own, then those extrapolated before it started that have a path. */
export const poolOf = (s: RunState): ReadonlyArray<string> => [
  ...s.config!.tasks,
  ...[...s.extrapolated.keys()].filter((id) => (s.graphs.get(id)?.paths.length ?? 0) > 0)
]

/** The verdicts of one round so far. */
export const roundVerdicts = (s: RunState, round: number) => [...s.verdicts.values()].filter((v) => v.round === round)

/** Every task's strategy graph as the run's deciders fold it, from the log's NodeExpanded and PathAdded events. Throws on a path naming a node the log never expanded. */
export const graphsOf = (events: ReadonlyArray<CoreEvent>): ReadonlyMap<string, StrategyGraph> =>
  events.filter((e) => e.type === "NodeExpanded" || e.type === "PathAdded").reduce(evolveRun, initialRunState).graphs
