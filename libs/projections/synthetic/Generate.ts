/**
 * A synthetic but realistic log, for projector tests and `bun core bench replay`: the
 * catalog's shapes (Templates.ts) with ids varied across runs, rounds, tasks and samples,
 * in the order the pipeline writes them. Some commits hold several events (recorded +
 * verified), and unprojected types (ModelCalled, JobQueued) are mixed in.
 *
 * Lazy, so a benchmark can stream a million events to the store without ever holding them.
 *
 * @example
 * const log = generateLog({ prefix: "p", runs: 2 })               // a few hundred commits, in memory
 * for (const c of takeEvents(generateCommits({ runs: Infinity }), 1_000_000)) …   // streamed
 */
import { digest, labelFunctionId, makeEvent, sha256 } from "@core/events"
import type { CoreEvent, EventDefinition } from "@core/events"
import {
  DatasetRecordEmitted,
  DatasetSealed,
  DemoIngested,
  DemoRejected,
  JobQueued,
  LabelFunctionInferred,
  LabelFunctionRejected,
  ModelCalled,
  NodeExpanded,
  PathAdded,
  PolicyTrained,
  RoundCompleted,
  RoundStarted,
  RunStarted,
  TaskExtrapolated,
  TaskRegistered,
  TrajectoryRecorded,
  TrajectoryVerified
} from "@core/events"
import { examples as samples } from "@core/events"

export interface Commit {
  readonly stream: string
  readonly events: ReadonlyArray<CoreEvent>
}

export interface LogShape {
  /** Makes ids unique to one log. */
  readonly prefix?: string
  /** `Infinity` for an endless log (take what you need with {@link takeEvents}). */
  readonly runs?: number
  readonly rounds?: number
  readonly tasks?: number
  readonly samples?: number
}

const at = (n: number) => new Date(Date.UTC(2026, 2, 1, 12) + n * 1000).toISOString()

export function* generateCommits(shape: LogShape = {}): Generator<Commit> {
  const { prefix = "g", runs = 2, rounds = 2, tasks = 12, samples: perTask = 4 } = shape
  let clock = 0
  const ev = <D extends EventDefinition>(def: D, stream: string, runId: string | null, data: D["data"]["Type"], ordinal = 0): CoreEvent =>
    makeEvent(def, { stream, runId, causationId: sha256(`${stream}:${clock}`), ordinal, recordedAt: at(clock++), data }) as CoreEvent
  const commit = (stream: string, ...events: Array<CoreEvent>): Commit => ({ stream, events })
  const taskId = (t: number) => `${prefix}-task-${t}`

  for (let t = 0; t < tasks; t++) {
    const id = taskId(t)
    yield commit(`ws.task.${id}`, ev(TaskRegistered, `ws.task.${id}`, null, { ...samples.TaskRegistered, taskId: id, siteSeed: t }))
    const demoId = `${prefix}-demo-${t}`
    yield commit(
      `ws.demo.${demoId}`,
      ev(DemoIngested, `ws.demo.${demoId}`, null, { ...samples.DemoIngested, demoId, taskId: id, contentDigest: digest({ id }) })
    )
    if (t % 3 === 0)
      yield commit(
        `ws.demo.${demoId}-bad`,
        ev(DemoRejected, `ws.demo.${demoId}-bad`, null, { ...samples.DemoRejected, demoId: t % 2 ? `${demoId}-bad` : null, line: t + 1 })
      )
    const code = `export default (t) => t.validateClick("button", "Task ${t}")`
    const lfId = labelFunctionId(code)
    const source = { kind: "demo", id: demoId } as const
    yield commit(
      `ws.lf.${lfId}`,
      ev(LabelFunctionInferred, `ws.lf.${lfId}`, null, { ...samples.LabelFunctionInferred, lfId, taskId: id, code, source })
    )
    yield commit(
      `ws.lf.rejected-${id}`,
      ev(LabelFunctionRejected, `ws.lf.rejected-${id}`, null, { ...samples.LabelFunctionRejected, taskId: id, source })
    )
  }

  for (let r = 0; r < runs; r++) {
    const runId = `${prefix}-run-${r}`
    const rs = (kind: string, id: string) => `run.${runId}.${kind}.${id}`
    yield commit(rs("run", "main"), ev(RunStarted, rs("run", "main"), runId, { ...samples.RunStarted, seed: String(r) }))
    for (let round = 1; round <= rounds; round++) {
      const taskIds = Array.from({ length: tasks }, (_, t) => taskId(t))
      yield commit(rs("round", `${round}`), ev(RoundStarted, rs("round", `${round}`), runId, { ...samples.RoundStarted, round, taskIds }))
      for (let t = 0; t < tasks; t++) {
        const id = taskId(t)
        yield commit(
          rs("model", `c${round}-${t}`),
          ev(ModelCalled, rs("model", `c${round}-${t}`), runId, { ...samples.ModelCalled, callIndex: t })
        )
        for (let s = 0; s < perTask; s++) {
          const trajectoryId = `traj-r${round}-t${t}-s${s}`
          const jobId = `j${round}-${t}-${s}`
          yield commit(rs("job", jobId), ev(JobQueued, rs("job", jobId), runId, { ...samples.JobQueued, jobId, round, taskId: id }))
          const verdict = (["pass", "partial", "fail", "infra-error"] as const)[(t + s) % 4]!
          yield commit(
            rs("traj", trajectoryId),
            ev(TrajectoryRecorded, rs("traj", trajectoryId), runId, {
              ...samples.TrajectoryRecorded,
              trajectoryId,
              taskId: id,
              round,
              sample: s,
              steps: samples.TrajectoryRecorded.steps.slice(0, 3 + s)
            }),
            ev(TrajectoryVerified, rs("traj", trajectoryId), runId, {
              ...samples.TrajectoryVerified,
              trajectoryId,
              taskId: id,
              verdict,
              path: verdict === "pass" ? ["n0", `n${t}`] : null
            })
          )
          if (verdict === "pass") {
            const body = { task: id, trajectoryId, run: runId }
            yield commit(
              rs("dataset", `${round}`),
              ev(
                DatasetRecordEmitted,
                rs("dataset", `${round}`),
                runId,
                {
                  ...samples.DatasetRecordEmitted,
                  recordId: digest({ format: "sft", body }),
                  round,
                  taskId: id,
                  trajectoryIds: [trajectoryId],
                  body
                },
                t * perTask + s
              )
            )
          }
        }
        yield commit(
          rs("graph", id),
          ev(NodeExpanded, rs("graph", id), runId, { ...samples.NodeExpanded, taskId: id, nodeId: `n${t}` }, round)
        )
        yield commit(
          rs("graph", id),
          ev(PathAdded, rs("graph", id), runId, { ...samples.PathAdded, taskId: id, pathId: `p${round}`, nodeIds: ["n0", `n${t}`] }, round)
        )
        if (t % 4 === 0) {
          const newTaskId = `${id}-x${round}`
          yield commit(
            rs("task", newTaskId),
            ev(TaskExtrapolated, rs("task", newTaskId), runId, {
              ...samples.TaskExtrapolated,
              newTaskId,
              lineage: {
                ...samples.TaskExtrapolated.lineage,
                parentTaskId: id,
                parentTrajectoryIds: [`traj-r${round}-t${t}-s0`, `traj-r${round}-t${t}-s1`]
              },
              pseudoDemoTrajectoryId: `traj-r${round}-t${t}-s1`
            })
          )
        }
      }
      yield commit(rs("dataset", `${round}`), ev(DatasetSealed, rs("dataset", `${round}`), runId, { ...samples.DatasetSealed, round }))
      yield commit(rs("round", `${round}`), ev(RoundCompleted, rs("round", `${round}`), runId, { ...samples.RoundCompleted, round }))
      yield commit(
        rs("round", `${round}`),
        ev(PolicyTrained, rs("round", `${round}`), runId, { ...samples.PolicyTrained, round, checkpoint: `ckpt/${runId}/${round}` })
      )
    }
  }
}

/** The whole (finite) log in memory: for tests that slice it. */
export const generateLog = (shape: LogShape = {}): ReadonlyArray<Commit> => [...generateCommits(shape)]

export const eventCount = (commits: Iterable<Commit>): number => {
  let n = 0
  for (const c of commits) n += c.events.length
  return n
}

/** The first `n` events of a log, lazily; a commit that would overshoot is cut short, so the total is exactly `n` when the log is long enough. */
export function* takeEvents(commits: Iterable<Commit>, n: number): Generator<Commit> {
  let left = n
  if (left <= 0) return
  for (const c of commits) {
    if (c.events.length <= left) yield c
    else yield { stream: c.stream, events: c.events.slice(0, left) }
    left -= Math.min(left, c.events.length)
    if (left === 0) return
  }
}
