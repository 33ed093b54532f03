/** Runs and their rounds: what a run was started with, and each round's policy, outcome and training. */
import { defineProjection, json, runOf } from "../Projection.ts"
import { upsert } from "../RowOp.ts"

export const runs = defineProjection("runs", ["runs", "rounds"], (recorded) => {
  const e = recorded.event
  const run_id = runOf(recorded)
  switch (e.type) {
    case "RunStarted":
      return [
        upsert(
          "runs",
          { run_id },
          {
            seed: e.data.seed,
            command: e.data.command,
            code_commit: e.data.code.commit,
            code_dirty: e.data.code.dirty ? 1 : 0,
            config: json(e.data.config),
            config_sources: json(e.data.configSources),
            tools: json(e.data.tools),
            started_at: e.recordedAt
          }
        )
      ]
    case "RoundStarted":
      return [
        upsert(
          "rounds",
          { run_id, round: e.data.round },
          {
            status: "started",
            policy: e.data.policy,
            task_ids: json(e.data.taskIds),
            samples_per_task: e.data.samplesPerTask,
            started_at: e.recordedAt
          }
        )
      ]
    case "RoundCompleted":
      return [
        upsert(
          "rounds",
          { run_id, round: e.data.round },
          {
            status: "completed",
            counts: json(e.data.counts),
            dataset_digest: e.data.datasetDigest,
            completed_at: e.recordedAt
          }
        )
      ]
    case "PolicyTrained":
      // A trainer outside any run (`core train`) writes to its own `trainer.…` stream, and names no run.
      if (e.runId === null) return []
      return [
        upsert(
          "rounds",
          { run_id, round: e.data.round },
          {
            trainer: e.data.trainer,
            trained_on: e.data.datasetDigest,
            checkpoint: e.data.checkpoint,
            metrics: json(e.data.metrics),
            trained_at: e.recordedAt
          }
        )
      ]
    default:
      return []
  }
})
