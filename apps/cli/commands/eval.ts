/**
 * `bun core eval labels [--suite S] [--instance ID,…] [--round0] [--json] [--rebuild]`: how often
 * CORE's label functions agree with the ground-truth checkers (EVALUATION CODE). Builds the
 * evaluation set in the real web environment (libs/evaluation LabelEvalSet.ts: each train
 * instance's demo, and trajectories no demo showed), infers LFs from the demos alone, and
 * labels every trajectory: successful when all of its task's LFs hold in key-step order.
 * The set is cached under `<dataDir>/eval/`, keyed by the suites and options, since
 * building it drives Chromium for many minutes; `--rebuild` builds it again.
 *
 * `bun core eval corruptions [--suite S] [--instance ID,…] [--demos-only] [--run R] [--json]`:
 * the same judge on hard negatives — every passing script corrupted the ways that look most
 * like success, played, confirmed negative by its checker (CorruptionSet.ts) — cached the same way.
 */
import { Effect } from "effect"
import { join } from "node:path"
import { loadConfig } from "@core/config"
import { plural } from "@core/demos"
import { messageOf } from "@core/events"
import type { AgreementScores } from "@core/pipeline"
import { readRunLog } from "@core/engine"
import {
  buildCorruptionSet,
  buildPackCorruptionSet,
  buildLabelEvalSet,
  cachedLabelSet,
  corruptionReport,
  corruptionSetKey,
  runPassesOf,
  labelEvalSetSummary,
  labelReport,
  labelSetKey,
  labelSet,
  packCorruptionSetKey,
  packLabelReport,
  packRunAgreement,
  runLabelling,
  TARGETS
} from "@core/evaluation"
import { loadSuites } from "@core/sites/suites"
import { CliError, UsageError } from "../Cli.ts"
import type { Command, ParsedArgs } from "../Cli.ts"
import { openStore } from "@core/run"
import { EvalSetNotBuilt } from "@core/evaluation"
import type { CorruptionReport, CorruptionSet } from "@core/evaluation"
import type { Failure } from "../Failures.ts"
import { configFlags } from "../ConfigFlags.ts"
import { allowSecretFlags, packSecretRule } from "../PackSecrets.ts"

const pct = (x: number | null): string => (x === null ? "—" : x.toFixed(3))

/** A run's log. */
const runEvents = (args: ParsedArgs, runId: string) =>
  Effect.gen(function* () {
    const opened = yield* openStore(args, { quiet: args.flags.json === true })
    return (yield* Effect.provide(readRunLog(runId), opened.layer)).events
  })

/** A run's final strategy graphs, read from its log (LabelEval.ts folds them). */
const runGraphs = (args: ParsedArgs, runId: string) => Effect.map(runEvents(args, runId), runLabelling)

const instancesOf = (args: ParsedArgs) =>
  (args.flags.instance as string | undefined)
    ?.split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")

const suiteOf = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const suite = args.flags.suite as string | undefined
    const suites = yield* loadSuites()
    if (suite !== undefined && !suites.some((s) => s.suite === suite))
      return yield* new UsageError({ message: `unknown suite ${suite}; suites: ${suites.map((s) => s.suite).join(", ")}` })
    return { suite, suites }
  })

const fmt = (x: number | null): string => (x === null ? "—" : x.toFixed(3))
const row = (name: string, s: AgreementScores): string =>
  `${name.padEnd(36)} ${String(s.judged).padStart(6)}  ${String(s.predicted_pass).padStart(9)}  ${String(s.novel_predicted_pass).padStart(5)}  ${fmt(s.precision)}  ${fmt(s.recall)}  ${fmt(s.agreement)}      ${fmt(s.kappa)}`

/** `--app`: with --run, the run's verdicts against the pack's evaluate; without, LFs from each train demo (PackEval.ts). */
const evalPackRun = (args: ParsedArgs, appDir: string) =>
  Effect.gen(function* () {
    const runId = args.flags.run as string | undefined
    if (runId === undefined) return yield* packLabels(args, appDir)
    const opened = yield* openStore(args, { quiet: args.flags.json === true })
    const { app, scores } = yield* Effect.provide(packRunAgreement(appDir, runId, opened.config.values.dataDir), opened.layer)
    if (args.flags.json === true) {
      console.log(JSON.stringify({ run_id: runId, app, ...scores.overall, per_task: scores.per_task }))
      return
    }
    console.log(`${"task".padEnd(36)} judged  predicted  novel  prec   recall agreement  κ`)
    for (const [task, s] of Object.entries(scores.per_task)) console.log(row(task, s))
    console.log(row("all", scores.overall))
  })

const packLabels = (args: ParsedArgs, appDir: string) =>
  Effect.gen(function* () {
    const config = yield* loadConfig({ flags: args.flags })
    const report = yield* packLabelReport(
      appDir,
      packSecretRule(config, args),
      (line) => console.error(`eval: ${line}`),
      args.flags.round0 === true
    )
    if (args.flags.json === true) console.log(JSON.stringify(report))
    else {
      console.log(
        `${report.trajectories} trajectories (${report.positives} passing the pack's evaluate); tp ${report.tp}  fp ${report.fp}  tn ${report.tn}  fn ${report.fn}`
      )
      console.log(
        `precision ${fmt(report.precision)}  recall ${fmt(report.recall)} (other paths ${fmt(report.recall_other_paths)}, other methods ${fmt(report.recall_other_methods)})  npv ${fmt(report.npv)}  κ ${fmt(report.kappa)}`
      )
      for (const m of report.mistakes) console.log(`  ${m.pass ? "false positive" : "false negative"}: ${m.id}`)
    }
  })

export const evalLabels: Command<Failure> = {
  name: "eval labels",
  summary: "label-function accuracy against the ground-truth checkers (precision, recall, per kind of trajectory)",
  flags: {
    suite: { kind: "string", description: "one suite (shop, forum, travel); all by default" },
    instance: { kind: "string", description: "only these train instances (comma-separated task ids)" },
    random: { kind: "number", description: "random-policy rollouts per task (default 1)" },
    perturbed: { kind: "number", description: "same-path perturbed runs per task (default 1)" },
    rebuild: { kind: "boolean", description: "build the evaluation set again instead of reading the cache" },
    run: { kind: "string", description: "label by this run's strategy graphs (every verified path) instead of each demo's LFs alone" },
    round0: {
      kind: "boolean",
      description: "label as a run's round 0 would: each demo's path and its goal-state path, under today's data rules (not with --run)"
    },
    app: {
      kind: "string",
      description: "an app pack folder: compare run --run's verdicts with the pack's evaluate (precision, recall, agreement per task)"
    },
    json: {
      kind: "boolean",
      description: "print one JSON object { trajectories, tp, fp, tn, fn, precision, recall, recall_same_path, recall_other_paths, … }"
    },
    ...allowSecretFlags,
    ...configFlags(["dataDir", "store", "nats.url"])
  },
  run: (args) =>
    Effect.gen(function* () {
      const appDir = args.flags.app as string | undefined
      if (args.flags.round0 === true && args.flags.run !== undefined)
        return yield* new UsageError({
          message: "--round0 reads each demo's graph before any rollout; --run reads a run's graphs: give one"
        })
      if (appDir !== undefined) return yield* evalPackRun(args, appDir)
      const started = Date.now()
      const config = yield* loadConfig({ flags: args.flags })
      const instances = instancesOf(args)
      const randomPerTask = (args.flags.random as number | undefined) ?? 1
      const perturbedPerTask = (args.flags.perturbed as number | undefined) ?? 1
      for (const [flag, n] of [
        ["--random", randomPerTask],
        ["--perturbed", perturbedPerTask]
      ] as const) {
        if (!Number.isInteger(n) || n < 0 || n > 20)
          return yield* new UsageError({ message: `${flag} must be a whole number from 0 to 20, got ${n}` })
      }
      const { suite, suites } = yield* suiteOf(args)
      const options = { suite, instances, randomPerTask, perturbedPerTask }
      const progress = (line: string) => console.error(`eval: ${line}`)
      const set = yield* cachedLabelSet(
        join(config.values.dataDir, "eval", `label-set-${labelSetKey(options, suites)}.json`),
        buildLabelEvalSet({ ...options, progress }),
        args.flags.rebuild === true,
        progress
      ).pipe(Effect.mapError((e) => new EvalSetNotBuilt({ reason: messageOf(e) })))
      const summary = labelEvalSetSummary(set)
      progress(`${set.tasks.length} tasks, ${set.trajectories.length} trajectories (${summary.positive} checker-positive)`)

      const runId = args.flags.run as string | undefined
      const graphs = runId === undefined ? null : yield* runGraphs(args, runId)
      const { tasks, labels } = yield* labelSet(set, graphs, progress, args.flags.round0 === true)
      if (graphs !== null && labels.length === 0)
        return yield* new CliError({ message: `run ${runId} has no graph for any task of the evaluation set` })
      const report = labelReport(tasks, labels, started)
      if (args.flags.json === true) {
        console.log(JSON.stringify(report))
        return
      }
      console.log(
        `${report.trajectories} trajectories (${report.positives} positive by the checkers) of ${plural(tasks.length, "task")}; ${plural(report.label_functions, "label function")}, ${plural(report.rejected_key_steps, "key step")} without one`
      )
      console.log("")
      console.log(`kind         total  positive  labelled pass  fp  fn`)
      for (const [kind, k] of Object.entries(report.by_kind)) {
        console.log(
          `${kind.padEnd(11)}  ${String(k.total).padStart(5)}  ${String(k.positives).padStart(8)}  ${String(k.labelled_pass).padStart(13)}  ${String(k.fp).padStart(2)}  ${String(k.fn).padStart(2)}`
        )
      }
      console.log("")
      console.log(`tp ${report.tp}  fp ${report.fp}  tn ${report.tn}  fn ${report.fn}`)
      console.log(
        `precision ${pct(report.precision)} (target ≥ ${TARGETS.precision}) ${(report.precision ?? 0) >= TARGETS.precision ? "✓" : "✗"}`
      )
      console.log(
        `recall ${pct(report.recall)}; same path ${pct(report.recall_same_path)} (target ≥ ${TARGETS.recall_same_path}) ${(report.recall_same_path ?? 0) >= TARGETS.recall_same_path ? "✓" : "✗"}; other paths ${pct(report.recall_other_paths)} (the baseline Strategy Graph Expansion must raise)`
      )
      console.log(`npv ${pct(report.npv)}; Cohen's κ ${pct(report.kappa)} (agreement with the checkers beyond chance)`)
      for (const m of report.mistakes.slice(0, 10)) console.log(`  ${m.pass ? "false positive" : "false negative"}: ${m.id}`)
    })
}

/** The suite's report: one JSON object, or the table per type and the false passes. */
const printCorruptions = (args: ParsedArgs, report: CorruptionReport): void => {
  if (args.flags.json === true) {
    console.log(JSON.stringify(report))
    return
  }
  console.log(
    `${report.negatives} confirmed negatives from ${report.sources.passing} passing scripts of ${plural(report.tasks, "task")}; ${report.discarded} corruptions the checkers still passed (discarded as negatives, judged as positives)`
  )
  console.log("")
  console.log(`type                 negatives  false passes  discarded (accepted)  not built`)
  for (const [type, t] of Object.entries(report.by_type))
    console.log(
      `${type.padEnd(20)} ${String(t.negatives).padStart(9)}  ${String(t.false_passes).padStart(12)}  ${`${t.discarded} (${t.discarded_accepted})`.padStart(20)}  ${String(t.not_built).padStart(9)}`
    )
  console.log("")
  console.log(
    `precision ${pct(report.precision)}  recall ${pct(report.recall)} (sources: ${report.sources.labelled_pass} of ${report.sources.passing})  npv ${pct(report.npv)}  Cohen's κ ${pct(report.kappa)}`
  )
  for (const f of report.false_pass_list.slice(0, 10))
    console.log(`  false pass: ${f.id} (${f.note}); held: ${f.held.map((h) => `${h.lfId.slice(0, 12)}@${h.step}`).join(", ")}`)
}

const progressLine = (line: string) => console.error(`eval: ${line}`)

/** With `--run`, the run's log and its verified passes (the sources) and the `run` part of the cache key. */
const runSources = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const runId = args.flags.run as string | undefined
    if (runId === undefined) return { runId, events: null, runPasses: undefined, key: {} }
    const events = yield* runEvents(args, runId)
    const runPasses = runPassesOf(events)
    if (runPasses.length === 0) return yield* new CliError({ message: `run ${runId} has no verified pass to corrupt` })
    return { runId, events, runPasses, key: { run: { runId, passes: runPasses.map((p) => p.trajectoryId) } } }
  })

/**
 * A suite read from its cache (or built), labelled by a run's graphs when there is a run, else
 * each demo's LFs as a run's round 0 judges them (CORE's verdict, data rules and all); printed.
 */
const judgeSuite = <E>(
  args: ParsedArgs,
  file: string,
  build: Effect.Effect<CorruptionSet, E>,
  sources: Effect.Success<ReturnType<typeof runSources>>,
  started: number,
  of: string
) =>
  Effect.gen(function* () {
    const progress = progressLine
    const set = yield* cachedLabelSet(file, build, args.flags.rebuild === true, progress).pipe(
      Effect.mapError((e) => new EvalSetNotBuilt({ reason: messageOf(e) }))
    )
    const graphs = sources.events === null ? null : runLabelling(sources.events)
    const { tasks, labels } = yield* labelSet(set, graphs, progress, true)
    if (graphs !== null && labels.length === 0)
      return yield* new CliError({ message: `run ${sources.runId} has no graph for any task of ${of}` })
    printCorruptions(args, corruptionReport(set, tasks, labels, started))
  })

/** `eval corruptions --app`: the pack's step files as the sources, or with `--run` the pack run's verified passes, judged by its graphs. */
const packCorruptions = (args: ParsedArgs, appDir: string, parallel: number, started: number) =>
  Effect.gen(function* () {
    const config = yield* loadConfig({ flags: args.flags })
    if (args.flags.suite !== undefined)
      return yield* new UsageError({ message: "--suite is for the bundled sites; --app corrupts the pack's own tasks: give one" })
    const sources = yield* runSources(args)
    const options = { instances: instancesOf(args), demosOnly: args.flags["demos-only"] === true }
    const build = buildPackCorruptionSet(appDir, packSecretRule(config, args), {
      ...options,
      ...(sources.runPasses === undefined ? {} : { runPasses: sources.runPasses }),
      parallel,
      progress: progressLine
    })
    const key = yield* packCorruptionSetKey(appDir, { ...options, ...sources.key })
    return yield* judgeSuite(args, join(config.values.dataDir, "eval", `corruptions-app-${key}.json`), build, sources, started, "the pack")
  })

export const evalCorruptions: Command<Failure> = {
  name: "eval corruptions",
  summary:
    "the judge on hard negatives: right scripts corrupted (a key step dropped, doubled, swapped or undone, a near miss…), played, confirmed by the checkers",
  flags: {
    suite: { kind: "string", description: "one suite (shop, forum, travel); all by default" },
    instance: { kind: "string", description: "only these train instances (comma-separated task ids)" },
    "demos-only": { kind: "boolean", description: "corrupt only each demo's script, not the other path families'" },
    parallel: { kind: "number", description: "players at once, each with its own sites and browser (default 2; the suite is the same)" },
    rebuild: { kind: "boolean", description: "build the suite again instead of reading the cache" },
    run: { kind: "string", description: "corrupt this run's verified passes instead of the scripts, and judge by its strategy graphs" },
    app: {
      kind: "string",
      description:
        "an app pack folder: corrupt its train demos and alternatives instead, judged by the pack's evaluate (--instance names its tasks)"
    },
    json: {
      kind: "boolean",
      description: "print one JSON object { negatives, false_passes, precision, recall, npv, kappa, by_type, false_pass_list, … }"
    },
    ...allowSecretFlags,
    ...configFlags(["dataDir", "store", "nats.url"])
  },
  run: (args) =>
    Effect.gen(function* () {
      const started = Date.now()
      const config = yield* loadConfig({ flags: args.flags })
      const parallel = (args.flags.parallel as number | undefined) ?? 2
      if (!Number.isInteger(parallel) || parallel < 1 || parallel > 8)
        return yield* new UsageError({ message: `--parallel must be a whole number from 1 to 8, got ${parallel}` })
      const appDir = args.flags.app as string | undefined
      if (appDir !== undefined) return yield* packCorruptions(args, appDir, parallel, started)
      const { suite, suites } = yield* suiteOf(args)
      // With a run, its verified passes are the sources and its graphs the judge.
      const sources = yield* runSources(args)
      const options = { suite, instances: instancesOf(args), demosOnly: args.flags["demos-only"] === true, ...sources.key }
      const build = buildCorruptionSet({
        ...options,
        ...(sources.runPasses === undefined ? {} : { runPasses: sources.runPasses }),
        parallel,
        progress: progressLine
      })
      const file = join(config.values.dataDir, "eval", `corruptions-${corruptionSetKey(options, suites)}.json`)
      return yield* judgeSuite(args, file, build, sources, started, "the suite")
    })
}
