/** Trajectories with their final label, and each label function's verdict with the step that satisfied it. */
import { defineProjection, json, runOf } from "../Projection.ts"
import { remove, upsert } from "../RowOp.ts"

export const trajectories = defineProjection("trajectories", ["trajectories", "lf_verdicts"], (recorded) => {
  const e = recorded.event
  const run_id = runOf(recorded)
  switch (e.type) {
    case "TrajectoryRecorded":
      return [
        upsert(
          "trajectories",
          { run_id, trajectory_id: e.data.trajectoryId },
          {
            task_id: e.data.taskId,
            round: e.data.round,
            sample: e.data.sample,
            policy: e.data.policy,
            step_count: e.data.steps.length,
            outcome: e.data.outcome,
            infra_error: e.data.infraError,
            recorded_at: e.recordedAt
          }
        )
      ]
    case "TrajectoryVerified": {
      const trajectory_id = e.data.trajectoryId
      return [
        upsert(
          "trajectories",
          { run_id, trajectory_id },
          {
            task_id: e.data.taskId,
            verdict: e.data.verdict,
            path: e.data.path === null ? null : json(e.data.path),
            verified_at: e.recordedAt
          }
        ),
        // A re-verification (e.g. a changed LF set) replaces the findings rather than adding to them.
        remove("lf_verdicts", { run_id, trajectory_id }),
        ...e.data.evidence.map((ev) =>
          upsert(
            "lf_verdicts",
            { run_id, trajectory_id, lf_id: ev.lfId },
            {
              task_id: e.data.taskId,
              // `error` is an LF that broke in the sandbox, not a finding about the trajectory: kept apart from "unsatisfied".
              status: ev.error !== null ? "error" : ev.satisfiedAt >= 0 ? "satisfied" : "unsatisfied",
              satisfied_at: ev.satisfiedAt,
              error: ev.error
            }
          )
        )
      ]
    }
    case "TrajectoryPromoted":
      // Data rules 6: a partial that a path its round added accepts is a pass, by that path. Its findings stay.
      return [
        upsert(
          "trajectories",
          { run_id, trajectory_id: e.data.trajectoryId },
          { task_id: e.data.taskId, verdict: "pass", path: json(e.data.path) }
        )
      ]
    default:
      return []
  }
})
