/**
 * `bun core app check <dir> [--json]`: is this app pack usable? Validates the pack
 * (docs/app-packs.md), starts one instance, opens the first task's start page in headless
 * Chromium confined to the pack's origins, reports the page's title and element count, and
 * stops the instance. Any problem is one `error:` line and exit 1; the instance is stopped
 * on every way out (failure, SIGINT/SIGTERM included) by the scope that started it.
 *
 * @example
 * bun core app check packs/tiddlywiki
 * // app tiddlywiki: ready in 812 ms at http://127.0.0.1:41234/
 * // task tw-open-1: "Getting Started" with 57 elements at http://127.0.0.1:41234/#GettingStarted
 */
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadPack, originsFor, startInstance, stopAllInstances, stopInstance, taskUrl } from "@core/apps"
import type { Pack } from "@core/apps"
import { DirectoryBlobStore } from "@core/blobstore"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { CliError, UsageError } from "../Cli.ts"
import type { Command } from "../Cli.ts"

interface CheckReport {
  readonly ready_ms: number
  readonly title: string | null
  readonly elements: number
  readonly tasks: number
  readonly url: string
}

const tasksOf = (n: number): string => `${n} task${n === 1 ? "" : "s"}`

/** One instance, one page, everything closed when the scope ends. */
const checkWeb = (pack: Pack): Effect.Effect<CheckReport, CliError> =>
  Effect.scoped(Effect.gen(function*() {
    const { name } = pack.config
    const fail = (reason: string) => new CliError({ message: `app ${name}: ${reason}` })
    // Interruptible: a start that never gets ready must not hold up Ctrl-C (it stops what it spawned itself).
    const instance = yield* Effect.acquireRelease(startInstance(pack), stopInstance, { interruptible: true }).pipe(Effect.mapError((e) => fail(e.reason)))
    console.error(`app ${name}: ready in ${instance.readyMs} ms at ${instance.baseUrl}`)
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-app-check-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    const context = yield* Layer.build(BrowserPool.layer().pipe(Layer.merge(DirectoryBlobStore.layer({ dir })))).pipe(
      Effect.mapError((e) => fail(`cannot open a blob store for the check: ${e.message}`))
    )
    const env = yield* Effect.provideContext(WebEnvironment.make({ screenshots: "none" }), context)
    const task = pack.tasks[0]!
    const startUrl = taskUrl(instance, task.start)
    const first = yield* env.reset({ taskId: task.id, startUrl, origins: originsFor(pack, instance.baseUrl), pageQuietMs: pack.config.pageQuietMs }).pipe(
      Effect.ensuring(env.close()),
      Effect.mapError((e) => fail(`task ${task.id}: ${e.message}`))
    )
    const error = first.observation.error ?? first.view.error
    if (error !== null) return yield* fail(`task ${task.id}: the start page ${startUrl} failed: ${error}`)
    return { ready_ms: instance.readyMs, title: first.view.title, elements: first.elements.length, tasks: pack.tasks.length, url: first.view.url ?? startUrl }
  }))

export const appCheck: Command = {
  name: "app check",
  summary: "check an app pack: validate it, start one instance, open its first task in headless Chromium, stop it (docs/app-packs.md)",
  positionals: ["dir"],
  flags: {
    json: { kind: "boolean", description: "print one JSON object { ready_ms, title, elements, tasks, url } instead of lines" }
  },
  run: (args) =>
    Effect.gen(function*() {
      if (args.positionals.length !== 1) return yield* new UsageError({ message: "app check takes one path: the pack's folder (it holds core-app.json)" })
      const pack = yield* loadPack(args.positionals[0]!).pipe(Effect.mapError((e) => new CliError({ message: e.message })))
      const { name, platform } = pack.config
      if (platform === "android") {
        const note = "the device check needs an Appium server (config android.appiumUrl) and is not part of app check"
        if (args.flags.json === true) console.log(JSON.stringify({ ready_ms: null, title: null, elements: null, tasks: pack.tasks.length, url: null, note }))
        else console.log(`app ${name}: pack ok (android, ${tasksOf(pack.tasks.length)}); ${note}`)
        return
      }
      const report = yield* checkWeb(pack)
      if (args.flags.json === true) console.log(JSON.stringify(report))
      else {
        console.log(`task ${pack.tasks[0]!.id}: ${JSON.stringify(report.title ?? "")} with ${report.elements} elements at ${report.url}`)
        console.log(`app ${name}: ok, ${tasksOf(report.tasks)}, ready in ${report.ready_ms} ms; the instance is stopped`)
      }
    }).pipe(Effect.ensuring(stopAllInstances()))
}
