/**
 * A run's figures from the read models, as the runs list and the comparison show them:
 * rounds and status, trajectories by verdict, tasks, strategy-graph paths per task counted by
 * meaning (`distinctPaths` over the projected graph, so two paths with one label-function
 * sequence count once), and dataset records by format.
 */
import { Effect } from "effect"
import { distinctPaths } from "@core/domain"
import type { ReadModels } from "@core/projections"
import type { RoundRow, RunRow, TaskRow } from "../Queries.ts"
import { extrapolatedTasks, graphsOfRuns, parseJson, recordCounts, roundsOf, runsList, tasksByIds, verdictCounts } from "../Queries.ts"
import type { VERDICTS } from "./shared.ts"

export type VerdictTally = Readonly<Record<(typeof VERDICTS)[number] | "unverified", number>>

export interface RunFigures {
  readonly runId: string
  readonly run: RunRow | null
  readonly rounds: ReadonlyArray<RoundRow>
  readonly status: string
  /** The sites (or Android apps) of the run's tasks. */
  readonly apps: ReadonlyArray<string>
  readonly verdicts: VerdictTally
  readonly trajectories: number
  readonly tasks: ReadonlyArray<string>
  /** Distinct paths by meaning, per task that has a graph. */
  readonly pathsByTask: ReadonlyMap<string, number>
  readonly paths: number
  readonly records: Readonly<Record<string, number>>
  readonly recordTotal: number
  readonly extrapolated: number
}

const emptyTally = (): Record<keyof VerdictTally, number> => ({ pass: 0, partial: 0, fail: 0, "infra-error": 0, unverified: 0 })

/** Where a run stands by its rounds: the read model cannot tell a running round from an interrupted one. */
export const statusOf = (rounds: ReadonlyArray<RoundRow>): string => {
  if (rounds.length === 0) return "started, no round yet"
  const open = rounds.filter((r) => r.status !== "completed")
  if (open.length > 0) return `round ${open.at(-1)!.round} started, not completed`
  const trained = rounds.some((r) => r.checkpoint !== null)
  return `completed${trained ? ", trained" : ""}`
}

const appsOf = (tasks: ReadonlyArray<TaskRow>): ReadonlyArray<string> =>
  [...new Set(tasks.flatMap((t) => [t.app ?? t.site].filter((x): x is string => x !== null && x !== "")))].sort()

/** The figures of every run the read models know (newest first), or of the runs named. */
export const runFigures = (rm: ReadModels, only?: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const runRows = yield* runsList(rm)
    const rounds = yield* roundsOf(rm)
    const verdicts = yield* verdictCounts(rm)
    const records = yield* recordCounts(rm)
    const graphs = yield* graphsOfRuns(rm)
    const extrapolated = yield* extrapolatedTasks(rm)
    const ids = [...new Set([...runRows.map((r) => r.run_id), ...rounds.map((r) => r.run_id), ...verdicts.map((v) => v.run_id)])]
    const wanted = only === undefined ? ids : ids.filter((id) => only.includes(id))
    const perRun = wanted.map((runId) => {
      const runRounds = rounds.filter((r) => r.run_id === runId)
      const runVerdicts = verdicts.filter((v) => v.run_id === runId)
      const runGraphs = graphs.get(runId) ?? new Map()
      const runExtrapolated = extrapolated.filter((t) => t.run_id === runId)
      const taskIds = [
        ...new Set([
          ...runRounds.flatMap((r) => parseJson<ReadonlyArray<string>>(r.task_ids, [])),
          ...runVerdicts.flatMap((v) => (v.task_id === null ? [] : [v.task_id])),
          ...runGraphs.keys(),
          ...runExtrapolated.map((t) => t.task_id)
        ])
      ].sort()
      const tally = emptyTally()
      for (const v of runVerdicts) tally[v.verdict !== null && v.verdict in tally ? (v.verdict as keyof VerdictTally) : "unverified"] += v.n
      const pathsByTask = new Map([...runGraphs].map(([task, g]) => [task, distinctPaths(g)] as const))
      const byFormat: Record<string, number> = {}
      for (const r of records.filter((x) => x.run_id === runId)) byFormat[r.format ?? "?"] = (byFormat[r.format ?? "?"] ?? 0) + r.n
      return { runId, runRounds, runVerdicts, runExtrapolated, taskIds, tally, pathsByTask, byFormat }
    })
    // One query for every run's tasks, not one per run.
    const taskRows = yield* tasksByIds(rm, [...new Set(perRun.flatMap((r) => r.taskIds))])
    const taskById = new Map(taskRows.map((t) => [t.task_id, t]))
    return perRun.map(
      ({ runId, runRounds, runVerdicts, runExtrapolated, taskIds, tally, pathsByTask, byFormat }): RunFigures => ({
        runId,
        run: runRows.find((r) => r.run_id === runId) ?? null,
        rounds: runRounds,
        status: statusOf(runRounds),
        apps: appsOf(taskIds.flatMap((id) => taskById.get(id) ?? [])),
        verdicts: tally,
        trajectories: runVerdicts.reduce((k, v) => k + v.n, 0),
        tasks: taskIds,
        pathsByTask,
        paths: [...pathsByTask.values()].reduce((k, x) => k + x, 0),
        records: byFormat,
        recordTotal: Object.values(byFormat).reduce((k, x) => k + x, 0),
        extrapolated: runExtrapolated.length
      })
    )
  })
