/** Lineage edges (child → parent) for the audit: extrapolated tasks and dataset records back to what made them. */
import { defineProjection, runOf } from "../Projection.ts"
import { insertIfAbsent } from "../RowOp.ts"
import type { RowOp } from "../RowOp.ts"

const edge = (run_id: string, child: readonly [string, string], relation: string, parent: readonly [string, string]): RowOp =>
  insertIfAbsent("lineage", { run_id, child_kind: child[0], child_id: child[1], relation, parent_kind: parent[0], parent_id: parent[1] })

export const lineage = defineProjection("lineage", ["lineage"], (recorded) => {
  const e = recorded.event
  const run_id = runOf(recorded)
  switch (e.type) {
    case "TaskExtrapolated": {
      const child = ["task", e.data.newTaskId] as const
      return [
        edge(run_id, child, "extrapolated-from", ["task", e.data.lineage.parentTaskId]),
        ...e.data.lineage.parentTrajectoryIds.map((t) => edge(run_id, child, "derived-from", ["trajectory", t])),
        edge(run_id, child, "pseudo-demo", ["trajectory", e.data.pseudoDemoTrajectoryId])
      ]
    }
    case "DatasetRecordEmitted":
      return e.data.trajectoryIds.map((t) => edge(run_id, ["dataset_record", e.data.recordId], "record-of", ["trajectory", t]))
    default:
      return []
  }
})
