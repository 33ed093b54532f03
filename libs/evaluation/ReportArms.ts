/**
 * What `eval --report` compares its arms on: the train tasks the runs learn from, the
 * held-out tasks each arm's policy is judged on, and how one arm's run is played — on a
 * bundled site (`--site`), or on an app pack (`--app`). How a run is started is the caller's
 * (`ArmRunners`): the arms only say which tasks it plays and with what.
 *
 * @example
 * const { site, train, heldOut, play } = yield* packArms("packs/myapp", list, secrets, runners.pack)
 * const outcome = yield* play(config, layer, { command: "run", rounds: 2, … })
 */
import { Effect } from "effect"
import type { Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { LoadedConfig } from "@core/config"
import type { CoreEvent } from "@core/events"
import type { EventStore } from "@core/eventstore"
import { loadPack } from "@core/apps"
import type { Pack, SecretRule } from "@core/apps"
import type { RunTask } from "@core/pipeline"
import type { RunPlan } from "@core/run"
import { runTaskOf } from "@core/sites/app"
import { SOLVED_SUITES } from "@core/sites/solutions"
import { loadSuites } from "@core/sites/suites"
import type { SuiteTask } from "@core/sites/suites"
import { EvalError, EvalInputError } from "./EvalError.ts"
import { packTasksOf } from "./EvalApp.ts"

export type ArmPlan = Omit<RunPlan, "tasks">

export interface ReportArms {
  /** What the report says it ran on: a site, or a pack's name. */
  readonly site: string
  readonly train: ReadonlyArray<RunTask>
  /** The held-out split the report always had: instances that start where the demos start. */
  readonly heldOut: ReadonlyArray<RunTask>
  /** The held-out instances whose start or route differs from the demos' (suites/Generator.ts, variantsOf), with their variant; none for a pack. */
  readonly otherRoutes: ReadonlyArray<RunTask & { readonly variant: string }>
  readonly play: (
    config: LoadedConfig,
    layer: Layer.Layer<EventStore | BlobStore, unknown>,
    plan: ArmPlan
  ) => Effect.Effect<{ readonly runId: string; readonly events: ReadonlyArray<CoreEvent> }, EvalError>
}

type List = (flag: string) => ReadonlyArray<string> | null

type Played = Effect.Effect<{ readonly runId: string; readonly events: ReadonlyArray<CoreEvent> }, unknown>

/** How one arm's run is started: on the bundled sites with their suite tasks, or on a pack with its task ids. */
export interface ArmRunners {
  readonly bundled: (
    config: LoadedConfig,
    layer: Layer.Layer<EventStore | BlobStore, unknown>,
    plan: ArmPlan & { readonly tasks: ReadonlyArray<SuiteTask> }
  ) => Played
  readonly pack: (
    config: LoadedConfig,
    layer: Layer.Layer<EventStore | BlobStore, unknown>,
    packDir: string,
    plan: ArmPlan & { readonly taskIds?: string; readonly judgeDemos?: boolean },
    secrets: SecretRule
  ) => Played
}

const asEvalError = (e: unknown) =>
  new EvalError({
    message:
      e instanceof Error || (typeof e === "object" && e !== null && "message" in e)
        ? String((e as { message: unknown }).message)
        : String(e)
  })

/**
 * The report's tasks of one split: the named ones (or the unknown names, as a string), else
 * the first instance of each template that starts where the demos start (no variant). For
 * train, the demos then teach every template once and the time goes to the rounds; for
 * held-out, a template's instances succeed or fail together (same procedure, other values),
 * so three of one would narrow an interval over tasks without adding evidence.
 */
export const reportTasks = (
  all: ReadonlyArray<SuiteTask>,
  split: SuiteTask["split"],
  named: ReadonlyArray<string> | null
): ReadonlyArray<SuiteTask> | string => {
  const mine = all.filter((t) => t.split === split)
  if (named !== null) {
    const unknown = named.filter((id) => !mine.some((t) => t.id === id))
    return unknown.length > 0 ? unknown.join(", ") : mine.filter((t) => named.includes(t.id))
  }
  const plain = mine.filter((t) => t.variant === undefined)
  return plain.filter((t) => plain.find((u) => u.templateId === t.templateId) === t)
}

/** The site's held-out instances whose start or route is not the demos' (every one: each variant is its own condition). */
export const otherRouteTasks = (all: ReadonlyArray<SuiteTask>): ReadonlyArray<SuiteTask & { readonly variant: string }> =>
  all.flatMap((t) => (t.split === "held-out" && t.variant !== undefined ? [{ ...t, variant: t.variant }] : []))

/** A bundled site's arms (`--site`, default shop). */
export const bundledArms = (site: string, list: List, run: ArmRunners["bundled"]): Effect.Effect<ReportArms, EvalError | EvalInputError> =>
  Effect.gen(function* () {
    const suites = yield* loadSuites().pipe(Effect.mapError((e) => new EvalError({ message: e.message })))
    const all = suites.flatMap((s) => s.tasks).filter((t) => SOLVED_SUITES.includes(t.suite) && t.site === site)
    if (all.length === 0)
      return yield* new EvalInputError({ message: `--site ${site}: no such site with scripted demos (shop, forum, travel)` })
    const train = reportTasks(all, "train", list("tasks"))
    if (typeof train === "string")
      return yield* new EvalInputError({ message: `--tasks names tasks that are not ${site} train tasks: ${train}` })
    const heldOut = reportTasks(all, "held-out", list("held-out"))
    if (typeof heldOut === "string")
      return yield* new EvalInputError({ message: `--held-out names tasks that are not ${site} held-out tasks: ${heldOut}` })
    return {
      site,
      train: train.map(runTaskOf),
      heldOut: heldOut.map(runTaskOf),
      otherRoutes: otherRouteTasks(all).map((t) => ({ ...runTaskOf(t), variant: t.variant })),
      play: (config, layer, plan) => run(config, layer, { ...plan, tasks: train }).pipe(Effect.mapError(asEvalError))
    }
  })

/** An app pack's arms: its train and held-out tasks (all of each, or the named ones); `secrets`, what its log-in may type. */
export const packArms = (
  packDir: string,
  list: List,
  secrets: (config: LoadedConfig) => SecretRule,
  run: ArmRunners["pack"],
  judgeDemos = true
): Effect.Effect<ReportArms, EvalError | EvalInputError> =>
  Effect.gen(function* () {
    const pack = yield* loadPack(packDir).pipe(Effect.mapError(asEvalError))
    const pick = (split: "train" | "held-out", flag: string) => {
      const all = packTasksOf(pack, split)
      const named = list(flag)
      if (named === null) return Effect.succeed(all)
      const unknown = named.filter((id) => !all.some((t) => t.id === id))
      return unknown.length > 0
        ? Effect.fail(
            new EvalInputError({
              message: `--${flag} names tasks that are not ${split} tasks of ${pack.config.name}: ${unknown.join(", ")}`
            })
          )
        : Effect.succeed(all.filter((t) => named.includes(t.id)))
    }
    const train = yield* pick("train", "tasks")
    const heldOut = yield* pick("held-out", "held-out")
    if (train.length === 0 || heldOut.length === 0)
      return yield* new EvalInputError({
        message: `${pack.config.name}: eval --report needs train and held-out tasks (it has ${train.length} and ${heldOut.length})`
      })
    return {
      site: pack.config.name,
      train,
      heldOut,
      otherRoutes: [],
      play: (config, layer, plan) =>
        run(
          config,
          layer,
          packDir,
          {
            ...plan,
            taskIds: train.map((t) => t.id).join(","),
            judgeDemos,
            extra: { ...plan.extra, "run.app": pack.config.name, "run.appDir": packDir }
          },
          secrets(config)
        ).pipe(Effect.mapError(asEvalError))
    }
  })

/**
 * The held-out instances of the given sites (all sites when none is given) of a `--split`:
 * `default`, those that start where the demos start; `other-routes`, those that start on
 * another page or with the demo's route switched off; `both`.
 */
export const heldOutTasks = (sites: ReadonlySet<string> | null, split = "default") =>
  Effect.map(loadSuites().pipe(Effect.mapError((e) => new EvalError({ message: e.message }))), (suites) =>
    suites
      .flatMap((s) => s.tasks)
      .filter(
        (t) =>
          t.split === "held-out" &&
          SOLVED_SUITES.includes(t.suite) &&
          (sites === null || sites.has(t.site)) &&
          (split === "both" || (t.variant === undefined) === (split === "default"))
      )
  )

/** What `eval` judges a trained policy on: a pack's held-out tasks, or those of the bundled sites it trained on (every site when none is known). */
export const policyHeldOut = (
  pack: Pack | null,
  sites: ReadonlySet<string>,
  split?: string
): Effect.Effect<ReadonlyArray<RunTask>, EvalError> =>
  pack !== null
    ? Effect.succeed(packTasksOf(pack, "held-out"))
    : Effect.map(heldOutTasks(sites.size === 0 ? null : sites, split), (tasks) => tasks.map(runTaskOf))
