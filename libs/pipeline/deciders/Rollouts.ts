/**
 * Rollouts and their verification, as deciders (the loop of METHOD-NOTES):
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
import { JobCompleted, JobQueued, eventId, runStream, TrajectoryRecorded, TrajectoryVerified } from "@core/events"
import type { CoreEvent, DataOf } from "@core/events"
import { decision, defineDecider } from "@core/replay"
import { rollout, trajectoryIdOf } from "../Rollout.ts"
import { evolveRun, initialRunState } from "../RunState.ts"
import type { RunState } from "../RunState.ts"
import { loadRecordedTrajectory } from "../Trajectories.ts"
import { verifyTrajectory } from "../Verification.ts"

export const ROLLOUT_JOB_KIND = "rollout"

const isRolloutJob = (e: CoreEvent): e is Extract<CoreEvent, { type: "JobQueued" }> =>
  e.type === "JobQueued" && e.data.kind === ROLLOUT_JOB_KIND && typeof e.data.params.trajectoryId === "string"

export const rollouts = defineDecider({
  name: "rollouts",
  version: "1",
  handles: ["RoundStarted", "JobQueued"],
  emits: ["JobQueued", "TrajectoryRecorded", "JobCompleted"],
  initial: initialRunState,
  evolve: evolveRun,
  concurrent: isRolloutJob,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.gen(function*() {
      const config = s.config
      if (config === null || e.runId === null) return []
      const runId = e.runId
      if (e.type === "RoundStarted") {
        let ordinal = 0
        return e.data.taskIds.flatMap((taskId) =>
          Array.from({ length: e.data.samplesPerTask }, (_, sample) => {
            const trajectoryId = trajectoryIdOf(e.data.round, taskId, sample)
            return decision(JobQueued, {
              stream: runStream(runId, "traj", trajectoryId),
              causationId: e.id,
              ordinal: ordinal++,
              data: { jobId: `rollout-${trajectoryId}`, kind: ROLLOUT_JOB_KIND, round: e.data.round, taskId, params: { trajectoryId, sample, stepBudget: config.stepBudget } }
            })
          }))
      }
      if (!isRolloutJob(e)) return []
      const trajectoryId = e.data.params.trajectoryId as string
      const data = yield* rollout({
        causationId: e.id,
        trajectoryId,
        taskId: e.data.taskId,
        instruction: s.instructions.get(e.data.taskId) ?? "",
        round: e.data.round,
        sample: Number(e.data.params.sample ?? 0),
        stepBudget: Number(e.data.params.stepBudget ?? config.stepBudget),
        policy: config.policy
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
  version: "1",
  handles: ["TrajectoryRecorded"],
  emits: ["TrajectoryVerified"],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.gen(function*() {
      if (e.type !== "TrajectoryRecorded" || s.config === null || e.runId === null) return []
      const { trajectoryId, taskId } = e.data
      const verified = (data: Omit<DataOf<typeof TrajectoryVerified>, "trajectoryId" | "taskId">) => [
        decision(TrajectoryVerified, { stream: e.stream, causationId: e.id, ordinal: 0, data: { trajectoryId, taskId, ...data } })
      ]
      if (e.data.outcome === "infra-error") return verified({ verdict: "infra-error", evidence: [], path: null })
      const graph = s.roundGraphs.get(taskId)
      if (graph === undefined || graph.paths.length === 0) return verified({ verdict: "fail", evidence: [], path: null })
      const codes = new Map([...s.lfs.values()].map((lf) => [lf.lfId, lf.code]))
      const trajectory = yield* loadRecordedTrajectory(e.data)
      const r = yield* verifyTrajectory({ graph, codes, trajectory, key: `trajectory:${e.runId}:${trajectoryId}` })
      if (r.kind === "infra-error") return verified({ verdict: "infra-error", evidence: [], path: null })
      const v = r.verdict
      return verified({
        verdict: v.verdict,
        evidence: v.evidence.map((ev) => ({ lfId: ev.lfId, satisfiedAt: ev.satisfiedAt, error: ev.error })),
        path: v.path === null ? null : [...v.path]
      })
    })
})
