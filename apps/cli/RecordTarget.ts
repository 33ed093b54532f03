/**
 * Where `record` plays a task: an instance of the bundled suites on the sites server, or a
 * task of an app pack on an instance of its own (started for the command, stopped after).
 * Either way the recorder gets a start URL, and a step file an episode to reset into; on a
 * pack with `auth`, both log in first (the task's `prelude`). An Android pack's instance is
 * an Appium server: a step file plays there through `AppiumEnvironment`, the app's data
 * cleared first as a run's episode would have it.
 */
import { Context, Effect, Layer } from "effect"
import type { Scope } from "effect"
import { join } from "node:path"
import { androidTaskStart, App, authOf, CommandApp, judgeDemo, loadLogin, loadPack, packPageOptions, taskUrl } from "@core/apps"
import type { BlobStore } from "@core/blobstore"
import { androidSettings, loadConfig } from "@core/config"
import { AppiumEnvironment } from "@core/env-android"
import type { EnvironmentShape, EnvTask, ReadSecret } from "@core/environment"
import type { Action, Platform } from "@core/events"
import { episodeSource, startSites } from "@core/sites"
import { loadSuites } from "@core/sites/suites"
import { CliError, UsageError } from "./Cli.ts"
import type { ParsedArgs } from "./Cli.ts"
import { packSecretRule } from "./PackSecrets.ts"

export interface RecordTarget {
  readonly taskId: string
  /** How the task is named on stderr: `shop-x on shop (seed 1, train)`. */
  readonly label: string
  readonly instruction: string
  /** The demo folder when `--out` is not given. */
  readonly defaultOut: string
  /** The task ids a demo may name, as ingest will check it. */
  readonly tasks: ReadonlySet<string>
  /** Where the task plays: a person records only on the web; another platform plays step files. */
  readonly platform: Platform
  /** Starts what the episode runs on, for the scope: the episode's task, its start URL and, off the web, the environment to play it in. */
  readonly open: Effect.Effect<
    {
      readonly task: EnvTask
      readonly startUrl: string
      readonly environment?: Effect.Effect<EnvironmentShape, never, BlobStore | Scope.Scope>
      /**
       * The app's own check of a played demo, on the instance it was played on (a pack with
       * `evaluate`): fails with one line when the demo does not do the task.
       */
      /** Where a played step's `secretEnv` finds its value: a pack's episodes type only what the user allowed it. */
      readonly readSecret?: ReadSecret
      readonly judge?: (actions: ReadonlyArray<Action>) => Effect.Effect<void, CliError>
    },
    CliError,
    Scope.Scope
  >
}

const failed = (what: string) => (e: unknown) => new CliError({ message: `${what}: ${e instanceof Error ? e.message : String(e)}` })

/** A bundled suite instance (`--site`, when given, must be its site). */
export const bundledTarget = (taskId: string, site: string | undefined) =>
  Effect.gen(function* () {
    const suites = yield* loadSuites().pipe(Effect.mapError((e) => new CliError({ message: e.message })))
    const tasks = suites.flatMap((s) => s.tasks)
    const task = tasks.find((t) => t.id === taskId)
    if (task === undefined)
      return yield* new UsageError({
        message: `unknown task '${taskId}': not an instance of the bundled suites; list the ids with \`bun core tasks list\`, or give --app <pack>`
      })
    if (site !== undefined && site !== task.site)
      return yield* new UsageError({ message: `task '${task.id}' is on site '${task.site}', not '${site}'` })
    const open: RecordTarget["open"] = Effect.gen(function* () {
      const sites = yield* Effect.acquireRelease(
        Effect.try({ try: () => startSites(), catch: failed("cannot start the bundled sites") }),
        (s) => Effect.promise(() => s.stop())
      )
      const source = episodeSource(sites)
      const episode = yield* Effect.tryPromise({
        try: () => source.open(task.site, task.siteSeed),
        catch: failed(`cannot open a ${task.site} episode`)
      })
      const started: EnvTask = { taskId: task.id, startUrl: episode.startUrl }
      return { task: started, startUrl: episode.startUrl }
    })
    return {
      taskId: task.id,
      label: `${task.id} on ${task.site} (seed ${task.siteSeed}, ${task.split})`,
      instruction: task.instruction,
      defaultOut: join("demos", task.suite, task.id),
      tasks: new Set(tasks.map((t) => t.id)),
      platform: "web",
      open
    } satisfies RecordTarget
  })

/**
 * A task of the app pack in `dir`, on a fresh instance of the pack; `args` override the config
 * an Android pack's session reads, and grant the secrets its log-in may type.
 */
export const packTarget = (dir: string, taskId: string, args: Pick<ParsedArgs, "flags" | "lists">) =>
  Effect.gen(function* () {
    const pack = yield* loadPack(dir)
    const task = pack.tasks.find((t) => t.id === taskId)
    if (task === undefined)
      return yield* new UsageError({
        message: `unknown task '${taskId}' in the pack ${pack.config.name} (its tasks: ${pack.tasks.map((t) => t.id).join(", ")})`
      })
    // Before the instance starts: a log-in that cannot work (a secret not set or not allowed) starts nothing.
    const config = yield* loadConfig({ flags: args.flags })
    const login = yield* loadLogin(pack, packSecretRule(config, args))
    // A device may need capabilities (appium:udid, …); the server is the one the instance announces.
    const android = pack.config.platform === "android" ? androidSettings(config) : null
    const open: RecordTarget["open"] = Effect.gen(function* () {
      // One episode: one instance, started for it, and no spare started only to be stopped.
      const app = Context.get(yield* Layer.build(CommandApp.layer(pack.dir, { size: 1, ahead: false })), App)
      const lease = yield* Effect.acquireRelease(app.acquire(), (l) => l.release())
      const judge = (actions: ReadonlyArray<Action>) =>
        judgeDemo(app, lease, task.id, actions).pipe(Effect.mapError((e) => new CliError({ message: e.message })))
      if (android !== null) {
        const server = lease.instance.baseUrl
        const environment = AppiumEnvironment.make({
          capabilities: android.capabilities,
          appiumUrl: server,
          screenshots: "key",
          readSecret: login.readSecret
        })
        return { task: { taskId: task.id, ...androidTaskStart(pack.config, task.start) }, startUrl: server, environment, judge }
      }
      const startUrl = taskUrl(lease.instance, task.start)
      return {
        task: { taskId: task.id, startUrl, origins: lease.origins, ...packPageOptions(pack), ...authOf(login.auth, lease.instance) },
        startUrl,
        readSecret: login.readSecret,
        judge
      }
    }).pipe(Effect.mapError((e) => new CliError({ message: e.message })))
    return {
      taskId: task.id,
      label: `${task.id} on the app ${pack.config.name} (${task.split})`,
      instruction: task.instruction,
      defaultOut: join("demos", pack.config.name, task.id),
      tasks: new Set(pack.tasks.map((t) => t.id)),
      platform: pack.config.platform,
      open
    } satisfies RecordTarget
  }).pipe(Effect.mapError((e) => (e._tag === "PackError" || e._tag === "ConfigError" ? new CliError({ message: e.message }) : e)))
