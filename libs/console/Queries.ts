/**
 * The console's read-model queries: lists and counts for the pages, portable between SQLite
 * and PostgreSQL (only the query builder, no dialect SQL). Detail — observations, provenance,
 * audits — comes from the run log instead; these rows are what the projections wrote
 * (libs/projections/projections), JSON columns as canonical text.
 *
 * @example
 * const rows = yield* trajectoriesOf(ctx.readModels, runId, { outcome: "pass" })
 */
import { Effect, Schema } from "effect"
import type { GraphNode, GraphPath, StrategyGraph } from "@core/domain"
import type { ReadModels } from "@core/projections"

export class QueryFailed extends Schema.TaggedError<QueryFailed>()("QueryFailed", {
  database: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `read-model database ${this.database}: ${this.reason}`
  }
}

const q = <A>(rm: ReadModels, f: () => Promise<A>): Effect.Effect<A, QueryFailed> =>
  Effect.tryPromise({
    try: f,
    catch: (e) => new QueryFailed({ database: rm.location, reason: e instanceof Error ? e.message : String(e) })
  })

/** A JSON column, or `fallback` when it is null or not JSON. */
export const parseJson = <A>(text: string | null | undefined, fallback: A): A => {
  if (text === null || text === undefined) return fallback
  try {
    return JSON.parse(text) as A
  } catch {
    return fallback
  }
}

// pg returns counts as numbers here (ReadModels parses int8), SQLite as numbers: Number() for both and for safety.
const n = (v: unknown): number => Number(v ?? 0)

export interface RunRow {
  readonly run_id: string
  readonly seed: string | null
  readonly command: string | null
  readonly code_commit: string | null
  readonly code_dirty: number | null
  readonly config: string | null
  readonly started_at: string | null
}

export interface RoundRow {
  readonly run_id: string
  readonly round: number
  readonly status: string | null
  readonly policy: string | null
  readonly task_ids: string | null
  readonly samples_per_task: number | null
  readonly started_at: string | null
  readonly completed_at: string | null
  readonly counts: string | null
  readonly trainer: string | null
  readonly checkpoint: string | null
}

export interface TaskRow {
  readonly task_id: string
  readonly origin: string | null
  readonly run_id: string | null
  readonly site: string | null
  readonly app: string | null
  readonly instruction: string | null
  readonly parent_task_id: string | null
  readonly generator: string | null
  readonly pseudo_demo_trajectory_id: string | null
}

export interface TrajectoryRow {
  readonly run_id: string
  readonly trajectory_id: string
  readonly task_id: string | null
  readonly round: number | null
  readonly sample: number | null
  readonly policy: string | null
  readonly step_count: number | null
  readonly outcome: string | null
  readonly infra_error: string | null
  readonly verdict: string | null
  readonly path: string | null
}

export interface NodeRow {
  readonly task_id: string
  readonly node_id: string
  readonly lf_id: string | null
  readonly description: string | null
  readonly action_kind: string | null
  readonly role: string | null
  readonly name: string | null
  readonly value: string | null
  readonly url_pattern: string | null
  readonly source_kind: string | null
  readonly source_id: string | null
  readonly how: string | null
}

export interface PathRow {
  readonly task_id: string
  readonly path_id: string
  readonly node_ids: string | null
  readonly source_kind: string | null
  readonly source_id: string | null
  readonly signature: string | null
}

export interface LfVerdictRow {
  readonly trajectory_id: string
  readonly lf_id: string
  readonly task_id: string | null
  readonly status: string | null
  readonly satisfied_at: number | null
  readonly error: string | null
  readonly verdict: string | null
}

export interface SealRow {
  readonly round: number
  readonly counts: string | null
  readonly record_count: number | null
  readonly content_digest: string | null
  readonly sealed_at: string | null
}

export interface RecordMeta {
  readonly record_id: string
  readonly round: number | null
  readonly format: string | null
  readonly task_id: string | null
  readonly trajectory_ids: string | null
}

export interface RecordRow extends RecordMeta {
  readonly body: string | null
}

export interface LineageRow {
  readonly child_kind: string
  readonly child_id: string
  readonly relation: string
  readonly parent_kind: string
  readonly parent_id: string
}

export const runsList = (rm: ReadModels) =>
  q(rm, () => rm.db.selectFrom("runs").selectAll().orderBy("started_at", "desc").orderBy("run_id").execute() as Promise<Array<RunRow>>)

export const runRow = (rm: ReadModels, runId: string) =>
  q(rm, () => rm.db.selectFrom("runs").selectAll().where("run_id", "=", runId).executeTakeFirst() as Promise<RunRow | undefined>)

/** Every round, or one run's, in order. */
export const roundsOf = (rm: ReadModels, runId?: string) =>
  q(rm, () => {
    let query = rm.db.selectFrom("rounds").selectAll()
    if (runId !== undefined) query = query.where("run_id", "=", runId)
    return query.orderBy("run_id").orderBy("round").execute() as Promise<Array<RoundRow>>
  })

export interface VerdictCount {
  readonly run_id: string
  readonly round: number | null
  readonly task_id: string | null
  readonly verdict: string | null
  readonly n: number
}

/** Trajectories by run, round, task and verdict (null: recorded, not verified yet). */
export const verdictCounts = (rm: ReadModels, runId?: string) =>
  q(rm, async () => {
    let query = rm.db
      .selectFrom("trajectories")
      .select(["run_id", "round", "task_id", "verdict"])
      .select((eb) => eb.fn.countAll().as("n"))
    if (runId !== undefined) query = query.where("run_id", "=", runId)
    const rows = await query.groupBy(["run_id", "round", "task_id", "verdict"]).execute()
    return rows.map((r): VerdictCount => ({ run_id: r.run_id, round: r.round, task_id: r.task_id, verdict: r.verdict, n: n(r.n) }))
  })

export interface RecordCount {
  readonly run_id: string
  readonly round: number | null
  readonly format: string | null
  readonly n: number
}

export const recordCounts = (rm: ReadModels, runId?: string) =>
  q(rm, async () => {
    let query = rm.db
      .selectFrom("dataset_records")
      .select(["run_id", "round", "format"])
      .select((eb) => eb.fn.countAll().as("n"))
    if (runId !== undefined) query = query.where("run_id", "=", runId)
    const rows = await query.groupBy(["run_id", "round", "format"]).orderBy("run_id").orderBy("round").orderBy("format").execute()
    return rows.map((r): RecordCount => ({ run_id: r.run_id, round: r.round, format: r.format, n: n(r.n) }))
  })

/** Graph nodes and paths, of every run or one run, of every task or one task. */
export const graphRows = (rm: ReadModels, runId?: string, taskId?: string) =>
  q(rm, async () => {
    let nodes = rm.db.selectFrom("graph_nodes").selectAll()
    let paths = rm.db.selectFrom("graph_paths").selectAll()
    for (const [column, value] of [
      ["run_id", runId],
      ["task_id", taskId]
    ] as const) {
      if (value === undefined) continue
      nodes = nodes.where(column, "=", value)
      paths = paths.where(column, "=", value)
    }
    return {
      nodes: (await nodes.orderBy("recorded_at").orderBy("node_id").execute()) as Array<NodeRow & { run_id: string }>,
      paths: (await paths.orderBy("recorded_at").orderBy("path_id").execute()) as Array<PathRow & { run_id: string }>
    }
  })

const graphNode = (r: NodeRow): GraphNode => ({
  nodeId: r.node_id,
  lfId: r.lf_id ?? "",
  description: r.description ?? "",
  semanticKey: {
    actionKind: (r.action_kind ?? "click") as GraphNode["semanticKey"]["actionKind"],
    role: r.role,
    name: r.name,
    value: r.value,
    urlPattern: r.url_pattern
  },
  how: (r.how ?? "demo") as GraphNode["how"],
  source: { kind: r.source_kind === "trajectory" ? "trajectory" : "demo", id: r.source_id ?? "" }
})

const graphPath = (r: PathRow): GraphPath => ({
  pathId: r.path_id,
  nodeIds: parseJson<ReadonlyArray<string>>(r.node_ids, []),
  source: { kind: r.source_kind === "trajectory" ? "trajectory" : "demo", id: r.source_id ?? "" }
})

/** The read model's rows as the domain's graphs, by run then task: what `distinctPaths` and `pathSignature` take. */
export const graphsFromRows = (rows: {
  readonly nodes: ReadonlyArray<NodeRow & { readonly run_id: string }>
  readonly paths: ReadonlyArray<PathRow & { readonly run_id: string }>
}): ReadonlyMap<string, ReadonlyMap<string, StrategyGraph>> => {
  const out = new Map<string, Map<string, { taskId: string; nodes: Array<GraphNode>; paths: Array<GraphPath> }>>()
  const graphOf = (runId: string, taskId: string) => {
    const byTask = out.get(runId) ?? new Map()
    out.set(runId, byTask)
    const g = byTask.get(taskId) ?? { taskId, nodes: [], paths: [] }
    byTask.set(taskId, g)
    return g
  }
  for (const r of rows.nodes) graphOf(r.run_id, r.task_id).nodes.push(graphNode(r))
  for (const r of rows.paths) graphOf(r.run_id, r.task_id).paths.push(graphPath(r))
  return out
}

/** Every run's graphs (or one run's), from the read model. */
export const graphsOfRuns = (rm: ReadModels, runId?: string) => Effect.map(graphRows(rm, runId), graphsFromRows)

export const tasksByIds = (rm: ReadModels, ids: ReadonlyArray<string>) =>
  ids.length === 0
    ? Effect.succeed([] as Array<TaskRow>)
    : q(
        rm,
        () =>
          rm.db
            .selectFrom("tasks")
            .selectAll()
            .where("task_id", "in", [...ids])
            .execute() as Promise<Array<TaskRow>>
      )

export const extrapolatedTasks = (rm: ReadModels, runId?: string) =>
  q(rm, () => {
    let query = rm.db.selectFrom("tasks").selectAll().where("origin", "=", "extrapolated")
    if (runId !== undefined) query = query.where("run_id", "=", runId)
    return query.orderBy("registered_at").orderBy("task_id").execute() as Promise<Array<TaskRow>>
  })

export const lineageOf = (rm: ReadModels, runId: string, childKind: string) =>
  q(
    rm,
    () =>
      rm.db
        .selectFrom("lineage")
        .selectAll()
        .where("run_id", "=", runId)
        .where("child_kind", "=", childKind)
        .orderBy("child_id")
        .execute() as Promise<Array<LineageRow>>
  )

export const sealsOf = (rm: ReadModels, runId: string) =>
  q(
    rm,
    () => rm.db.selectFrom("dataset_seals").selectAll().where("run_id", "=", runId).orderBy("round").execute() as Promise<Array<SealRow>>
  )

export const trajectoriesOf = (rm: ReadModels, runId: string, filter: { readonly verdict?: string; readonly taskId?: string } = {}) =>
  q(rm, () => {
    let query = rm.db.selectFrom("trajectories").selectAll().where("run_id", "=", runId)
    if (filter.verdict !== undefined) query = query.where("verdict", "=", filter.verdict)
    if (filter.taskId !== undefined) query = query.where("task_id", "=", filter.taskId)
    return query.orderBy("round").orderBy("task_id").orderBy("trajectory_id").execute() as Promise<Array<TrajectoryRow>>
  })

/** One label function's verdicts in a run, with each trajectory's label. */
export const lfVerdictsOf = (rm: ReadModels, runId: string, lfId: string) =>
  q(
    rm,
    () =>
      rm.db
        .selectFrom("lf_verdicts as v")
        .leftJoin("trajectories as t", (j) => j.onRef("t.run_id", "=", "v.run_id").onRef("t.trajectory_id", "=", "v.trajectory_id"))
        .select(["v.trajectory_id", "v.lf_id", "v.task_id", "v.status", "v.satisfied_at", "v.error", "t.verdict"])
        .where("v.run_id", "=", runId)
        .where("v.lf_id", "=", lfId)
        .orderBy("v.trajectory_id")
        .execute() as Promise<Array<LfVerdictRow>>
  )

export const nodesWithLf = (rm: ReadModels, runId: string, lfId: string) =>
  q(
    rm,
    () =>
      rm.db
        .selectFrom("graph_nodes")
        .selectAll()
        .where("run_id", "=", runId)
        .where("lf_id", "=", lfId)
        .orderBy("task_id")
        .orderBy("node_id")
        .execute() as Promise<Array<NodeRow>>
  )

export interface RecordFilter {
  readonly round?: number
  readonly format?: string
  /** A trajectory the record was made from (its lineage edge). */
  readonly trajectory?: string
}

/** Records without their bodies, in round, format and id order. */
export const recordsOf = (rm: ReadModels, runId: string, filter: RecordFilter) =>
  q(rm, () => {
    let query = rm.db
      .selectFrom("dataset_records as r")
      .select(["r.record_id", "r.round", "r.format", "r.task_id", "r.trajectory_ids"])
      .where("r.run_id", "=", runId)
    if (filter.round !== undefined) query = query.where("r.round", "=", filter.round)
    if (filter.format !== undefined) query = query.where("r.format", "=", filter.format)
    if (filter.trajectory !== undefined) {
      const trajectory = filter.trajectory
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom("lineage as l")
            .select("l.child_id")
            .whereRef("l.run_id", "=", "r.run_id")
            .where("l.child_kind", "=", "dataset_record")
            .whereRef("l.child_id", "=", "r.record_id")
            .where("l.parent_kind", "=", "trajectory")
            .where("l.parent_id", "=", trajectory)
        )
      )
    }
    return query.orderBy("r.round").orderBy("r.format").orderBy("r.record_id").execute() as Promise<Array<RecordMeta>>
  })

export const recordOf = (rm: ReadModels, runId: string, recordId: string) =>
  q(
    rm,
    () =>
      rm.db
        .selectFrom("dataset_records")
        .select(["record_id", "round", "format", "task_id", "trajectory_ids", "body"])
        .where("run_id", "=", runId)
        .where("record_id", "=", recordId)
        .executeTakeFirst() as Promise<RecordRow | undefined>
  )

/** Does the read model know the run at all (started, or any round or trajectory of it)? */
export const runKnown = (rm: ReadModels, runId: string) =>
  q(rm, async () => {
    for (const table of ["runs", "rounds", "trajectories"]) {
      const hit = await rm.db.selectFrom(table).select("run_id").where("run_id", "=", runId).limit(1).executeTakeFirst()
      if (hit !== undefined) return true
    }
    return false
  })
