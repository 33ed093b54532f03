/**
 * A run's ground truth: what the app judged of each episode (a bundled site's checker, a
 * pack's `evaluate`), by trajectory id. Measurement only, so it is kept beside the log,
 * never in it, in `<dataDir>/eval/run-<id>-ground-truth.json`. The engine writes it as each
 * episode is judged and a resumed run starts from it, so an interrupted run loses none.
 *
 * @example
 * writeGroundTruth(groundTruthFile(dataDir, runId), judged)
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { EpisodeJudgement } from "./RunApp.ts"

/** Where a run's judgements are kept. */
export const groundTruthFile = (dataDir: string, runId: string): string => join(dataDir, "eval", `run-${runId}-ground-truth.json`)

/** Through a temporary name and a rename: a crash leaves the old file or the new one, never half of one. */
export const writeGroundTruth = (file: string, judged: ReadonlyMap<string, EpisodeJudgement>): void => {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(`${file}.tmp`, JSON.stringify(Object.fromEntries(judged)))
  renameSync(`${file}.tmp`, file)
}

/** The judgements a run kept so far; none when it has no file yet, or an unreadable one (the judgements are measurement, not the run). */
export const readGroundTruth = (file: string): ReadonlyArray<readonly [string, EpisodeJudgement]> => {
  if (!existsSync(file)) return []
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>
    return Object.entries(parsed).flatMap(([id, v]) => {
      const j = v as { success?: unknown; reason?: unknown } | null
      return typeof j?.success === "boolean" && typeof j.reason === "string"
        ? [[id, { success: j.success, reason: j.reason }] as const]
        : []
    })
  } catch {
    return []
  }
}
