/**
 * Where `record` plays a task of an app pack: an instance of the pack's own, started for the
 * command and stopped after (the bundled suites' is @core/sites/run's `bundledTarget`). The
 * recorder gets a start URL, and a step file an episode to reset into; on a pack with
 * `auth`, both log in first (the task's `prelude`). An Android pack's instance is an Appium
 * server: a step file plays there through `AppiumEnvironment`, the app's data cleared first
 * as a run's episode would have it.
 *
 * @example
 * const target = yield* packTarget("packs/notes", "notes-add", { flags: args.flags, granted: ["NOTES_PASSWORD"] })
 */
import { Context, Effect, Layer } from "effect"
import { join } from "node:path"
import { androidSettings, loadConfig } from "@core/config"
import { RecordTargetFailed, UnknownRecordTask } from "@core/demos"
import type { RecordTarget } from "@core/demos"
import { AppiumEnvironment } from "@core/env-android"
import type { Action } from "@core/events"
import { androidTaskStart } from "./Android.ts"
import { App } from "./App.ts"
import { authOf, loadLogin } from "./Auth.ts"
import * as CommandApp from "./CommandApp.ts"
import { judgeDemo } from "./DemoJudge.ts"
import { loadPack } from "./Pack.ts"
import { taskUrl } from "./Instance.ts"
import { packPageOptions } from "./PackRun.ts"
import { secretRule } from "./SecretGrants.ts"

/**
 * A task of the app pack in `dir`, on a fresh instance of the pack; `flags` override the config
 * an Android pack's session reads, and `granted` are the variables its log-in may type.
 */
export const packTarget = (
  dir: string,
  taskId: string,
  args: { readonly flags: Readonly<Record<string, string | number | boolean | undefined>>; readonly granted: ReadonlyArray<string> }
) =>
  Effect.gen(function* () {
    const pack = yield* loadPack(dir)
    const task = pack.tasks.find((t) => t.id === taskId)
    if (task === undefined)
      return yield* new UnknownRecordTask({
        message: `unknown task '${taskId}' in the pack ${pack.config.name} (its tasks: ${pack.tasks.map((t) => t.id).join(", ")})`
      })
    // Before the instance starts: a log-in that cannot work (a secret not set or not allowed) starts nothing.
    const config = yield* loadConfig({ flags: args.flags })
    const login = yield* loadLogin(pack, secretRule(config, args.granted))
    // A device may need capabilities (appium:udid, …); the server is the one the instance announces.
    const android = pack.config.platform === "android" ? androidSettings(config) : null
    const open: RecordTarget["open"] = Effect.gen(function* () {
      // One episode: one instance, started for it, and no spare started only to be stopped.
      const app = Context.get(yield* Layer.build(CommandApp.layer(pack.dir, { size: 1, ahead: false })), App)
      const lease = yield* Effect.acquireRelease(app.acquire(), (l) => l.release())
      const judge = (actions: ReadonlyArray<Action>) =>
        judgeDemo(app, lease, task.id, actions).pipe(Effect.mapError((e) => new RecordTargetFailed({ message: e.message })))
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
    }).pipe(Effect.mapError((e) => new RecordTargetFailed({ message: e.message })))
    return {
      taskId: task.id,
      label: `${task.id} on the app ${pack.config.name} (${task.split})`,
      instruction: task.instruction,
      defaultOut: join("demos", pack.config.name, task.id),
      tasks: new Set(pack.tasks.map((t) => t.id)),
      platform: pack.config.platform,
      open
    } satisfies RecordTarget
  }).pipe(Effect.mapError((e) => (e._tag === "PackError" || e._tag === "ConfigError" ? new RecordTargetFailed({ message: e.message }) : e)))
