/**
 * The bundled train tasks a command's `--suite`, `--site` and `--tasks` choose: `run` plays
 * them, `bench run` measures them.
 *
 * @example
 * const tasks = yield* chooseTasks({ site: "shop", tasks: "shop-cart-1,shop-cart-2" })
 */
import { Effect, Schema } from "effect"
import { SOLVED_SUITES } from "../solutions/mod.ts"
import { loadSuites } from "../suites/mod.ts"
import type { SuiteTask } from "../suites/mod.ts"

/** A suite, site or task the bundled suites do not have (a usage error on the command line). */
export class UnknownBundledTask extends Schema.TaggedError<UnknownBundledTask>()("UnknownBundledTask", {
  message: Schema.String
}) {}

/** What a command chose: a suite (`train` = every suite's train split), a site, a comma-separated task list. */
export interface TaskChoice {
  readonly suite?: string | undefined
  readonly site?: string | undefined
  readonly tasks?: string | undefined
}

/** The tasks `--suite`, `--site` and `--tasks` choose: train instances of suites with scripted expert demos. */
export const chooseTasks = (choice: TaskChoice) =>
  Effect.gen(function* () {
    const suites = yield* loadSuites()
    const suite = choice.suite ?? "train"
    const names = suites.map((s) => s.suite)
    if (suite !== "train" && !names.includes(suite)) {
      return yield* new UnknownBundledTask({
        message: `unknown suite '${suite}' (train = every suite's train split, or one of: ${names.join(", ")})`
      })
    }
    let tasks: ReadonlyArray<SuiteTask> = suites
      .filter((s) => suite === "train" || s.suite === suite)
      .flatMap((s) => s.tasks)
      .filter((t) => t.split === "train" && SOLVED_SUITES.includes(t.suite))
    const site = choice.site
    if (site !== undefined) {
      const sites = [...new Set(tasks.map((t) => t.site))]
      if (!sites.includes(site)) return yield* new UnknownBundledTask({ message: `unknown site '${site}' (known: ${sites.join(", ")})` })
      tasks = tasks.filter((t) => t.site === site)
    }
    const list = choice.tasks
    if (list !== undefined) {
      const wanted = list
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")
      const unknown = wanted.filter((w) => !tasks.some((t) => t.id === w))
      if (unknown.length > 0)
        return yield* new UnknownBundledTask({ message: `no train task ${unknown[0]} in the chosen suite (see bun core tasks list)` })
      tasks = tasks.filter((t) => wanted.includes(t.id))
    }
    return tasks
  })
