/**
 * `run --app` and `eval --report` on a pack, as the CLI starts them: @core/run's pack run
 * with its progress drawn on stderr, and a task the pack lacks reported as a usage error.
 */
import { Effect } from "effect"
import type { Layer } from "effect"
import type { SecretRule } from "@core/apps"
import type { BlobStore } from "@core/blobstore"
import type { LoadedConfig } from "@core/config"
import type { EventStore } from "@core/eventstore"
import { runOnPack as runPack, UnknownPackTask } from "@core/run"
import type { PackPlan } from "@core/run"
import { UsageError } from "./Cli.ts"
import { Progress } from "./Progress.ts"

/** `secrets`: what the pack's log-in may type (PackSecrets.ts). */
export const runOnPack = <LE>(
  config: LoadedConfig,
  layer: Layer.Layer<EventStore | BlobStore, LE>,
  packDir: string,
  plan: PackPlan,
  secrets: SecretRule
) =>
  runPack(config, layer, packDir, plan, secrets, new Progress(plan.command)).pipe(
    Effect.mapError((e) => (e instanceof UnknownPackTask ? new UsageError({ message: e.message }) : e))
  )
