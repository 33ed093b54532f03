/**
 * Rollouts and their verification, as deciders (a round's episodes, then their verdicts):
 *
 * - `rollouts`: a round's RoundStarted queues `samples` rollout jobs per task; each job is
 *   one episode (`rollout`) → TrajectoryRecorded and JobCompleted in the trajectory's
 *   stream `run.<runId>.traj.<trajectoryId>`. Rollout jobs may be decided concurrently
 *   (`concurrent`): each depends only on the run's config and its own recorded inputs.
 * - `verification`: each TrajectoryRecorded → TrajectoryVerified, the graph verdict against
 *   the task's graph as the round started, with per-LF evidence.
 *
 * @example
 * const jobs = yield* rollouts.decide(state, roundStarted) // JobQueued × tasks × samples
 */
import { Effect } from "effect"
import {
  decodeJobParams,
  ExploreParams,
  JobCompleted,
  JobQueued,
  eventId,
  runStream,
  RolloutParams,
  TrajectoryRecorded,
  TrajectoryVerified
} from "@core/events"
import type { CoreEvent, DataOf } from "@core/events"
import { decision, defineDecider } from "@core/engine"
import { endCheckOf } from "../EpisodeEnd.ts"
import { explorerIdOf, playEpisode, trajectoryIdOf } from "../Rollout.ts"
import { evolveRun, initialRunState, sourceKey } from "../RunState.ts"
import type { RunState } from "../RunState.ts"
import { loadRecordedTrajectory } from "../Trajectories.ts"
import { currentLearnedModel, currentModel } from "./PolicyTraining.ts"
import { verdictRules, verifyTrajectory } from "../Verification.ts"

export const ROLLOUT_JOB_KIND = "rollout"
export const EXPLORE_JOB_KIND = "explore"

/** The explorer stops on its own less often than a rollout: the demo's suffix ends its episode once it rejoins. */
const EXPLORER_STOP_BIAS = 0.2

/** Explorer jobs per task and round that start from the start state. */
const FROM_START = 2

/**
 * A rollout or explorer job of this decider, its parameters decoded; null for any other
 * event, or a job of that kind another decider queued (the demo command's have no trajectory).
 */
const rolloutJob = (
  e: CoreEvent
): { readonly explore: false; readonly params: RolloutParams } | { readonly explore: true; readonly params: ExploreParams } | null => {
  if (e.type !== "JobQueued") return null
  if (e.data.kind === ROLLOUT_JOB_KIND) {
    const params = decodeJobParams(RolloutParams, e.data.params)
    return params === null ? null : { explore: false, params }
  }
  if (e.data.kind !== EXPLORE_JOB_KIND) return null
  const params = decodeJobParams(ExploreParams, e.data.params)
  return params === null ? null : { explore: true, params }
}

const isRolloutJob = (e: CoreEvent): boolean => rolloutJob(e) !== null

/**
 * The explorer's jobs for a task (Strategy Graph Expansion b): from the state at a node of
 * the demo's path — the demo replayed through that node's key step — the policy tries
 * something other than the demo's next action, and rejoins the demo where the detour meets
 * a page the demo acted on later (Rollout's `rejoin`). The first two jobs of every round
 * start from the start state, where the other entry points are; the others take the
 * remaining nodes in turn, round after round — under exploration 3 only the nodes whose
 * step led to another page, under 15 also those whose button changed the app in place,
 * those first.
 */
export const explorerStarts = (s: RunState, taskId: string, round: number) => {
  const config = s.config!
  const demoPath = s.graphs.get(taskId)?.paths.find((p) => p.source.kind === "demo")
  const demo = demoPath === undefined ? undefined : s.demos.get(demoPath.source.id)
  if (demo === undefined || config.explorePerTask === 0) return []
  const keySteps = (s.inferredFrom.get(sourceKey({ kind: "demo", id: demo.demoId })) ?? [])
    .map((lf) => lf.keyStepIndex)
    .sort((a, b) => a - b)
  // The last key step is the final status: nothing to explore after it.
  const before = keySteps.slice(0, -1)
  // Exploration 3 and later start only where the demo reached another page: a node halfway
  // through filling a form is the page the start-state explorers already see.
  // Exploration 15 also starts after a button that changed the app in place: the change is what a detour starts from.
  // A radio, a checkbox or a typed value is part of a form still being filled, or a filter: no start.
  const pressed = (k: number) => {
    const a = demo.steps[k]!.action
    return s.rules.exploration.startsAfterStateChange && a.kind === "click" && a.target?.role === "button"
  }
  const moved = before.filter((k) => demo.steps[k]!.urlAfter !== demo.steps[k]!.urlBefore || pressed(k))
  const starts = s.rules.exploration.startsAfterPageChange && moved.length > 0 ? moved : before
  // Exploration 15 takes the buttons first: with one later explorer a round, the first two rounds
  // would otherwise only reach a change late in the demo behind every page change before it.
  const later = [...starts.filter((k) => pressed(k)), ...starts.filter((k) => !pressed(k))]
  const fromStart = Math.min(config.explorePerTask, FROM_START)
  const others = config.explorePerTask - fromStart
  return Array.from({ length: config.explorePerTask }, (_, j) => {
    const from = j < fromStart || later.length === 0 ? -1 : later[((round - 1) * others + j - fromStart) % later.length]!
    const prefix = demo.steps.slice(0, from + 1).map((st) => st.action)
    const next = demo.steps[from + 1]?.action
    const target = next !== undefined && "target" in next ? next.target : null
    const avoid = target !== null && target.role !== null && target.name !== null ? { role: target.role, name: target.name } : null
    const rejoin = demo.steps.slice(from + 1).map((st) => ({ urlBefore: st.urlBefore, action: st.action }))
    return { index: j, fromStep: from, prefix, avoid, rejoin }
  })
}

export const rollouts = defineDecider({
  name: "rollouts",
  version: "1",
  handles: ["RoundStarted", "JobQueued"],
  emits: ["JobQueued", "TrajectoryRecorded", "JobCompleted"],
  initial: initialRunState,
  evolve: evolveRun,
  concurrent: isRolloutJob,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.gen(function* () {
      const config = s.config
      if (config === null || e.runId === null) return []
      const runId = e.runId
      if (e.type === "RoundStarted") {
        let ordinal = 0
        const round = e.data.round
        const queue = (kind: typeof ROLLOUT_JOB_KIND | typeof EXPLORE_JOB_KIND, taskId: string, params: RolloutParams | ExploreParams) =>
          decision(JobQueued, {
            stream: runStream(runId, "traj", params.trajectoryId),
            causationId: e.id,
            ordinal: ordinal++,
            data: { jobId: `${kind}-${params.trajectoryId}`, kind, round, taskId, params }
          })
        const { stepBudget } = config
        // Extrapolated tasks join the pool at their own, smaller share of rollouts.
        const samplesOf = (taskId: string) => (config.tasks.includes(taskId) ? e.data.samplesPerTask : config.extrapolatedSamples)
        return e.data.taskIds.flatMap((taskId) => [
          ...Array.from({ length: samplesOf(taskId) }, (_, sample) =>
            queue(ROLLOUT_JOB_KIND, taskId, {
              trajectoryId: trajectoryIdOf(round, taskId, sample),
              stepBudget,
              sample
            } satisfies RolloutParams)
          ),
          ...explorerStarts(s, taskId, round).map((x) =>
            queue(EXPLORE_JOB_KIND, taskId, {
              trajectoryId: explorerIdOf(round, taskId, x.index),
              stepBudget,
              sample: x.index,
              fromStep: x.fromStep,
              prefix: x.prefix,
              avoid: x.avoid,
              rejoin: x.rejoin
            } satisfies ExploreParams)
          )
        ])
      }
      const job = rolloutJob(e)
      if (job === null || e.type !== "JobQueued") return []
      const { params } = job
      const explorer = job.explore ? job.params : null
      // Exploration 5 ends the episode once a path of the graph as the round started would hold.
      const graph = s.roundGraphs.get(e.data.taskId)
      const end = s.rules.exploration.endsOnSatisfiedPath && graph !== undefined ? endCheckOf(graph, s.lfs, config.dataRules) : null
      const data = yield* playEpisode({
        causationId: e.id,
        trajectoryId: params.trajectoryId,
        taskId: e.data.taskId,
        instruction: s.instructions.get(e.data.taskId) ?? "",
        round: e.data.round,
        sample: params.sample,
        stepBudget: params.stepBudget,
        policy: config.policy,
        hashRouting: config.hashRouting,
        exploration: config.exploration,
        ...(config.policy.kind === "embedded" ? { retrieval: currentModel(s) } : {}),
        // The explorer below plays the seeded policy: it needs no model.
        ...(config.policy.kind === "learned" && explorer === null ? { learned: yield* currentLearnedModel(s) } : {}),
        ...(end === null ? {} : { end }),
        // The explorer always explores with the seeded policy: it is looking for other ways, not acting well.
        ...(explorer !== null
          ? {
              prefix: explorer.prefix,
              avoid: explorer.avoid,
              ...(explorer.rejoin === undefined ? {} : { rejoin: explorer.rejoin }),
              policy: { kind: "exploration" as const },
              purpose: "explore",
              stopBias: EXPLORER_STOP_BIAS
            }
          : {})
      })
      const recorded = eventId({ runId, causationId: e.id, type: "TrajectoryRecorded", ordinal: 0 })
      return [
        decision(TrajectoryRecorded, { stream: e.stream, causationId: e.id, ordinal: 0, data }),
        decision(JobCompleted, {
          stream: e.stream,
          causationId: e.id,
          ordinal: 0,
          data: {
            jobId: e.data.jobId,
            outcome: data.outcome === "infra-error" ? "infra-error" : "done",
            worker: "rollouts",
            attempts: data.attempts,
            produced: [recorded],
            error: data.infraError
          }
        })
      ]
    })
})

export const verification = defineDecider({
  name: "verification",
  // Version 2 decides by the run's data rules (`verdictRules`): runs recorded before them still decide as version 1 did.
  version: "2",
  handles: ["TrajectoryRecorded"],
  emits: ["TrajectoryVerified"],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.gen(function* () {
      if (e.type !== "TrajectoryRecorded" || s.config === null || e.runId === null) return []
      const { trajectoryId, taskId } = e.data
      const verified = (data: Omit<DataOf<typeof TrajectoryVerified>, "trajectoryId" | "taskId">) => [
        decision(TrajectoryVerified, { stream: e.stream, causationId: e.id, ordinal: 0, data: { trajectoryId, taskId, ...data } })
      ]
      if (e.data.outcome === "infra-error") return verified({ verdict: "infra-error", evidence: [], path: null })
      const graph = s.roundGraphs.get(taskId)
      if (graph === undefined || graph.paths.length === 0) return verified({ verdict: "fail", evidence: [], path: null })
      const codes = new Map([...s.lfs.values()].map((lf) => [lf.lfId, lf.code]))
      const trajectory = yield* loadRecordedTrajectory(e.data, s.config.hashRouting)
      const rules = verdictRules(s.rules.data, graph, trajectory)
      const r = yield* verifyTrajectory({ graph, codes, trajectory, key: `trajectory:${e.runId}:${trajectoryId}`, rules })
      if (r.kind === "infra-error") return verified({ verdict: "infra-error", evidence: [], path: null })
      const v = r.verdict
      return verified({
        verdict: v.verdict,
        evidence: v.evidence.map((ev) => ({ lfId: ev.lfId, satisfiedAt: ev.satisfiedAt, error: ev.error })),
        path: v.path === null ? null : [...v.path],
        ...(v.refused === undefined ? {} : { undone: [...v.refused] }),
        ...(!s.rules.data.recordsMatched || v.verdict !== "pass" ? {} : { matched: v.matched.map((m) => ({ ...m })) })
      })
    })
})
