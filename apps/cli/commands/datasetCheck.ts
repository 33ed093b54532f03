/**
 * `bun core dataset check --run R [--json]`: the run's dataset records (its
 * DatasetRecordEmitted events) against the checks of libs/datasets DatasetCheck.ts; the problems found,
 * and exit 1 when there are any. Rules: docs/datasets.md, "Checking a dataset".
 */
import { Effect } from "effect"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import { commonConfigFlags } from "../ConfigFlags.ts"
import { checkDataset, readDatasetToCheck } from "@core/datasets"
import { isToken, runExists, unknownRun } from "@core/engine"
import { openStore } from "@core/run"

export const datasetCheck: Command<Failure> = {
  name: "dataset check",
  summary: "check a run's dataset records (screens in sft records, closing pseudo-demos, credited dpo pairs); exit 1 on problems",
  flags: {
    run: { kind: "string", description: "the run whose records to check (required)" },
    json: { kind: "boolean", description: "print { run, records, checked, problems, warnings } on stdout" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      const run = args.flags.run
      if (typeof run !== "string" || run === "")
        return yield* new UsageError({ message: "--run is required; see 'bun core dataset check --help'" })
      if (!isToken(run))
        return yield* new UsageError({ message: `--run ${JSON.stringify(run)} is not a run id (letters, digits, '-' and '_')` })
      const opened = yield* openStore(args)
      const { records, pseudoDemos } = yield* Effect.provide(
        Effect.gen(function* () {
          const read = yield* readDatasetToCheck(run)
          if (read.records.length === 0) {
            if (!(yield* runExists(run))) return yield* unknownRun(run)
            return yield* new CliError({ message: `run ${run} has no dataset records yet (none under run.${run}.dataset.*)` })
          }
          return read
        }),
        opened.layer
      )
      const report = checkDataset(records, pseudoDemos)
      const legacy = report.warnings["dpo-uncredited-legacy"]
      if (args.flags.json === true) {
        console.log(
          JSON.stringify({ run, records: records.length, checked: report.checked, problems: report.problems, warnings: report.warnings })
        )
      } else {
        const { sft, dpo, rollout } = report.checked
        console.log(
          `run ${run}: ${records.length} records (sft ${sft}, dpo ${dpo}, rollout ${rollout}), ${report.problems.length} problem${report.problems.length === 1 ? "" : "s"}`
        )
        for (const p of report.problems) console.log(`${p.recordId.slice(0, 12)}  ${p.format.padEnd(7)} ${p.rule.padEnd(18)} ${p.detail}`)
        if (legacy > 0)
          console.log(`warning: ${legacy} dpo records predate credit rule 2 (dpo-uncredited-legacy): their credit is not checked`)
      }
      if (report.problems.length > 0) {
        const rules = [...new Set(report.problems.map((p) => p.rule))].join(", ")
        return yield* new CliError({
          message: `${report.problems.length} problem${report.problems.length === 1 ? "" : "s"} in run ${run}'s dataset (${rules})`
        })
      }
    })
}
