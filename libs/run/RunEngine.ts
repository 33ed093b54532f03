/**
 * A CORE run end to end, on any app (`RunApp`): `prepareRun` registers the tasks, gives
 * each a demo unless one is ingested already (the app plays it, the run ingests it) and
 * records RunStarted; `liveLayers` gives the deciders their environments, model client and
 * workers; `driveRun` drives the pipeline's deciders — inference → rounds of rollouts →
 * verification → expansion — in real Chromium (or on an Android pack's devices through
 * Appium), telling `progress` as it goes.
 *
 * @example
 * const outcome = yield* executeRun(config, storeLayer, { ...plan, groundTruth: groundTruthFiles(dataDir) }, app, progress)
 */
import { Effect, Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { LoadedConfig } from "@core/config"
import { drive } from "@core/engine"
import { BrowserPool } from "@core/env-web"
import type { CoreEvent } from "@core/events"
import type { EventStore } from "@core/eventstore"
import { modelOptionsFromConfig } from "@core/models"
import { pipelineDeciders } from "@core/pipeline"
import type { RunApp } from "@core/pipeline"
import { liveLayers, openEnvironments } from "./Live.ts"
import type { LiveInput } from "./Live.ts"
import { prepareRun } from "./Prepare.ts"
import { RunError } from "./RunDemos.ts"
import type { RunOutcome, RunPlan } from "./RunPlan.ts"
import type { RunProgress } from "./RunProgress.ts"

/** The pipeline's deciders driven live on a prepared run: the events it appended (a resumed run's logged ones first). */
export const driveRun = (input: LiveInput) =>
  Effect.gen(function* () {
    const { prepared, plan } = input
    const live = yield* liveLayers(input)
    const events: Array<CoreEvent> = [...(prepared.resume?.events ?? [])]
    yield* drive({
      registry: pipelineDeciders,
      runId: prepared.runId,
      prior: prepared.prior,
      start: prepared.start,
      onEvent: (e) => {
        events.push(e)
        live.onEvent(e)
      },
      concurrency: plan.parallel,
      inputs: live.calls,
      ...(prepared.resume === undefined ? {} : { resume: prepared.resume })
    }).pipe(Effect.provide(live.layer))
    return { events, groundTruth: live.groundTruth }
  })

export const executeRun = <LE>(
  config: LoadedConfig,
  layer: Layer.Layer<EventStore | BlobStore, LE>,
  plan: RunPlan,
  app: RunApp,
  progress: RunProgress
) =>
  Effect.gen(function* () {
    const started = Date.now()
    const server = modelOptionsFromConfig(config)
    if (plan.policy === "model" && (server === null || config.values["models.model"] === null)) {
      return yield* new RunError({
        message: "--policy model needs a model server: set models.baseUrl and models.model (bun core config show)"
      })
    }
    const context = yield* Layer.build(Layer.merge(BrowserPool.layer(), layer))
    const environments = yield* Effect.provideContext(openEnvironments(config, plan, app), context)
    const program = Effect.gen(function* () {
      const prepared = yield* prepareRun(config, plan, app, environments.demo, progress)
      const driven = yield* driveRun({ config, plan, app, environments: environments.rollouts, prepared, progress })
      return { runId: prepared.runId, ...driven }
    })
    const { runId, events, groundTruth } = yield* Effect.provideContext(program, context)
    yield* environments.close
    // Told once more at the end: a run that judged nothing still leaves its (empty) record.
    plan.groundTruth?.judged(runId, groundTruth)
    return { runId, events, groundTruth, seconds: Math.round((Date.now() - started) / 100) / 10 } satisfies RunOutcome
  }).pipe(Effect.scoped)
