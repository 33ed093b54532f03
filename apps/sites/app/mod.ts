/**
 * The bundled sites (shop, forum, travel) as a `RunApp`: their suites are its tasks, their
 * episodes come from the sites server, their scripted solutions are the demos of tasks that
 * have none, and their checkers judge ended episodes — for measurement only.
 *
 * @example
 * const app = yield* bundledApp(tasks)          // scoped: the sites stop with the scope
 * yield* executeRun(config, layer, plan, app, progress)
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import type { EnvironmentShape } from "@core/environment"
import type { EpisodeEnd, RunApp, RunTask, TaskRegistration } from "@core/pipeline"
import { RunAppError } from "@core/pipeline"
import { sitePath } from "@core/domain"
import { withEpisodeOptions } from "../framework/site.ts"
import { episodeSource, startSites } from "../mod.ts"
import type { SitesServer } from "../mod.ts"
import { expertDemo, verdictOf } from "../solutions/mod.ts"
import { loadSuites } from "../suites/mod.ts"
import type { SuiteTask } from "../suites/mod.ts"

/** What TaskRegistered records of an instance: its instruction and how to start it — never how to check it beyond the checker's name. */
export const registrationOf = (t: SuiteTask): TaskRegistration => ({
  taskId: t.id,
  site: t.site,
  suite: t.suite,
  template: { id: t.templateId, parameters: t.parameters },
  instruction: t.instruction,
  siteSeed: t.siteSeed,
  checker: t.checker,
  platform: "web",
  // Relative to the sites server, whose origin differs per run.
  startUrl: `/${t.site}${startPathOf(t) ?? "/"}`,
  app: null
})

/** The site-relative page an instance's episode starts on, its episode options in the query; undefined: the home page. */
export const startPathOf = (t: SuiteTask): string | undefined =>
  t.start === undefined ? undefined : withEpisodeOptions(t.start.path, t.start.options ?? {})

/** A suite instance as the run engine sees it: episodes open on its site with its seed, on its start page. */
export const runTaskOf = (t: SuiteTask): RunTask => {
  const startPath = startPathOf(t)
  return {
    id: t.id,
    registration: registrationOf(t),
    start: { site: t.site, siteSeed: t.siteSeed, ...(startPath === undefined ? {} : { startPath }) }
  }
}

/** EVALUATION: the checker's verdict on the episode; a failure when it never reached a site episode. */
export const episodeVerdict = (sites: SitesServer, task: SuiteTask, end: EpisodeEnd) => {
  const tenant = end.last?.episode ?? null
  if (tenant === null) return Effect.succeed({ success: false, reason: "the episode never reached the site" })
  const last = (kind: "answer" | "status") => end.actions.filter((a) => a.kind === kind).at(-1)
  const answer = last("answer")
  const status = last("status")
  return verdictOf(sites, task, tenant, {
    steps: [],
    finalUrl: sitePath(end.last?.observation.url ?? null),
    answer: answer?.kind === "answer" ? answer.text : null,
    status: status?.kind === "status" ? status.status : null
  })
}

/** The sites, started for the scope, as the app a run plays on. */
export const bundledApp = (): Effect.Effect<RunApp & { readonly sites: SitesServer }, RunAppError, Scope.Scope> =>
  Effect.gen(function* () {
    const suites = yield* loadSuites().pipe(Effect.mapError((e) => new RunAppError({ message: e.message })))
    const byId = new Map(suites.flatMap((s) => s.tasks).map((t) => [t.id, t]))
    const sites = yield* Effect.acquireRelease(
      Effect.sync(() => startSites()),
      (s) => Effect.promise(() => s.stop())
    )
    const suiteTask = (task: RunTask): Effect.Effect<SuiteTask, RunAppError> => {
      const t = byId.get(task.id)
      return t === undefined
        ? Effect.fail(new RunAppError({ message: `${task.id} is not a task of the bundled suites` }))
        : Effect.succeed(t)
    }
    return {
      sites,
      episodes: episodeSource(sites),
      heldOut: (tasks) => {
        const planSites = new Set(tasks.map((t) => t.start.site))
        return Effect.succeed([...byId.values()].filter((t) => t.split === "held-out" && planSites.has(t.site)).map(runTaskOf))
      },
      demo: (env: EnvironmentShape, task, dir, demoId) =>
        Effect.flatMap(suiteTask(task), (t) =>
          expertDemo(env, sites, t, dir, { demoId }).pipe(Effect.mapError((e) => new RunAppError({ message: e.message })))
        ),
      judge: (task, end) => {
        const t = byId.get(task.id)
        return t === undefined ? Effect.succeed(null) : episodeVerdict(sites, t, end)
      }
    }
  })
