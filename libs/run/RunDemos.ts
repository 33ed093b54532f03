/**
 * A run's demos (docs/app-packs.md, "Demos are judged before they are taken"): every task
 * without an ingested demo of the run's platform gets its scripted one, played by the app,
 * judged by it where it can judge, written and ingested; a demo the app rejects stops the
 * run before inference, naming every rejected one.
 */
import { Effect, Schema } from "effect"
import { join } from "node:path"
import { demosByTask, ingestDemo, loadDemo, plural } from "@core/demos"
import type { EnvironmentShape } from "@core/environment"
import type { Platform } from "@core/events"
import type { DemoRejected, RunApp, RunTask } from "@core/pipeline"

/** The run could not start or go on (bad plan, unreadable log, a demo that cannot be made): one line. */
export class RunError extends Schema.TaggedError<RunError>()("RunError", { message: Schema.String }) {}

/** The id of a task's scripted demo on a platform: web demos keep the id they always had. */
export const scriptedDemoId = (taskId: string, platform: Platform): string =>
  platform === "web" ? `${taskId}-script` : `${taskId}-${platform}-script`

/**
 * Whether a demo was recorded on the platform: mobile-web demos are only the scripted ones
 * made for it. An Android task exists on no other platform, so any demo of it is one.
 */
const demoOfPlatform = (demoId: string, platform: Platform): boolean =>
  platform === "mobile-web" ? demoId.endsWith("-mobile-web-script") : !demoId.endsWith("-mobile-web-script")

/** Demos for the tasks that have none ingested: played by the app, written, ingested. */
export const ensureDemos = (
  app: RunApp,
  env: EnvironmentShape,
  tasks: ReadonlyArray<RunTask>,
  dataDir: string,
  platform: Platform,
  log: (line: string) => void
) =>
  Effect.gen(function* () {
    const have = yield* demosByTask
    const chosen = new Map<string, string>()
    const demosOf = (taskId: string) => (have.get(taskId) ?? []).filter((d) => demoOfPlatform(d, platform))
    const missing = tasks.filter((t) => demosOf(t.id).length === 0)
    if (missing.length > 0)
      log(
        `demos: ${missing.length} of ${plural(tasks.length, "task")} ${missing.length === 1 ? "has" : "have"} no demo; recording ${missing.length === 1 ? "its scripted expert demo" : "their scripted expert demos"}`
      )
    // Every demo is played before the run gives up on a rejected one: the error names them all.
    const rejected: Array<DemoRejected> = []
    for (const [i, t] of missing.entries()) {
      const out = platform === "web" ? join(dataDir, "demos") : join(dataDir, "demos", platform)
      const file = yield* app.demo(env, t, out, scriptedDemoId(t.id, platform)).pipe(
        Effect.catchTag("DemoRejected", (e) => Effect.sync(() => (rejected.push(e), null))),
        Effect.mapError((e) => new RunError({ message: `demo for ${t.id}: ${e.message}` }))
      )
      if (file === null) {
        log(`demos: ${i + 1}/${missing.length} ${t.id}: rejected by the app's check`)
        continue
      }
      const loaded = yield* loadDemo(file, { tasks: new Set([t.id]) }).pipe(Effect.mapError((e) => new RunError({ message: e.message })))
      yield* ingestDemo(loaded, file)
      log(`demos: ${i + 1}/${missing.length} ${t.id}: ${loaded.steps.length} steps ingested`)
    }
    if (rejected.length > 0) {
      return yield* new RunError({
        message: `the run stops before inference: ${rejected.map((r) => r.message).join("; ")} (fix the step ${rejected.length === 1 ? "file" : "files"}, or run with --no-judge to infer from ${rejected.length === 1 ? "it" : "them"} anyway)`
      })
    }
    const now = yield* demosByTask
    for (const t of tasks) {
      const ids = (now.get(t.id) ?? []).filter((d) => demoOfPlatform(d, platform))
      // The scripted expert's demo when there is one, else the first by id: a stable choice.
      const id = ids.find((d) => d === scriptedDemoId(t.id, platform)) ?? ids[0]
      if (id !== undefined) chosen.set(t.id, id)
    }
    return chosen
  })
