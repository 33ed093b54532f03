/**
 * EVALUATION of a pack run (`eval labels --app <dir> --run R`): the run's verdicts against
 * the pack's `evaluate`, which the engine asked at each episode's end and kept beside the
 * log (`<dataDir>/eval/run-<id>-ground-truth.json`). Precision, recall, agreement and
 * predicted passes, per task and overall. Without --run, the label functions inferred from
 * each train demo alone against alternative step files (PackLabels.ts).
 *
 * @example
 * const { app, scores } = yield* packRunAgreement("packs/myapp", runId, config.values.dataDir) // needs EventStore
 * const report = yield* packLabelReport("packs/myapp", secrets, console.error)
 */
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { loadPack } from "@core/apps"
import type { SecretRule } from "@core/apps"
import { agreementOf } from "@core/pipeline"
import { readRunLog } from "@core/engine"
import { EvalError } from "./EvalError.ts"
import { packLabelScores } from "./PackLabels.ts"

/** The pack run's verdicts against the pack's `evaluate`, per task and overall. */
export const packRunAgreement = (appDir: string, runId: string, dataDir: string) =>
  Effect.gen(function* () {
    const pack = yield* loadPack(appDir).pipe(Effect.mapError((e) => new EvalError({ message: e.message })))
    if (pack.config.evaluate === null)
      return yield* new EvalError({ message: `the pack ${pack.config.name} has no evaluate command: nothing to compare the verdicts with` })
    const file = join(dataDir, "eval", `run-${runId}-ground-truth.json`)
    if (!existsSync(file))
      return yield* new EvalError({
        message: `${file} not found: the run's judgements are written there when it ends (was run ${runId} started here, with --app?)`
      })
    const judged = new Map(Object.entries(JSON.parse(readFileSync(file, "utf8")) as Record<string, { success: boolean }>))
    const { events } = yield* readRunLog(runId).pipe(
      Effect.mapError((e) => new EvalError({ message: e instanceof Error ? e.message : String(e) }))
    )
    return { app: pack.config.name, scores: agreementOf(events, judged) }
  })

/** `eval labels --app <dir>` without a run: LFs from each train demo (alone, or as a round 0 judges), judged on other ways to do the task. */
export const packLabelReport = (appDir: string, secrets: SecretRule, progress: (line: string) => void, round0 = false) =>
  Effect.gen(function* () {
    const started = Date.now()
    const { score, labels } = yield* packLabelScores(appDir, secrets, progress, round0).pipe(
      Effect.mapError((e) => new EvalError({ message: e instanceof Error ? e.message : String(e) }))
    )
    return {
      app: appDir,
      trajectories: score.trajectories,
      positives: score.positives,
      tp: score.tp,
      fp: score.fp,
      tn: score.tn,
      fn: score.fn,
      precision: score.precision,
      recall: score.recall,
      recall_other_paths: score.recall_other_paths,
      recall_other_methods: score.recall_other_methods,
      npv: score.npv,
      kappa: score.kappa,
      predicted_pass: score.tp + score.fp,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      mistakes: labels.filter((l) => l.pass !== l.checker).map((l) => ({ id: l.id, checker: l.checker, pass: l.pass }))
    }
  })
