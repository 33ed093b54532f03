/**
 * A realistic log of a few thousand events for projector tests: the shapes of
 * events/test/samples.ts, with ids varied across runs, rounds, tasks and samples, in the
 * order the pipeline writes them. Some commits hold several events (recorded + verified),
 * and unprojected types (ModelCalled, JobQueued, …) are mixed in.
 */
import { Effect } from "effect"
import { digest, labelFunctionId, makeEvent, sha256 } from "@core/events"
import type { CoreEvent, EventDefinition } from "@core/events"
import {
  DatasetRecordEmitted, DatasetSealed, DemoIngested, DemoRejected, JobQueued, LabelFunctionInferred, LabelFunctionRejected,
  ModelCalled, NodeExpanded, PathAdded, PolicyTrained, RoundCompleted, RoundStarted, RunStarted, TaskExtrapolated,
  TaskRegistered, TrajectoryRecorded, TrajectoryVerified
} from "@core/events"
import { EventStore } from "@core/eventstore"
import { samples } from "../../../events/test/samples.ts"

export interface Commit {
  readonly stream: string
  readonly events: ReadonlyArray<CoreEvent>
}

export interface LogShape {
  readonly prefix?: string
  readonly runs?: number
  readonly rounds?: number
  readonly tasks?: number
  readonly samples?: number
}

const at = (n: number) => new Date(Date.UTC(2026, 2, 1, 12) + n * 1000).toISOString()

export const generateLog = (shape: LogShape = {}): ReadonlyArray<Commit> => {
  const { prefix = "g", runs = 2, rounds = 2, tasks = 12, samples: perTask = 4 } = shape
  const commits: Array<Commit> = []
  let clock = 0
  const ev = <D extends EventDefinition>(def: D, stream: string, runId: string | null, data: D["data"]["Type"], ordinal = 0): CoreEvent =>
    makeEvent(def, { stream, runId, causationId: sha256(`${stream}:${clock}`), ordinal, recordedAt: at(clock++), data }) as CoreEvent
  const push = (stream: string, ...events: Array<CoreEvent>) => commits.push({ stream, events })
  const taskId = (t: number) => `${prefix}-task-${t}`

  for (let t = 0; t < tasks; t++) {
    const id = taskId(t)
    push(`ws.task.${id}`, ev(TaskRegistered, `ws.task.${id}`, null, { ...samples.TaskRegistered.data, taskId: id, siteSeed: t }))
    const demoId = `${prefix}-demo-${t}`
    push(`ws.demo.${demoId}`, ev(DemoIngested, `ws.demo.${demoId}`, null, { ...samples.DemoIngested.data, demoId, taskId: id, contentDigest: digest({ id }) }))
    if (t % 3 === 0) push(`ws.demo.${demoId}-bad`, ev(DemoRejected, `ws.demo.${demoId}-bad`, null, { ...samples.DemoRejected.data, demoId: t % 2 ? `${demoId}-bad` : null, line: t + 1 }))
    const code = `export default (t) => t.validateClick("button", "Task ${t}")`
    const lfId = labelFunctionId(code)
    const source = { kind: "demo", id: demoId } as const
    push(`ws.lf.${lfId}`, ev(LabelFunctionInferred, `ws.lf.${lfId}`, null, { ...samples.LabelFunctionInferred.data, lfId, taskId: id, code, source }))
    push(`ws.lf.rejected-${id}`, ev(LabelFunctionRejected, `ws.lf.rejected-${id}`, null, { ...samples.LabelFunctionRejected.data, taskId: id, source }))
  }

  for (let r = 0; r < runs; r++) {
    const runId = `${prefix}-run-${r}`
    const rs = (kind: string, id: string) => `run.${runId}.${kind}.${id}`
    push(rs("run", "main"), ev(RunStarted, rs("run", "main"), runId, { ...samples.RunStarted.data, seed: String(r) }))
    for (let round = 1; round <= rounds; round++) {
      const taskIds = Array.from({ length: tasks }, (_, t) => taskId(t))
      push(rs("round", `${round}`), ev(RoundStarted, rs("round", `${round}`), runId, { ...samples.RoundStarted.data, round, taskIds }))
      for (let t = 0; t < tasks; t++) {
        const id = taskId(t)
        push(rs("model", `c${round}-${t}`), ev(ModelCalled, rs("model", `c${round}-${t}`), runId, { ...samples.ModelCalled.data, callIndex: t }))
        for (let s = 0; s < perTask; s++) {
          const trajectoryId = `traj-r${round}-t${t}-s${s}`
          push(rs("job", `j${round}-${t}-${s}`), ev(JobQueued, rs("job", `j${round}-${t}-${s}`), runId, { ...samples.JobQueued.data, jobId: `j${round}-${t}-${s}`, round, taskId: id }))
          const verdict = (["pass", "partial", "fail", "infra-error"] as const)[(t + s) % 4]!
          push(
            rs("traj", trajectoryId),
            ev(TrajectoryRecorded, rs("traj", trajectoryId), runId, { ...samples.TrajectoryRecorded.data, trajectoryId, taskId: id, round, sample: s, steps: samples.TrajectoryRecorded.data.steps.slice(0, 3 + s) }),
            ev(TrajectoryVerified, rs("traj", trajectoryId), runId, { ...samples.TrajectoryVerified.data, trajectoryId, taskId: id, verdict, path: verdict === "pass" ? ["n0", `n${t}`] : null })
          )
          if (verdict === "pass") {
            const body = { task: id, trajectoryId, run: runId }
            push(rs("dataset", `${round}`), ev(DatasetRecordEmitted, rs("dataset", `${round}`), runId, { ...samples.DatasetRecordEmitted.data, recordId: digest({ format: "sft", body }), round, taskId: id, trajectoryIds: [trajectoryId], body }, t * perTask + s))
          }
        }
        push(rs("graph", id), ev(NodeExpanded, rs("graph", id), runId, { ...samples.NodeExpanded.data, taskId: id, nodeId: `n${t}` }, round))
        push(rs("graph", id), ev(PathAdded, rs("graph", id), runId, { ...samples.PathAdded.data, taskId: id, pathId: `p${round}`, nodeIds: ["n0", `n${t}`] }, round))
        if (t % 4 === 0) {
          const newTaskId = `${id}-x${round}`
          push(rs("task", newTaskId), ev(TaskExtrapolated, rs("task", newTaskId), runId, {
            ...samples.TaskExtrapolated.data,
            newTaskId,
            lineage: { ...samples.TaskExtrapolated.data.lineage, parentTaskId: id, parentTrajectoryIds: [`traj-r${round}-t${t}-s0`, `traj-r${round}-t${t}-s1`] },
            pseudoDemoTrajectoryId: `traj-r${round}-t${t}-s1`
          }))
        }
      }
      push(rs("dataset", `${round}`), ev(DatasetSealed, rs("dataset", `${round}`), runId, { ...samples.DatasetSealed.data, round }))
      push(rs("round", `${round}`), ev(RoundCompleted, rs("round", `${round}`), runId, { ...samples.RoundCompleted.data, round }))
      push(rs("round", `${round}`), ev(PolicyTrained, rs("round", `${round}`), runId, { ...samples.PolicyTrained.data, round, checkpoint: `ckpt/${runId}/${round}` }))
    }
  }
  return commits
}

export const eventCount = (commits: ReadonlyArray<Commit>): number => commits.reduce((n, c) => n + c.events.length, 0)

/** Appends commits in order, tracking each stream's revision as a writer would. */
export const appendAll = (commits: ReadonlyArray<Commit>, revisions: Map<string, number> = new Map()) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    for (const c of commits) {
      const { revision } = yield* store.append(c.stream, c.events, { expectedRevision: revisions.get(c.stream) ?? 0 })
      revisions.set(c.stream, revision)
    }
  })
