/**
 * `bun core metrics <run> [--json]`: a logged run's metrics — the figures `run` and `demo`
 * print at the end — re-derived from its events and the ground truth it kept beside the log
 * (libs/evaluation LoggedRunMetrics.ts), for a run whose output is gone, or ran elsewhere on the same store.
 */
import { Effect } from "effect"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { UsageError } from "../Cli.ts"
import { commonConfigFlags } from "../ConfigFlags.ts"
import { loggedRunMetrics } from "@core/evaluation"
import { metricsLines } from "@core/evaluation"
import { openStore } from "@core/run"

export const metrics: Command<Failure> = {
  name: "metrics",
  summary: "a logged run's metrics (what run printed), re-derived from its events and its ground-truth file",
  positionals: ["run"],
  flags: {
    json: { kind: "boolean", description: "print one JSON object, as run --json does (without its seconds)" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      const [runId, ...rest] = args.positionals
      if (runId === undefined || rest.length > 0)
        return yield* new UsageError({ message: "metrics takes one run id: bun core metrics <run> [--json]" })
      const opened = yield* openStore(args)
      const derived = yield* Effect.provide(loggedRunMetrics(runId, opened.config.values.dataDir), opened.layer)
      if (derived.groundTruth.judged === null)
        console.error(`metrics: no ${derived.groundTruth.file} (the run did not end here): the figures against ground truth are empty`)
      if (derived.unknownTasks.length > 0)
        console.error(`metrics: the bundled suites no longer have ${derived.unknownTasks.join(", ")}: counted without path families`)
      if (args.flags.json === true) console.log(JSON.stringify(derived.metrics))
      else console.log(metricsLines(derived.metrics, null).join("\n"))
    })
}
