/**
 * What `eval --report` compares its arms on: the train tasks the runs learn from, the
 * held-out tasks each arm's policy is judged on, and how one arm's run is played — on a
 * bundled site (`--site`), or on an app pack (`--app`).
 *
 * @example
 * const { label, train, heldOut, play } = yield* packArms("packs/myapp", list, args)
 * const outcome = yield* play(config, layer, { command: "run", rounds: 2, … })
 */
import { Effect } from "effect"
import type { Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { LoadedConfig } from "@core/config"
import type { CoreEvent } from "@core/events"
import type { EventStore } from "@core/eventstore"
import { loadPack } from "@core/apps"
import type { RunTask } from "@core/pipeline"
import type { RunPlan } from "@core/run"
import { runTaskOf } from "@core/sites/app"
import { SOLVED_SUITES } from "@core/sites/solutions"
import { loadSuites } from "@core/sites/suites"
import type { SuiteTask } from "@core/sites/suites"
import type { ParsedArgs } from "./Cli.ts"
import { CliError, UsageError } from "./Cli.ts"
import { runOnBundledSites } from "./BundledRun.ts"
import { runOnPack } from "./AppRun.ts"
import { packTasksOf } from "./EvalApp.ts"
import { packSecretRule } from "./PackSecrets.ts"

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
  ) => Effect.Effect<{ readonly runId: string; readonly events: ReadonlyArray<CoreEvent> }, CliError>
}

type List = (flag: string) => ReadonlyArray<string> | null

const asCliError = (e: unknown) =>
  new CliError({
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
export const bundledArms = (args: ParsedArgs, list: List): Effect.Effect<ReportArms, CliError | UsageError> =>
  Effect.gen(function* () {
    const site = (args.flags.site as string | undefined) ?? "shop"
    const suites = yield* loadSuites().pipe(Effect.mapError((e) => new CliError({ message: e.message })))
    const all = suites.flatMap((s) => s.tasks).filter((t) => SOLVED_SUITES.includes(t.suite) && t.site === site)
    if (all.length === 0)
      return yield* new UsageError({ message: `--site ${site}: no such site with scripted demos (shop, forum, travel)` })
    const train = reportTasks(all, "train", list("tasks"))
    if (typeof train === "string")
      return yield* new UsageError({ message: `--tasks names tasks that are not ${site} train tasks: ${train}` })
    const heldOut = reportTasks(all, "held-out", list("held-out"))
    if (typeof heldOut === "string")
      return yield* new UsageError({ message: `--held-out names tasks that are not ${site} held-out tasks: ${heldOut}` })
    return {
      site,
      train: train.map(runTaskOf),
      heldOut: heldOut.map(runTaskOf),
      otherRoutes: otherRouteTasks(all).map((t) => ({ ...runTaskOf(t), variant: t.variant })),
      play: (config, layer, plan) => runOnBundledSites(config, layer, { ...plan, tasks: train }).pipe(Effect.mapError(asCliError))
    }
  })

/** An app pack's arms: its train and held-out tasks (all of each, or the named ones); `args` grant its log-in's secrets. */
export const packArms = (
  packDir: string,
  list: List,
  args: Pick<ParsedArgs, "lists">,
  judgeDemos = true
): Effect.Effect<ReportArms, CliError | UsageError> =>
  Effect.gen(function* () {
    const pack = yield* loadPack(packDir).pipe(Effect.mapError(asCliError))
    const pick = (split: "train" | "held-out", flag: string) => {
      const all = packTasksOf(pack, split)
      const named = list(flag)
      if (named === null) return Effect.succeed(all)
      const unknown = named.filter((id) => !all.some((t) => t.id === id))
      return unknown.length > 0
        ? Effect.fail(
            new UsageError({ message: `--${flag} names tasks that are not ${split} tasks of ${pack.config.name}: ${unknown.join(", ")}` })
          )
        : Effect.succeed(all.filter((t) => named.includes(t.id)))
    }
    const train = yield* pick("train", "tasks")
    const heldOut = yield* pick("held-out", "held-out")
    if (train.length === 0 || heldOut.length === 0)
      return yield* new UsageError({
        message: `${pack.config.name}: eval --report needs train and held-out tasks (it has ${train.length} and ${heldOut.length})`
      })
    return {
      site: pack.config.name,
      train,
      heldOut,
      otherRoutes: [],
      play: (config, layer, plan) =>
        runOnPack(
          config,
          layer,
          packDir,
          {
            ...plan,
            taskIds: train.map((t) => t.id).join(","),
            judgeDemos,
            extra: { ...plan.extra, "run.app": pack.config.name, "run.appDir": packDir }
          },
          packSecretRule(config, args)
        ).pipe(Effect.mapError(asCliError))
    }
  })
