/**
 * EVALUATION of a pack run (`eval labels --app <dir> --run R`): the run's verdicts against
 * the pack's `evaluate`, which the engine asked at each episode's end and kept beside the
 * log (`<dataDir>/eval/run-<id>-ground-truth.json`). Precision, recall, agreement and
 * predicted passes, per task and overall.
 */
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { loadPack } from "@core/apps"
import { agreementOf } from "@core/pipeline"
import type { AgreementScores } from "@core/pipeline"
import { readRunLog } from "@core/replay"
import type { ParsedArgs } from "./Cli.ts"
import { CliError, UsageError } from "./Cli.ts"
import { openStore } from "./Store.ts"

const fmt = (x: number | null): string => (x === null ? "—" : x.toFixed(3))
const row = (name: string, s: AgreementScores): string =>
  `${name.padEnd(36)} ${String(s.judged).padStart(6)}  ${String(s.predicted_pass).padStart(9)}  ${String(s.novel_predicted_pass).padStart(5)}  ${fmt(s.precision)}  ${fmt(s.recall)}  ${fmt(s.agreement)}`

export const evalPackRun = (args: ParsedArgs, appDir: string) =>
  Effect.gen(function*() {
    const runId = args.flags.run as string | undefined
    if (runId === undefined) return yield* new UsageError({ message: "eval labels --app needs --run <id>: the run whose verdicts are compared with the pack's evaluate" })
    const pack = yield* loadPack(appDir).pipe(Effect.mapError((e) => new CliError({ message: e.message })))
    if (pack.config.evaluate === null) return yield* new CliError({ message: `the pack ${pack.config.name} has no evaluate command: nothing to compare the verdicts with` })
    const opened = yield* openStore(args, { quiet: args.flags.json === true })
    const file = join(opened.config.values.dataDir, "eval", `run-${runId}-ground-truth.json`)
    if (!existsSync(file)) return yield* new CliError({ message: `${file} not found: the run's judgements are written there when it ends (was run ${runId} started here, with --app?)` })
    const judged = new Map(Object.entries(JSON.parse(readFileSync(file, "utf8")) as Record<string, { success: boolean }>))
    const { events } = yield* Effect.provide(readRunLog(runId), opened.layer).pipe(Effect.mapError((e) => new CliError({ message: e instanceof Error ? e.message : String(e) })))
    const scores = agreementOf(events, judged)
    if (args.flags.json === true) {
      console.log(JSON.stringify({ run_id: runId, app: pack.config.name, ...scores.overall, per_task: scores.per_task }))
      return
    }
    console.log(`${"task".padEnd(36)} judged  predicted  novel  prec   recall agreement`)
    for (const [task, s] of Object.entries(scores.per_task)) console.log(row(task, s))
    console.log(row("all", scores.overall))
  })
