/**
 * A run's ground truth: what the app judged of each episode (a bundled site's checker, a
 * pack's `evaluate`), by trajectory id. Measurement only, so it is kept beside the log,
 * never in it, in `<dataDir>/eval/run-<id>-ground-truth.json`. Evaluation passes the run
 * `groundTruthFiles`: the run tells it every judgement as each episode is judged and a
 * resumed run starts from it, so an interrupted run loses none.
 *
 * @example
 * yield* executeRun(config, layer, { ...plan, groundTruth: groundTruthFiles(dataDir) }, app, progress)
 * const judged = yield* readGroundTruth(groundTruthFile(dataDir, runId)) // null: none kept yet
 */
import { Effect, Schema } from "effect"
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { EpisodeJudgement } from "@core/pipeline"
import type { GroundTruthSink } from "./RunPlan.ts"

/** A ground-truth file that is there but does not read as one. */
export class GroundTruthUnreadable extends Schema.TaggedError<GroundTruthUnreadable>()("GroundTruthUnreadable", {
  message: Schema.String
}) {}

/** Where a run's judgements are kept. */
export const groundTruthFile = (dataDir: string, runId: string): string => join(dataDir, "eval", `run-${runId}-ground-truth.json`)

/** Through a temporary name and a rename: a crash leaves the old file or the new one, never half of one. */
export const writeGroundTruth = (file: string, judged: ReadonlyMap<string, EpisodeJudgement>): void => {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(`${file}.tmp`, JSON.stringify(Object.fromEntries(judged)))
  renameSync(`${file}.tmp`, file)
}

const Judgements = Schema.Record(Schema.String, Schema.Struct({ success: Schema.Boolean, reason: Schema.String }))
const decodeJudgements = Schema.decodeUnknownSync(Judgements)

/** The judgements a run kept so far; null when it has no file yet (a run stopped before its first judgement). */
export const readGroundTruth = (file: string): Effect.Effect<ReadonlyMap<string, EpisodeJudgement> | null, GroundTruthUnreadable> =>
  Effect.try({
    try: () => (existsSync(file) ? new Map(Object.entries(decodeJudgements(JSON.parse(readFileSync(file, "utf8"))))) : null),
    catch: (e) =>
      new GroundTruthUnreadable({
        message: `${file} is not a run's ground-truth file: ${String(e instanceof Error ? e.message : e).split("\n")[0]}`
      })
  })

/** A run's judgements kept in its file under `<dataDir>/eval`; an unreadable file is read as none (it costs only measurement). */
export const groundTruthFiles = (dataDir: string): GroundTruthSink => ({
  kept: (runId) => readGroundTruth(groundTruthFile(dataDir, runId)).pipe(Effect.orElseSucceed(() => null)),
  judged: (runId, judged) => writeGroundTruth(groundTruthFile(dataDir, runId), judged)
})
