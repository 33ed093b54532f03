/**
 * Where `record` plays a task of the bundled suites: an instance on the sites server, started
 * for the command and stopped after (an app pack's is @core/apps' `packTarget`).
 *
 * @example
 * const target = yield* bundledTarget("shop-cart-1", undefined)
 */
import { Effect } from "effect"
import { join } from "node:path"
import { targetFailed, UnknownRecordTask } from "@core/demos"
import type { RecordTarget } from "@core/demos"
import type { EnvTask } from "@core/environment"
import { episodeSource } from "../framework/episodeSource.ts"
import { startSites } from "../mod.ts"
import { loadSuites } from "../suites/mod.ts"

/** A bundled suite instance (`--site`, when given, must be its site). */
export const bundledTarget = (taskId: string, site: string | undefined) =>
  Effect.gen(function* () {
    const suites = yield* loadSuites()
    const tasks = suites.flatMap((s) => s.tasks)
    const task = tasks.find((t) => t.id === taskId)
    if (task === undefined)
      return yield* new UnknownRecordTask({
        message: `unknown task '${taskId}': not an instance of the bundled suites; list the ids with \`bun core tasks list\`, or give --app <pack>`
      })
    if (site !== undefined && site !== task.site)
      return yield* new UnknownRecordTask({ message: `task '${task.id}' is on site '${task.site}', not '${site}'` })
    const open: RecordTarget["open"] = Effect.gen(function* () {
      const sites = yield* Effect.acquireRelease(
        Effect.try({ try: () => startSites(), catch: targetFailed("cannot start the bundled sites") }),
        (s) => Effect.promise(() => s.stop())
      )
      const source = episodeSource(sites)
      const episode = yield* Effect.tryPromise({
        try: () => source.open(task.site, task.siteSeed),
        catch: targetFailed(`cannot open a ${task.site} episode`)
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
