/** Dataset records as emitted, and each round's seal. */
import { defineProjection, json, runOf } from "../Projection.ts"
import { upsert } from "../RowOp.ts"

export const datasets = defineProjection("datasets", ["dataset_records", "dataset_seals"], (recorded) => {
  const e = recorded.event
  const run_id = runOf(recorded)
  switch (e.type) {
    case "DatasetRecordEmitted":
      return [
        upsert(
          "dataset_records",
          { run_id, record_id: e.data.recordId },
          {
            round: e.data.round,
            format: e.data.format,
            task_id: e.data.taskId,
            trajectory_ids: json(e.data.trajectoryIds),
            body: json(e.data.body),
            blobs: json(e.data.blobs),
            recorded_at: e.recordedAt
          }
        )
      ]
    case "DatasetSealed":
      return [
        upsert(
          "dataset_seals",
          { run_id, round: e.data.round },
          {
            counts: json(e.data.counts),
            record_count: e.data.recordCount,
            content_digest: e.data.contentDigest,
            sealed_at: e.recordedAt
          }
        )
      ]
    default:
      return []
  }
})
