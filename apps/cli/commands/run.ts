/**
 * `bun core run --suite train [--site S] [--platform web|mobile-web] --rounds N [--samples K] [--seed S] [--json]`:
 * CORE's self-training rounds on the bundled tasks (the engine is `executeRun` of @core/pipeline): ingest → infer → per
 * round rollouts → verify → expand, with a progress bar on stderr and the run's metrics at
 * the end (libs/evaluation RunMetrics.ts).
 */
import { Effect, Stream } from "effect"
import { EventStore } from "@core/eventstore"
import { RUN_DEFAULTS, RUN_FIELDS, runConfigOf } from "@core/pipeline"
import type { RunPlan } from "@core/run"
import { loadSuites } from "@core/sites/suites"
import type { Command, ParsedArgs } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import { openStore } from "@core/run"
import { chooseTasks, runOnBundledSites } from "@core/sites/run"
import type { BundledPlan } from "@core/sites/run"
import { runOnPack } from "@core/run"
import { Progress } from "../Progress.ts"
import { basename, resolve } from "node:path"
import { positiveInt } from "../Cli.ts"
import { metricsLines, runMetrics } from "@core/evaluation"
import type { RunMetrics } from "@core/evaluation"
import { commonConfigFlags, configFlags, RUN_FLAG_NAMES, runCount, runFlagSources, runFlags } from "../ConfigFlags.ts"
import { withConsoleFlag } from "../Console.ts"
import { loadPack, packDigest } from "@core/apps"
import type { JobApp } from "@core/workers"
import type { OpenedStore } from "@core/run"
import { queueConnection, queuedEpisodes } from "@core/run"
import { allowSecretFlags, packSecretRule } from "../PackSecrets.ts"

/** Episodes in flight with workers: enough to keep a few machines busy. */
const QUEUE_PARALLEL = 8

/**
 * `--workers queue`: the plan's episodes go to workers on the store's NATS server (one line
 * when the store cannot carry them); otherwise the plan is unchanged.
 */
const withWorkers = (args: ParsedArgs, opened: OpenedStore, appDir: string | undefined) =>
  Effect.gen(function* () {
    if (args.flags.workers === undefined) return {}
    const nc = yield* queueConnection(opened, "core-driver")
    const app: JobApp =
      appDir === undefined
        ? { kind: "bundled" }
        : yield* Effect.flatMap(loadPack(appDir), (pack) =>
            Effect.map(packDigest(pack), (digest) => ({ kind: "pack" as const, name: pack.config.name, digest }))
          )
    // Never so: queueConnection has refused every store but NATS.
    if (opened.choice.kind !== "nats") return {}
    return { workers: queuedEpisodes(opened, opened.choice.url, nc, app) }
  })

/** The run settings `run` takes by flag, besides the expansion and extrapolation knobs. */
const SETTINGS = ["tasks", "platform", "rounds", "samples", "stepBudget"] as const
const TUNING = ["explorePerTask", "expandPerTask", "extrapolatePerTask"] as const

/** In-flight episodes: `--parallel`, else 2 in this process and more with workers. */
const parallelOf = (args: ParsedArgs) => positiveInt(args, "parallel", args.flags.workers === undefined ? 2 : QUEUE_PARALLEL)

/** The expansion and extrapolation knobs (ablations turn them to 0); the run's defaults where no flag sets one. */
const tuning = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const set: { -readonly [K in keyof NonNullable<RunPlan["tuning"]>]?: number } = {}
    for (const field of TUNING) if (args.flags[RUN_FIELDS[field].flag.name] !== undefined) set[field] = yield* runCount(args, field, 0)
    return set
  })

/** `--trainer NAME`: only for the learned policy, and a name a follow trainer's consumer can have. */
const trainerOf = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const trainer = args.flags.trainer
    if (trainer === undefined) return {}
    if (args.flags.policy !== "learned")
      return yield* new UsageError({ message: "--trainer names whose versions the learned policy takes: it goes with --policy learned" })
    if (typeof trainer !== "string" || !/^[A-Za-z0-9_-]+$/.test(trainer))
      return yield* new UsageError({ message: `--trainer ${JSON.stringify(trainer)} may only hold letters, digits, '-' and '_'` })
    return { trainer }
  })

/** `run --resume <id>`: the plan is the logged run's own (its RunStarted config), only the parallelism is new. */
const resumeRun = (args: ParsedArgs, runId: string) =>
  Effect.gen(function* () {
    if (!/^[A-Za-z0-9_-]+$/.test(runId)) return yield* new UsageError({ message: `--resume takes a run id, got ${JSON.stringify(runId)}` })
    for (const f of ["suite", "site", ...RUN_FLAG_NAMES]) {
      if (args.flags[f] !== undefined)
        return yield* new UsageError({ message: `--resume continues the run as it was started: --${f} cannot change it` })
    }
    const opened = yield* openStore(args)
    // Only its RunStarted and round streams: the whole log is read once, by the resumed run.
    const started = yield* Effect.provide(
      Effect.gen(function* () {
        const store = yield* EventStore
        const read = (filter: string) => Effect.map(Stream.runCollect(store.readAll({ filter })), (rs) => rs.map((r) => r.event))
        return {
          started: (yield* read(`run.${runId}.run.${runId}`)).find((e) => e.type === "RunStarted"),
          // Round 0 (the demos) completes too, but is not one of the run's rounds.
          completed: (yield* read(`run.${runId}.round.*`)).filter((e) => e.type === "RoundCompleted" && e.data.round > 0).length
        }
      }),
      opened.layer
    )
    const first = started.started
    if (first === undefined || first.type !== "RunStarted")
      return yield* new CliError({ message: `run ${runId} not found: no events under run.${runId}.>` })
    if (first.data.command !== "run")
      return yield* new CliError({ message: `run ${runId} is a '${first.data.command}' run, not a CORE run (bun core run)` })
    const config = runConfigOf(first.data.config)
    if (started.completed >= config.rounds)
      console.error(`run: run ${runId} already completed its ${config.rounds} round${config.rounds === 1 ? "" : "s"}; nothing to resume`)
    const plan = {
      command: "run" as const,
      rounds: config.rounds,
      samples: config.samples,
      stepBudget: config.stepBudget,
      parallel: yield* parallelOf(args),
      policy: config.policy.kind,
      sources: {},
      resume: { runId, seed: first.data.seed },
      platform: config.platform,
      ...(yield* withWorkers(
        args,
        opened,
        typeof first.data.config["run.appDir"] === "string" ? first.data.config["run.appDir"] : undefined
      ))
    }
    const appDir = first.data.config["run.appDir"]
    if (typeof appDir === "string") {
      // A pack run resumes on the same pack folder, with the tasks it started with.
      const outcome = yield* runOnPack(
        opened.config,
        opened.layer,
        appDir,
        { ...plan, taskIds: config.tasks.join(",") },
        packSecretRule(opened.config, args),
        new Progress(plan.command)
      )
      return report(args, runMetrics(outcome), outcome.seconds)
    }
    const suites = yield* loadSuites()
    const byId = new Map(suites.flatMap((s) => s.tasks).map((t) => [t.id, t]))
    const missing = config.tasks.filter((t) => !byId.has(t))
    if (missing.length > 0)
      return yield* new CliError({ message: `run ${runId} names tasks the bundled suites no longer have: ${missing.join(", ")}` })
    const outcome = yield* runOnBundledSites(
      opened.config,
      opened.layer,
      { ...plan, tasks: config.tasks.map((t) => byId.get(t)!) },
      new Progress(plan.command)
    )
    report(args, runMetrics(outcome), outcome.seconds)
  })

const report = (args: ParsedArgs, metrics: RunMetrics, seconds: number): void => {
  if (args.flags.json === true) console.log(JSON.stringify({ ...metrics, seconds }))
  else console.log(metricsLines(metrics, seconds).join("\n"))
}

// `--ui`: the console beside the run (Console.ts).
export const run: Command<Failure> = withConsoleFlag({
  name: "run",
  summary: "CORE rounds on bundled tasks: infer label functions, roll out, verify against strategy graphs, expand them",
  flags: {
    suite: { kind: "string", description: "train (every suite's train split, default) or one suite: shop, forum, travel" },
    site: { kind: "string", description: "only this site's tasks" },
    app: {
      kind: "string",
      description: "an app pack folder (docs/app-packs.md): run on its train tasks (or --tasks) instead of the bundled sites"
    },
    ...runFlags(SETTINGS),
    parallel: {
      kind: "number",
      description: `episodes played at once (default 2 browser contexts here; ${QUEUE_PARALLEL} with --workers queue)`
    },
    workers: {
      kind: "string",
      description: "queue: episodes are played by workers (bun core worker, on any machine that reaches the NATS server)",
      choices: ["queue"]
    },
    ...runFlags(["policy", "trainer", ...TUNING]),
    resume: { kind: "string", description: "continue an interrupted run by id: logged episodes are not played again" },
    "no-judge": {
      kind: "boolean",
      description:
        "with --app: take a step file played as a task's demo without asking the pack's evaluate (by default a demo it fails stops the run before inference)"
    },
    json: { kind: "boolean", description: "print one JSON object of metrics instead of the table" },
    ...allowSecretFlags,
    ...commonConfigFlags,
    ...configFlags([
      "seed",
      "models.baseUrl",
      "models.model",
      "models.apiKeyEnv",
      "models.setOfMarks",
      "workers.ackWaitMs",
      "workers.maxDeliveries"
    ])
  },
  run: (args) =>
    Effect.scoped(
      Effect.gen(function* () {
        if (args.flags.platform === "android") {
          return yield* new UsageError({
            message:
              "--platform android: the bundled tasks are web sites; an Android app runs as an app pack (run --app <dir>, docs/app-packs.md), or use --platform mobile-web here"
          })
        }
        if (args.flags.resume !== undefined) return yield* resumeRun(args, String(args.flags.resume))
        const sources = runFlagSources(args, [...SETTINGS, "policy", "trainer", ...TUNING])
        const settings = {
          command: "run" as const,
          rounds: yield* runCount(args, "rounds"),
          samples: yield* runCount(args, "samples"),
          stepBudget: yield* runCount(args, "stepBudget"),
          parallel: yield* parallelOf(args),
          policy: (args.flags.policy as BundledPlan["policy"] | undefined) ?? RUN_DEFAULTS.policy,
          ...(yield* trainerOf(args)),
          platform: (args.flags.platform === "mobile-web" ? "mobile-web" : "web") as "web" | "mobile-web",
          sources,
          tuning: yield* tuning(args)
        }
        const appDir = args.flags.app as string | undefined
        if (appDir !== undefined) {
          for (const f of ["suite", "site"])
            if (args.flags[f] !== undefined)
              return yield* new UsageError({ message: `--${f} chooses bundled tasks; with --app, choose the pack's tasks with --tasks` })
          if (settings.platform !== "web")
            return yield* new UsageError({
              message: "--app runs on the pack's own platform (its core-app.json); --platform does not apply"
            })
          const opened = yield* openStore(args)
          const dir = resolve(appDir)
          sources["run.app"] = "flag:--app"
          sources["run.appDir"] = "flag:--app"
          const plan = {
            ...settings,
            ...(yield* withWorkers(args, opened, dir)),
            taskIds: args.flags.tasks as string | undefined,
            judgeDemos: args.flags["no-judge"] !== true,
            extra: { "run.app": basename(dir), "run.appDir": dir }
          }
          const outcome = yield* runOnPack(
            opened.config,
            opened.layer,
            dir,
            plan,
            packSecretRule(opened.config, args),
            new Progress(plan.command)
          )
          return report(args, runMetrics(outcome), outcome.seconds)
        }
        if (args.flags["no-judge"] === true)
          return yield* new UsageError({ message: "--no-judge is for --app: the bundled sites' demos are their scripted solutions" })
        const tasks = yield* chooseTasks({
          suite: args.flags.suite as string | undefined,
          site: args.flags.site as string | undefined,
          tasks: args.flags.tasks as string | undefined
        })
        if (tasks.length === 0) return yield* new UsageError({ message: "no tasks chosen" })
        const opened = yield* openStore(args)
        const outcome = yield* runOnBundledSites(
          opened.config,
          opened.layer,
          {
            ...settings,
            ...(yield* withWorkers(args, opened, undefined)),
            tasks
          },
          new Progress("run")
        )
        report(args, runMetrics(outcome), outcome.seconds)
      })
    )
})
