/**
 * A run on the bundled sites, as `run`, `demo` and `eval --report` start it: the sites as the
 * run's app for the run's lifetime, the engine's progress told to the caller's `progress`,
 * and what the metrics need back (the suite tasks, with their path families).
 *
 * @example
 * const outcome = yield* runOnBundledSites(config, storeLayer, { ...plan, tasks }, progress)
 */
import { Effect } from "effect"
import type { Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { LoadedConfig } from "@core/config"
import type { EventStore } from "@core/eventstore"
import { executeRun, groundTruthFiles } from "@core/run"
import type { RunPlan, RunProgress } from "@core/run"
import { bundledApp, runTaskOf } from "../app/mod.ts"
import type { SuiteTask } from "../suites/mod.ts"

export interface BundledPlan extends Omit<RunPlan, "tasks"> {
  readonly tasks: ReadonlyArray<SuiteTask>
}

export const runOnBundledSites = <LE>(
  config: LoadedConfig,
  layer: Layer.Layer<EventStore | BlobStore, LE>,
  plan: BundledPlan,
  progress: RunProgress
) =>
  Effect.gen(function* () {
    const app = yield* bundledApp()
    // The sites' judgements are kept for `bun core metrics`, beside the log.
    const groundTruth = groundTruthFiles(config.values.dataDir)
    const outcome = yield* executeRun(config, layer, { ...plan, tasks: plan.tasks.map(runTaskOf), groundTruth }, app, progress)
    return { ...outcome, tasks: plan.tasks }
  }).pipe(Effect.scoped)
