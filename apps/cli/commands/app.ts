/**
 * `bun core app check <dir> [--json]`: is this app pack usable? Validates the pack
 * (docs/app-packs.md), starts one instance, opens the first task's start page in headless
 * Chromium confined to the pack's origins (logged in first by the pack's `auth`), reports the page's title and element count, and
 * stops the instance. An Android pack's instance is an Appium server: the first task's
 * activity is opened on it as an episode would be (the app's data cleared first when the
 * isolation says so) and its page source read. Any problem is one `error:` line and exit 1;
 * the instance is stopped on every way out (failure, SIGINT/SIGTERM included) by the scope
 * that started it.
 *
 * @example
 * bun core app check packs/myapp
 * // app myapp: ready in 812 ms at http://127.0.0.1:41234/
 * // task open-1: "Getting Started" with 57 elements at http://127.0.0.1:41234/
 */
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  androidTaskStart,
  authOf,
  loadLogin,
  loadPack,
  originsFor,
  packPageOptions,
  startInstance,
  stopAllInstances,
  stopInstance,
  taskUrl
} from "@core/apps"
import type { Instance, Pack, PackLogin } from "@core/apps"
import { DirectoryBlobStore } from "@core/blobstore"
import { androidSettings, loadConfig } from "@core/config"
import { AppiumEnvironment } from "@core/env-android"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { UsageError } from "../Cli.ts"
import { AppCheckFailed } from "@core/apps"
import type { Failure } from "../Failures.ts"
import type { Command } from "../Cli.ts"
import { allowSecretFlags, packSecretRule } from "../PackSecrets.ts"

interface CheckReport {
  readonly ready_ms: number
  readonly title: string | null
  readonly elements: number
  readonly tasks: number
  readonly url: string
  /** Android: `package/activity` in front after the start activity was opened. */
  readonly app?: string | null
}

const tasksOf = (n: number): string => `${n} task${n === 1 ? "" : "s"}`

const failure = (pack: Pack) => (reason: string) => new AppCheckFailed({ app: pack.config.name, reason })

/** One ready instance and a scratch blob folder, both gone when the scope ends. */
const instanceAndBlobs = (pack: Pack) =>
  Effect.gen(function* () {
    // Interruptible: a start that never gets ready must not hold up Ctrl-C (it stops what it spawned itself).
    const instance = yield* Effect.acquireRelease(startInstance(pack), stopInstance, { interruptible: true }).pipe(
      Effect.mapError((e) => failure(pack)(e.reason))
    )
    console.error(`app ${pack.config.name}: ready in ${instance.readyMs} ms at ${instance.baseUrl}`)
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-app-check-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    return { instance, dir } satisfies { instance: Instance; dir: string }
  })

/** One instance, one page, everything closed when the scope ends. */
const checkWeb = (pack: Pack, login: PackLogin): Effect.Effect<CheckReport, AppCheckFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fail = failure(pack)
      const { instance, dir } = yield* instanceAndBlobs(pack)
      const context = yield* Layer.build(BrowserPool.layer().pipe(Layer.merge(DirectoryBlobStore.layer({ dir })))).pipe(
        Effect.mapError((e) => fail(`cannot open a blob store for the check: ${e.message}`))
      )
      const env = yield* Effect.provideContext(WebEnvironment.make({ screenshots: "none", readSecret: login.readSecret }), context)
      const task = pack.tasks[0]!
      const startUrl = taskUrl(instance, task.start)
      const first = yield* env
        .reset({
          taskId: task.id,
          startUrl,
          origins: originsFor(pack, instance.baseUrl),
          ...packPageOptions(pack),
          ...authOf(login.auth, instance)
        })
        .pipe(
          Effect.ensuring(env.close()),
          Effect.mapError((e) => fail(`task ${task.id}: ${e.message}`))
        )
      const error = first.observation.error ?? first.view.error
      if (error !== null) return yield* fail(`task ${task.id}: the start page ${startUrl} failed: ${error}`)
      return {
        ready_ms: instance.readyMs,
        title: first.view.title,
        elements: first.elements.length,
        tasks: pack.tasks.length,
        url: first.view.url ?? startUrl
      }
    })
  )

/** One instance (an Appium server), the first task's activity opened on it and its page source read; closed when the scope ends. */
const checkAndroid = (pack: Pack, capabilities: Readonly<Record<string, unknown>>): Effect.Effect<CheckReport, AppCheckFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fail = failure(pack)
      const { instance, dir } = yield* instanceAndBlobs(pack)
      const context = yield* Layer.build(DirectoryBlobStore.layer({ dir })).pipe(
        Effect.mapError((e) => fail(`cannot open a blob store for the check: ${e.message}`))
      )
      // Made after the instance: the session is deleted before the server is stopped.
      const env = yield* Effect.provideContext(
        AppiumEnvironment.make({ appiumUrl: instance.baseUrl, capabilities, screenshots: "none", settleMs: 200 }),
        context
      )
      const task = pack.tasks[0]!
      const start = androidTaskStart(pack.config, task.start)
      const first = yield* env.reset({ taskId: task.id, ...start }).pipe(
        Effect.ensuring(env.close()),
        Effect.mapError((e) => fail(`task ${task.id}: ${e.message}`))
      )
      const error = first.observation.error ?? first.view.error
      if (error !== null) return yield* fail(`task ${task.id}: the start activity ${start.app} failed: ${error}`)
      return {
        ready_ms: instance.readyMs,
        title: null,
        elements: first.elements.length,
        tasks: pack.tasks.length,
        url: instance.baseUrl,
        app: first.view.app
      }
    })
  )

export const appCheck: Command<Failure> = {
  name: "app check",
  summary:
    "check an app pack: validate it, start one instance, open its first task (headless Chromium, or the pack's Appium server), stop it (docs/app-packs.md)",
  positionals: ["dir"],
  flags: {
    json: { kind: "boolean", description: "print one JSON object { ready_ms, title, elements, tasks, url } instead of lines" },
    ...allowSecretFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length !== 1)
        return yield* new UsageError({ message: "app check takes one path: the pack's folder (it holds core-app.json)" })
      const pack = yield* loadPack(args.positionals[0]!)
      const { name, platform } = pack.config
      const config = yield* loadConfig({ flags: args.flags })
      // A device may need capabilities (appium:udid, …); the server is the one the pack's instance announces.
      const capabilities = platform === "android" ? androidSettings(config).capabilities : {}
      // Its secrets are checked before an instance starts; the log-in itself is played before the first task.
      const login = yield* loadLogin(pack, packSecretRule(config, args))
      const report = platform === "android" ? yield* checkAndroid(pack, capabilities) : yield* checkWeb(pack, login)
      if (args.flags.json === true) console.log(JSON.stringify(report))
      else {
        const shown =
          platform === "android"
            ? `${report.app ?? "no app"} with ${report.elements} elements on the Appium server at ${report.url}`
            : `${JSON.stringify(report.title ?? "")} with ${report.elements} elements at ${report.url}`
        console.log(`task ${pack.tasks[0]!.id}: ${shown}`)
        console.log(`app ${name}: ok, ${tasksOf(report.tasks)}, ready in ${report.ready_ms} ms; the instance is stopped`)
      }
    }).pipe(Effect.ensuring(stopAllInstances()))
}
