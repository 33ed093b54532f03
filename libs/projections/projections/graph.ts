/**
 * Strategy graphs per run and task: nodes, the paths through them, and the edges those paths imply.
 * The first fact of a node or path wins, as in the live graph (`addNode`, `addPath`): two
 * episodes of one round can find the same new node before either expansion is in the log.
 */
import { defineProjection, json, runOf } from "../Projection.ts"
import { insertIfAbsent } from "../RowOp.ts"
import type { RowOp } from "../RowOp.ts"

/** The virtual start and end every path implicitly runs between. */
export const START = "@start"
export const END = "@end"

export const graph = defineProjection("graph", ["graph_nodes", "graph_paths", "graph_edges"], (recorded) => {
  const e = recorded.event
  const run_id = runOf(recorded)
  switch (e.type) {
    case "NodeExpanded":
      return [
        insertIfAbsent(
          "graph_nodes",
          { run_id, task_id: e.data.taskId, node_id: e.data.nodeId },
          {
            lf_id: e.data.lfId,
            description: e.data.description,
            action_kind: e.data.semanticKey.actionKind,
            role: e.data.semanticKey.role,
            name: e.data.semanticKey.name,
            value: e.data.semanticKey.value,
            url_pattern: e.data.semanticKey.urlPattern,
            source_kind: e.data.source.kind,
            source_id: e.data.source.id,
            how: e.data.how,
            recorded_at: e.recordedAt
          }
        )
      ]
    case "PathAdded": {
      const hops = [START, ...e.data.nodeIds, END]
      const edges: Array<RowOp> = []
      for (let i = 0; i + 1 < hops.length; i++) {
        edges.push(
          insertIfAbsent(
            "graph_edges",
            { run_id, task_id: e.data.taskId, from_node: hops[i]!, to_node: hops[i + 1]! },
            { first_path_id: e.data.pathId }
          )
        )
      }
      return [
        insertIfAbsent(
          "graph_paths",
          { run_id, task_id: e.data.taskId, path_id: e.data.pathId },
          {
            node_ids: json(e.data.nodeIds),
            signature: e.data.signature ?? null,
            source_kind: e.data.source.kind,
            source_id: e.data.source.id,
            recorded_at: e.recordedAt
          }
        ),
        ...edges
      ]
    }
    default:
      return []
  }
})
