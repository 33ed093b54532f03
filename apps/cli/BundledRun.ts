/**
 * A run on the bundled sites, as `run`, `demo` and `eval --report` start it: the sites as the
 * run's app for the run's lifetime, the engine's progress drawn on stderr, and what the
 * metrics need back (the suite tasks, with their path families).
 */
import { Effect } from "effect"
import type { Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { LoadedConfig } from "@core/config"
import type { EventStore } from "@core/eventstore"
import { executeRun, groundTruthFiles } from "@core/run"
import type { RunPlan } from "@core/run"
import { bundledApp, runTaskOf } from "@core/sites/app"
import type { SuiteTask } from "@core/sites/suites"
import { Progress } from "./Progress.ts"
import type { RunMetricsInput } from "@core/evaluation"

export interface BundledPlan extends Omit<RunPlan, "tasks"> {
  readonly tasks: ReadonlyArray<SuiteTask>
}

export const runOnBundledSites = <LE>(config: LoadedConfig, layer: Layer.Layer<EventStore | BlobStore, LE>, plan: BundledPlan) =>
  Effect.gen(function* () {
    const app = yield* bundledApp()
    // The sites' judgements are kept for `bun core metrics`, beside the log.
    const groundTruth = groundTruthFiles(config.values.dataDir)
    const outcome = yield* executeRun(
      config,
      layer,
      { ...plan, tasks: plan.tasks.map(runTaskOf), groundTruth },
      app,
      new Progress(plan.command)
    )
    return { ...outcome, tasks: plan.tasks } satisfies RunMetricsInput & { readonly seconds: number }
  }).pipe(Effect.scoped)
