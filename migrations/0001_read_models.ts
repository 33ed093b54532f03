/**
 * The first read models. Portable by construction: only text, integer and bigint columns
 * (booleans as 0/1, JSON as canonical text), so SQLite and PostgreSQL hold the same rows.
 * Non-key columns are nullable because events fill a row from several sides (a
 * trajectory's verdict may be projected before or after its recording). Key columns are
 * NOT NULL explicitly: SQLite, unlike PostgreSQL, lets a non-integer PRIMARY KEY hold NULL.
 */
import type { Kysely } from "kysely"

// `Kysely<any>`: a migration must keep working against the schema as it was, not as the code types it today.
export const up = async (db: Kysely<any>): Promise<void> => {
  const table = (name: string) => db.schema.createTable(name)

  await table("projection_checkpoints")
    .addColumn("name", "text", (c) => c.primaryKey().notNull())
    .addColumn("position", "bigint", (c) => c.notNull())
    .addColumn("event_index", "integer", (c) => c.notNull())
    .execute()

  await table("runs")
    .addColumn("run_id", "text", (c) => c.primaryKey().notNull())
    .addColumn("seed", "text")
    .addColumn("command", "text")
    .addColumn("code_commit", "text")
    .addColumn("code_dirty", "integer")
    .addColumn("config", "text")
    .addColumn("config_sources", "text")
    .addColumn("tools", "text")
    .addColumn("started_at", "text")
    .execute()

  await table("rounds")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("round", "integer", (c) => c.notNull())
    .addColumn("status", "text")
    .addColumn("policy", "text")
    .addColumn("task_ids", "text")
    .addColumn("samples_per_task", "integer")
    .addColumn("started_at", "text")
    .addColumn("counts", "text")
    .addColumn("dataset_digest", "text")
    .addColumn("completed_at", "text")
    .addColumn("trainer", "text")
    .addColumn("trained_on", "text")
    .addColumn("checkpoint", "text")
    .addColumn("metrics", "text")
    .addColumn("trained_at", "text")
    .addPrimaryKeyConstraint("rounds_pk", ["run_id", "round"])
    .execute()

  await table("tasks")
    .addColumn("task_id", "text", (c) => c.primaryKey().notNull())
    .addColumn("origin", "text")
    .addColumn("run_id", "text")
    .addColumn("site", "text")
    .addColumn("suite", "text")
    .addColumn("template_id", "text")
    .addColumn("template", "text")
    .addColumn("instruction", "text")
    .addColumn("site_seed", "integer")
    .addColumn("checker", "text")
    .addColumn("platform", "text")
    .addColumn("start_url", "text")
    .addColumn("app", "text")
    .addColumn("parent_task_id", "text")
    .addColumn("generator", "text")
    .addColumn("generator_version", "text")
    .addColumn("prompt_digest", "text")
    .addColumn("pseudo_demo_trajectory_id", "text")
    .addColumn("registered_at", "text")
    .execute()

  await table("demos")
    .addColumn("demo_id", "text", (c) => c.primaryKey().notNull())
    .addColumn("status", "text")
    .addColumn("task_id", "text")
    .addColumn("source_kind", "text")
    .addColumn("source_ref", "text")
    .addColumn("step_count", "integer")
    .addColumn("content_digest", "text")
    .addColumn("reason", "text")
    .addColumn("line", "integer")
    .addColumn("step_index", "integer")
    .addColumn("recorded_at", "text")
    .execute()

  // One row per key step of a source, accepted or not: an audit asks "why has this step no LF?".
  await table("label_functions")
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("source_kind", "text", (c) => c.notNull())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("key_step_index", "integer", (c) => c.notNull())
    .addColumn("status", "text")
    .addColumn("lf_id", "text")
    .addColumn("description", "text")
    .addColumn("code", "text")
    .addColumn("api_version", "text")
    .addColumn("method", "text")
    .addColumn("attempts", "integer")
    .addColumn("validation", "text")
    .addColumn("reason", "text")
    .addColumn("recorded_at", "text")
    .addPrimaryKeyConstraint("label_functions_pk", ["task_id", "source_kind", "source_id", "key_step_index"])
    .execute()
  await db.schema.createIndex("label_functions_lf_id").on("label_functions").column("lf_id").execute()

  await table("graph_nodes")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("node_id", "text", (c) => c.notNull())
    .addColumn("lf_id", "text")
    .addColumn("description", "text")
    .addColumn("action_kind", "text")
    .addColumn("role", "text")
    .addColumn("name", "text")
    .addColumn("url_pattern", "text")
    .addColumn("source_kind", "text")
    .addColumn("source_id", "text")
    .addColumn("how", "text")
    .addColumn("recorded_at", "text")
    .addPrimaryKeyConstraint("graph_nodes_pk", ["run_id", "task_id", "node_id"])
    .execute()

  await table("graph_paths")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("path_id", "text", (c) => c.notNull())
    .addColumn("node_ids", "text")
    .addColumn("source_kind", "text")
    .addColumn("source_id", "text")
    .addColumn("recorded_at", "text")
    .addPrimaryKeyConstraint("graph_paths_pk", ["run_id", "task_id", "path_id"])
    .execute()

  // Edges between consecutive nodes of a path, from the virtual "@start" to the virtual "@end".
  await table("graph_edges")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("from_node", "text", (c) => c.notNull())
    .addColumn("to_node", "text", (c) => c.notNull())
    .addColumn("first_path_id", "text")
    .addPrimaryKeyConstraint("graph_edges_pk", ["run_id", "task_id", "from_node", "to_node"])
    .execute()

  await table("trajectories")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("trajectory_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text")
    .addColumn("round", "integer")
    .addColumn("sample", "integer")
    .addColumn("policy", "text")
    .addColumn("step_count", "integer")
    .addColumn("outcome", "text")
    .addColumn("infra_error", "text")
    .addColumn("recorded_at", "text")
    .addColumn("verdict", "text")
    .addColumn("path", "text")
    .addColumn("verified_at", "text")
    .addPrimaryKeyConstraint("trajectories_pk", ["run_id", "trajectory_id"])
    .execute()

  await table("lf_verdicts")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("trajectory_id", "text", (c) => c.notNull())
    .addColumn("lf_id", "text", (c) => c.notNull())
    .addColumn("task_id", "text")
    .addColumn("status", "text")
    .addColumn("satisfied_at", "integer")
    .addColumn("error", "text")
    .addPrimaryKeyConstraint("lf_verdicts_pk", ["run_id", "trajectory_id", "lf_id"])
    .execute()

  await table("dataset_records")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("record_id", "text", (c) => c.notNull())
    .addColumn("round", "integer")
    .addColumn("format", "text")
    .addColumn("task_id", "text")
    .addColumn("trajectory_ids", "text")
    .addColumn("body", "text")
    .addColumn("blobs", "text")
    .addColumn("recorded_at", "text")
    .addPrimaryKeyConstraint("dataset_records_pk", ["run_id", "record_id"])
    .execute()

  await table("dataset_seals")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("round", "integer", (c) => c.notNull())
    .addColumn("counts", "text")
    .addColumn("record_count", "integer")
    .addColumn("content_digest", "text")
    .addColumn("sealed_at", "text")
    .addPrimaryKeyConstraint("dataset_seals_pk", ["run_id", "round"])
    .execute()

  // Where things came from, as edges child → parent; run_id is "" for workspace facts.
  await table("lineage")
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("child_kind", "text", (c) => c.notNull())
    .addColumn("child_id", "text", (c) => c.notNull())
    .addColumn("relation", "text", (c) => c.notNull())
    .addColumn("parent_kind", "text", (c) => c.notNull())
    .addColumn("parent_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("lineage_pk", ["run_id", "child_kind", "child_id", "relation", "parent_kind", "parent_id"])
    .execute()
}

export const down = async (db: Kysely<any>): Promise<void> => {
  for (const t of [
    "lineage",
    "dataset_seals",
    "dataset_records",
    "lf_verdicts",
    "trajectories",
    "graph_edges",
    "graph_paths",
    "graph_nodes",
    "label_functions",
    "demos",
    "tasks",
    "rounds",
    "runs",
    "projection_checkpoints"
  ])
    await db.schema.dropTable(t).ifExists().execute()
}
