/**
 * EVALUATION of a pack run (`eval labels --app <dir> --run R`): the run's verdicts against
 * the pack's `evaluate`, which the engine asked at each episode's end and kept beside the
 * log (`<dataDir>/eval/run-<id>-ground-truth.json`). Precision, recall, agreement and
 * predicted passes, per task and overall. Without --run, the label functions inferred from
 * each train demo alone against alternative step files (eval/PackLabels.ts).
 */
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { loadPack } from "@core/apps"
import { loadConfig } from "@core/config"
import { agreementOf } from "@core/pipeline"
import type { AgreementScores } from "@core/pipeline"
import { readRunLog } from "@core/engine"
import type { ParsedArgs } from "./Cli.ts"
import { CliError } from "./Cli.ts"
import { openStore } from "./Store.ts"
import { packLabelScores } from "./eval/PackLabels.ts"
import { packSecretRule } from "./PackSecrets.ts"

const fmt = (x: number | null): string => (x === null ? "—" : x.toFixed(3))
const row = (name: string, s: AgreementScores): string =>
  `${name.padEnd(36)} ${String(s.judged).padStart(6)}  ${String(s.predicted_pass).padStart(9)}  ${String(s.novel_predicted_pass).padStart(5)}  ${fmt(s.precision)}  ${fmt(s.recall)}  ${fmt(s.agreement)}`

export const evalPackRun = (args: ParsedArgs, appDir: string) =>
  Effect.gen(function* () {
    const runId = args.flags.run as string | undefined
    if (runId === undefined) return yield* packLabels(args, appDir)
    const pack = yield* loadPack(appDir).pipe(Effect.mapError((e) => new CliError({ message: e.message })))
    if (pack.config.evaluate === null)
      return yield* new CliError({ message: `the pack ${pack.config.name} has no evaluate command: nothing to compare the verdicts with` })
    const opened = yield* openStore(args, { quiet: args.flags.json === true })
    const file = join(opened.config.values.dataDir, "eval", `run-${runId}-ground-truth.json`)
    if (!existsSync(file))
      return yield* new CliError({
        message: `${file} not found: the run's judgements are written there when it ends (was run ${runId} started here, with --app?)`
      })
    const judged = new Map(Object.entries(JSON.parse(readFileSync(file, "utf8")) as Record<string, { success: boolean }>))
    const { events } = yield* Effect.provide(readRunLog(runId), opened.layer).pipe(
      Effect.mapError((e) => new CliError({ message: e instanceof Error ? e.message : String(e) }))
    )
    const scores = agreementOf(events, judged)
    if (args.flags.json === true) {
      console.log(JSON.stringify({ run_id: runId, app: pack.config.name, ...scores.overall, per_task: scores.per_task }))
      return
    }
    console.log(`${"task".padEnd(36)} judged  predicted  novel  prec   recall agreement`)
    for (const [task, s] of Object.entries(scores.per_task)) console.log(row(task, s))
    console.log(row("all", scores.overall))
  })

/** `eval labels --app <dir>` without a run: LFs from each train demo, judged on other ways to do the task. */
const packLabels = (args: ParsedArgs, appDir: string) =>
  Effect.gen(function* () {
    const started = Date.now()
    const config = yield* loadConfig({ flags: args.flags }).pipe(Effect.mapError((e) => new CliError({ message: e.message })))
    const secrets = packSecretRule(config, args)
    const { score, labels } = yield* packLabelScores(appDir, secrets, (line) => console.error(`eval: ${line}`)).pipe(
      Effect.mapError((e) => new CliError({ message: e instanceof Error ? e.message : String(e) }))
    )
    const report = {
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
      predicted_pass: score.tp + score.fp,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      mistakes: labels.filter((l) => l.pass !== l.checker).map((l) => ({ id: l.id, checker: l.checker, pass: l.pass }))
    }
    if (args.flags.json === true) console.log(JSON.stringify(report))
    else {
      console.log(
        `${report.trajectories} trajectories (${report.positives} passing the pack's evaluate); tp ${report.tp}  fp ${report.fp}  tn ${report.tn}  fn ${report.fn}`
      )
      console.log(
        `precision ${fmt(report.precision)}  recall ${fmt(report.recall)} (other paths ${fmt(report.recall_other_paths)}, other methods ${fmt(report.recall_other_methods)})`
      )
      for (const m of report.mistakes) console.log(`  ${m.pass ? "false positive" : "false negative"}: ${m.id}`)
    }
  })
