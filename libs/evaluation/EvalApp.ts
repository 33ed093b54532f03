/**
 * The app a policy evaluation plays on: the bundled sites, or an app pack (`--app <dir>`),
 * started for the scope and stopped with it. Both are a `RunApp`, so the evaluation has one
 * path: the app opens the episodes and its own check (checkers, the pack's `evaluate`) judges
 * them.
 *
 * @example
 * const { app, pack, environment } = yield* evalApp(args.flags.app, config, packSecretRule(config, args))
 */
import { Context, Effect, Layer } from "effect"
import type { Scope } from "effect"
import { App, CommandApp, loadLogin, loadPack, packRunApp, packRunTask } from "@core/apps"
import type { Pack, SecretRule } from "@core/apps"
import type { BlobStore } from "@core/blobstore"
import type { LoadedConfig } from "@core/config"
import type { BrowserPool } from "@core/env-web"
import type { EnvironmentShape } from "@core/environment"
import { platformEnvironment } from "@core/run"
import type { RunApp, RunTask } from "@core/pipeline"
import { bundledApp } from "@core/sites/app"
import { EvalError } from "./EvalError.ts"

export interface EvalApp {
  readonly app: RunApp
  /** What reports name it: a pack's name, or "the bundled sites". */
  readonly label: string
  /** The pack, for a pack; null for the bundled sites. */
  readonly pack: Pack | null
  /**
   * One environment for the app's episodes, on its platform (an Android pack's through
   * Appium); no screenshots: the embedded policy reads none.
   */
  readonly environment: Effect.Effect<EnvironmentShape, never, BlobStore | BrowserPool | Scope.Scope>
}

/** A pack's tasks of one split as the engine sees them. */
export const packTasksOf = (pack: Pack, split: "train" | "held-out"): ReadonlyArray<RunTask> =>
  pack.tasks.filter((t) => t.split === split).map((t) => packRunTask(pack, t))

/** Every reset is of another task: an episode prepared ahead would only be discarded. */
const environmentOf = (config: LoadedConfig, pack: Pack | null, app: RunApp) =>
  platformEnvironment(config, pack?.config.platform ?? "web", { screenshots: "none", prepareAhead: false, episodes: app.episodes })

/** `secrets`: what a pack's log-in may type (libs/apps SecretGrants.ts). */
export const evalApp = (
  packDir: string | undefined,
  config: LoadedConfig,
  secrets: SecretRule
): Effect.Effect<EvalApp, EvalError, Scope.Scope> =>
  Effect.gen(function* () {
    if (packDir === undefined) {
      const app = yield* bundledApp()
      return { app, label: "the bundled sites", pack: null, environment: environmentOf(config, null, app) }
    }
    const pack = yield* loadPack(packDir)
    const login = yield* loadLogin(pack, secrets)
    const context = yield* Layer.build(CommandApp.layer(packDir))
    const app = packRunApp(pack, Context.get(context, App), login)
    return { app, label: pack.config.name, pack, environment: environmentOf(config, pack, app) }
  }).pipe(Effect.mapError((e) => (e instanceof EvalError ? e : new EvalError({ message: e.message }))))
