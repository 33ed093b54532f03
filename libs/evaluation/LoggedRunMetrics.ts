/**
 * A logged run's metrics, re-derived: the run's own events (`run.<id>.>`) and the judgements
 * the engine kept beside the log (`<dataDir>/eval/run-<id>-ground-truth.json`, EVALUATION:
 * the checkers' or a pack's `evaluate` verdict on each episode it played) through
 * `runMetrics` — the figures `run` printed when the run ended.
 *
 * The file is the only record of those judgements (they never enter the log); the engine
 * writes it as each episode is judged, and a resumed run starts from it.
 *
 * @example
 * const { metrics } = yield* loggedRunMetrics(runId, config.values.dataDir) // needs EventStore
 */
import { Effect, Stream } from "effect"
import { joinLines, messageOf } from "@core/events"
import { EventStore } from "@core/eventstore"
import { runConfigOf } from "@core/pipeline"
import { groundTruthFile, readGroundTruth } from "@core/run"
import { loadSuites } from "@core/sites/suites"
import { EvalError } from "./EvalError.ts"
import { runMetrics } from "./RunMetrics.ts"
import type { RunMetrics, RunMetricsInput } from "./RunMetrics.ts"

export interface LoggedRunMetrics {
  readonly metrics: RunMetrics
  /** The judgements read, or null when the run has no ground-truth file (its figures against ground truth are then empty). */
  readonly groundTruth: { readonly file: string; readonly judged: number | null }
  /** The run's tasks the bundled suites no longer list (counted without path families). */
  readonly unknownTasks: ReadonlyArray<string>
}

const oneLine = (error: unknown): string => joinLines(messageOf(error))

/** A run id is one subject token: no dots, no wildcards. */
const isToken = (s: string): boolean => /^[A-Za-z0-9_-]+$/.test(s)

const unknownRun = (runId: string): EvalError =>
  new EvalError({
    message: isToken(runId)
      ? `run ${runId} not found: no events under run.${runId}.> (bun core run starts one)`
      : `${JSON.stringify(runId)} is not a run id (letters, digits, '-' and '_')`
  })

/** The run's metrics from its events and its ground-truth file; a one-line error for a run that is not a CORE run. */
export const loggedRunMetrics = (runId: string, dataDir: string) =>
  Effect.gen(function* () {
    if (!isToken(runId)) return yield* unknownRun(runId)
    const store = yield* EventStore
    const events = [...(yield* Stream.runCollect(store.readAll({ filter: `run.${runId}.>` })))]
      .sort((a, b) => a.position - b.position || a.index - b.index)
      .map((r) => r.event)
    if (events.length === 0) return yield* unknownRun(runId)
    const started = events.find((e) => e.type === "RunStarted")
    if (started === undefined || started.type !== "RunStarted")
      return yield* new EvalError({ message: `run ${runId} has no RunStarted event: not a run bun core run or demo started` })
    // `demo --round-trip` and `infer` log runs too; only the engine's runs have rollouts to measure.
    if (started.data.command !== "run")
      return yield* new EvalError({
        message: `run ${runId} is not a CORE round (its RunStarted says '${started.data.command}', e.g. demo --round-trip or infer): it has no metrics`
      })
    const config = yield* Effect.try({
      try: () => runConfigOf(started.data.config),
      catch: (e) => new EvalError({ message: `run ${runId}: its RunStarted config does not read: ${oneLine(e)}` })
    })
    // A pack's tasks list no path families (RunMetrics counts them as without alternatives), so their ids are all a pack run needs.
    let tasks: RunMetricsInput["tasks"] = config.tasks.map((id) => ({ id }))
    const unknownTasks: Array<string> = []
    if (typeof started.data.config["run.appDir"] !== "string") {
      const suites = yield* loadSuites().pipe(Effect.mapError((e) => new EvalError({ message: e.message })))
      const byId = new Map(suites.flatMap((s) => s.tasks).map((t) => [t.id, t]))
      tasks = config.tasks.map((id) => byId.get(id) ?? (unknownTasks.push(id), { id }))
    }
    const file = groundTruthFile(dataDir, runId)
    const groundTruth = yield* readGroundTruth(file).pipe(Effect.mapError((e) => new EvalError({ message: e.message })))
    const metrics = yield* Effect.try({
      try: () => runMetrics({ runId, events, groundTruth: groundTruth ?? new Map(), tasks }),
      catch: (e) => new EvalError({ message: `run ${runId}: its strategy graphs do not fold: ${oneLine(e)}` })
    })
    return {
      metrics,
      groundTruth: { file, judged: groundTruth === null ? null : groundTruth.size },
      unknownTasks
    } satisfies LoggedRunMetrics
  })
