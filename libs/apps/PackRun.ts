/**
 * An app pack as the run engine's `RunApp`: the pack's tasks registered under its name,
 * episodes on leased instances (fresh or reset per the pack's isolation, each logged in by
 * the pack's `auth` before it starts), the task's step
 * file played as the demo of a task that has none — judged by the pack's `evaluate` before
 * it is written, unless told not to — and the pack's `evaluate` as the judgement of an
 * ended episode, for measurement only.
 *
 * @example
 * const app = yield* App
 * yield* executeRun(config, layer, { ...plan, tasks: packRunTasks(pack) }, packRunApp(pack, app, yield* loadAuth(pack, rule)), progress)
 */
import { Effect } from "effect"
import { join, resolve } from "node:path"
import { loadStepFile, playDemo, writeDemoFolder } from "@core/demos"
import type { EnvTask, EpisodeSource } from "@core/environment"
import type { Action } from "@core/events"
import { DemoRejected, RunAppError } from "@core/pipeline"
import type { RunApp, RunTask, TaskRegistration } from "@core/pipeline"
import { androidTaskStart } from "./Android.ts"
import type { AppShape } from "./App.ts"
import { authOf } from "./Auth.ts"
import { judgeDemo, lastAnswer } from "./DemoJudge.ts"
import type { PackLogin } from "./Auth.ts"
import type { PackTask } from "./Format.ts"
import { taskUrl } from "./Instance.ts"
import type { InstanceError } from "./Instance.ts"
import { DEFAULT_PAGE_SETTLE_MS } from "./Pack.ts"
import type { Pack } from "./Pack.ts"
import type { Lease } from "./Pool.ts"

/** What TaskRegistered records of a pack's task: no template, no seed, and no checker a decision could name. */
export const packRegistration = (pack: Pack, t: PackTask): TaskRegistration => ({
  taskId: t.id,
  site: pack.config.name,
  suite: pack.config.name,
  template: null,
  instruction: t.instruction,
  siteSeed: null,
  checker: null,
  platform: pack.config.platform,
  startUrl: pack.config.platform === "web" ? t.start : null,
  app: pack.config.android?.appPackage ?? null
})

/** How the pack's pages are observed and their URLs recorded, for every episode on it. */
export const packPageOptions = (
  pack: Pack
): Pick<EnvTask, "pageQuietMs" | "pageSettleMs" | "pageReady" | "pageSaveMs" | "hashRouting"> => ({
  ...(pack.config.pageQuietMs > 0 ? { pageQuietMs: pack.config.pageQuietMs } : {}),
  ...(pack.config.pageSettleMs !== DEFAULT_PAGE_SETTLE_MS ? { pageSettleMs: pack.config.pageSettleMs } : {}),
  ...(pack.config.pageReady !== null ? { pageReady: pack.config.pageReady } : {}),
  ...(pack.config.pageSaveMs > 0 ? { pageSaveMs: pack.config.pageSaveMs } : {}),
  ...(pack.config.hashRouting ? { hashRouting: true } : {})
})

/** A pack task as the engine sees it: episodes open on the pack (seed 0: a pack has one world) at the task's start. */
export const packRunTask = (pack: Pack, t: PackTask): RunTask => ({
  id: t.id,
  registration: packRegistration(pack, t),
  start: { site: pack.config.name, siteSeed: 0, startPath: t.start, ...packPageOptions(pack), ...androidTaskStart(pack.config, t.start) }
})

/**
 * The engine's episodes as leases: `open` takes an instance from the pool and names the
 * episode after it; `end` (after the judgement) and `discard` give it back.
 */
const leasedEpisodes = (app: AppShape, leases: Map<string, Lease>, login: PackLogin): EpisodeSource => {
  let n = 0
  const giveBack = async (episode: string) => {
    const lease = leases.get(episode)
    leases.delete(episode)
    if (lease !== undefined) await Effect.runPromise(lease.release())
  }
  return {
    open: async (_site, _seed, path) => {
      const lease = await Effect.runPromise(app.acquire())
      const episode = `${app.name}-${++n}`
      leases.set(episode, lease)
      // An Android start is an activity, not a path: the instance's URL is its Appium server.
      const startUrl = app.platform === "android" ? lease.instance.baseUrl : taskUrl(lease.instance, path ?? "/")
      return { episode, startUrl, origins: lease.origins, serverUrl: lease.instance.baseUrl, ...authOf(login.auth, lease.instance) }
    },
    discard: giveBack,
    end: giveBack,
    readSecret: login.readSecret
  }
}

/**
 * `login`: the pack's log-in (`loadLogin`), played before each of its episodes, and the only
 * reader of secrets they get. Required, so a caller cannot forget it and run a pack's
 * episodes logged out, or typing whatever variable a demo names.
 * `judgeDemos: false` takes a played step file as the task's demo without asking `evaluate`.
 */
export const packRunApp = (pack: Pack, app: AppShape, login: PackLogin, options: { readonly judgeDemos?: boolean } = {}): RunApp => {
  const leases = new Map<string, Lease>()
  const byId = new Map(pack.tasks.map((t) => [t.id, t]))
  const judgePlayed = (taskId: string, episode: string | null, steps: ReadonlyArray<{ readonly action: Action }>) =>
    Effect.suspend((): Effect.Effect<void, DemoRejected | RunAppError | InstanceError> => {
      if (app.evaluate === undefined) return Effect.void
      const lease = episode === null ? undefined : leases.get(episode)
      if (lease === undefined)
        return Effect.fail(
          new RunAppError({ message: `cannot judge the demo of task ${taskId}: its episode holds no instance of ${app.name}` })
        )
      return judgeDemo(
        app,
        lease,
        taskId,
        steps.map((s) => s.action)
      )
    })
  return {
    episodes: leasedEpisodes(app, leases, login),
    heldOut: () => Effect.succeed(pack.tasks.filter((t) => t.split === "held-out").map((t) => packRunTask(pack, t))),
    demo: (env, task, dir, demoId) =>
      Effect.gen(function* () {
        const t = byId.get(task.id)
        if (t?.steps == null)
          return yield* new RunAppError({
            message: `${task.id} has no demo and no step file in the pack: record one (bun core record --app ${pack.dir} --task ${task.id})`
          })
        const file = resolve(pack.dir, t.steps)
        const steps = yield* loadStepFile(file)
        // Judged before the environment closes: closing gives the instance back, and with it the demo's state.
        const played = yield* playDemo(env, { ...task.start, taskId: task.id }, steps.steps).pipe(
          Effect.tap((p) => (options.judgeDemos === false ? Effect.void : judgePlayed(task.id, p.episode, p.steps))),
          Effect.ensuring(env.close())
        )
        return yield* writeDemoFolder(played.steps, join(dir, pack.config.name, task.id), {
          demoId,
          taskId: task.id,
          recordedWith: "script",
          initial: played.initial,
          platform: pack.config.platform
        })
      }).pipe(
        Effect.mapError((e) => (e instanceof RunAppError || e instanceof DemoRejected ? e : new RunAppError({ message: e.message })))
      ),
    judge: (task, end) =>
      Effect.gen(function* () {
        const lease = end.last?.episode == null ? undefined : leases.get(end.last.episode)
        if (app.evaluate === undefined || lease === undefined || !byId.has(task.id)) return null
        const result = yield* app.evaluate(lease, task.id, lastAnswer(end.actions)).pipe(Effect.option)
        // An evaluation that could not run says nothing about the episode: no judgement.
        return result._tag === "None"
          ? null
          : { success: result.value.pass, reason: result.value.pass ? "evaluate: exit 0" : "evaluate: exit 1" }
      })
  }
}
