/**
 * A run on an app pack, as `run --app` starts it: the pack's instances for the run's
 * lifetime (every one stopped when it ends, fails or is interrupted), the pack's log-in
 * checked before any starts, its judgements kept for the metrics, and what the metrics need
 * back. The caller draws the progress.
 *
 * @example
 * const outcome = yield* runOnPack(config, storeLayer, packDir, plan, secrets, progress)
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { LoadedConfig } from "@core/config"
import type { EventStore } from "@core/eventstore"
import { App, CommandApp, loadLogin, loadPack, packRunApp, packRunTask } from "@core/apps"
import type { Pack, SecretRule } from "@core/apps"
import { RUN_CONFIG_KEYS } from "@core/pipeline"
import { groundTruthFiles } from "./GroundTruth.ts"
import { executeRun } from "./RunEngine.ts"
import type { RunPlan } from "./RunPlan.ts"
import type { RunProgress } from "./RunProgress.ts"

/** `--tasks` names a task the pack does not have: the caller's usage, one line. */
export class UnknownPackTask extends Schema.TaggedError<UnknownPackTask>()("UnknownPackTask", { message: Schema.String }) {}

/** The pack's train tasks, or the ones `--tasks` names (train or held-out: a user may run either). */
export const packTasks = (pack: Pack, list: string | undefined) => {
  if (list === undefined) return Effect.succeed(pack.tasks.filter((t) => t.split === "train"))
  const wanted = list
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  const unknown = wanted.filter((w) => !pack.tasks.some((t) => t.id === w))
  if (unknown.length > 0)
    return Effect.fail(
      new UnknownPackTask({ message: `no task ${unknown[0]} in the pack ${pack.config.name} (see ${pack.dir}/${"tasks.json"})` })
    )
  return Effect.succeed(pack.tasks.filter((t) => wanted.includes(t.id)))
}

export interface PackPlan extends Omit<RunPlan, "tasks"> {
  readonly taskIds?: string
  /** False: a step file played as a task's demo is taken without asking the pack's evaluate (`--no-judge`). */
  readonly judgeDemos?: boolean
}

/** `secrets`: what the pack's log-in may type (libs/apps SecretGrants.ts). */
export const runOnPack = <LE>(
  config: LoadedConfig,
  layer: Layer.Layer<EventStore | BlobStore, LE>,
  packDir: string,
  plan: PackPlan,
  secrets: SecretRule,
  progress: RunProgress
) =>
  Effect.gen(function* () {
    const pack = yield* loadPack(packDir)
    const tasks = yield* packTasks(pack, plan.taskIds)
    // Before any instance starts: a log-in that cannot work stops the run here.
    const login = yield* loadLogin(pack, secrets)
    const context = yield* Layer.build(CommandApp.layer(packDir))
    const app = packRunApp(pack, Context.get(context, App), login, { judgeDemos: plan.judgeDemos !== false })
    const file = `${pack.dir}/core-app.json`
    const sources = {
      ...plan.sources,
      ...(pack.config.hashRouting ? { [RUN_CONFIG_KEYS.hashRouting]: file } : {}),
      // A web pack's runs recorded the platform as the default: kept so, their logs do not change.
      ...(pack.config.platform === "web" ? {} : { [RUN_CONFIG_KEYS.platform]: file })
    }
    // The pack says where its episodes play: an Android pack's on its instances' Appium servers.
    const outcome = yield* executeRun(
      config,
      layer,
      // The run records the pack's routing, so its deciders read the app's URLs as its demos were recorded.
      {
        ...plan,
        platform: pack.config.platform,
        hashRouting: pack.config.hashRouting,
        sources,
        tasks: tasks.map((t) => packRunTask(pack, t)),
        // The pack's judgements are kept for `bun core metrics`, beside the log.
        groundTruth: groundTruthFiles(config.values.dataDir)
      },
      app,
      progress
    )
    return { ...outcome, tasks }
  }).pipe(Effect.scoped)
