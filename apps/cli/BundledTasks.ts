/**
 * The bundled train tasks a command's `--suite`, `--site` and `--tasks` choose: `run` plays
 * them, `bench run` measures them.
 */
import { Effect } from "effect"
import { loadSuites } from "@core/sites/suites"
import type { SuiteTask } from "@core/sites/suites"
import { SOLVED_SUITES } from "@core/sites/solutions"
import type { ParsedArgs } from "./Cli.ts"
import { CliError, UsageError } from "./Cli.ts"

/** The tasks `--suite`, `--site` and `--tasks` choose: train instances of suites with scripted expert demos. */
export const chooseTasks = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const suites = yield* loadSuites().pipe(Effect.mapError((e) => new CliError({ message: e.message })))
    const suite = (args.flags.suite as string | undefined) ?? "train"
    const names = suites.map((s) => s.suite)
    if (suite !== "train" && !names.includes(suite)) {
      return yield* new UsageError({
        message: `unknown suite '${suite}' (train = every suite's train split, or one of: ${names.join(", ")})`
      })
    }
    let tasks: ReadonlyArray<SuiteTask> = suites
      .filter((s) => suite === "train" || s.suite === suite)
      .flatMap((s) => s.tasks)
      .filter((t) => t.split === "train" && SOLVED_SUITES.includes(t.suite))
    const site = args.flags.site as string | undefined
    if (site !== undefined) {
      const sites = [...new Set(tasks.map((t) => t.site))]
      if (!sites.includes(site)) return yield* new UsageError({ message: `unknown site '${site}' (known: ${sites.join(", ")})` })
      tasks = tasks.filter((t) => t.site === site)
    }
    const list = args.flags.tasks as string | undefined
    if (list !== undefined) {
      const wanted = list
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")
      const unknown = wanted.filter((w) => !tasks.some((t) => t.id === w))
      if (unknown.length > 0)
        return yield* new UsageError({ message: `no train task ${unknown[0]} in the chosen suite (see bun core tasks list)` })
      tasks = tasks.filter((t) => wanted.includes(t.id))
    }
    return tasks
  })
