/**
 * `bun core eval labels [--suite S] [--instance ID,…] [--json] [--rebuild]`: how often
 * CORE's label functions agree with the ground-truth checkers (EVALUATION CODE). Builds the
 * evaluation set in the real web environment (apps/sites/eval/LabelEvalSet.ts: each train
 * instance's demo, and trajectories no demo showed), infers LFs from the demos alone, and
 * labels every trajectory: successful when all of its task's LFs hold in key-step order.
 * The set is cached under `<dataDir>/eval/`, keyed by the suites and options, since
 * building it drives Chromium for many minutes; `--rebuild` builds it again.
 */
import { Effect, Layer } from "effect"
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { loadConfig } from "@core/config"
import { plural } from "@core/demos"
import { digest } from "@core/events"
import type { LfTrajectory, StrategyGraph, VerdictRules } from "@core/domain"
import { evolveRun, initialRunState, labelSandbox, verdictRules } from "@core/pipeline"
import { noModels, readRunLog } from "@core/engine"
import {
  buildLabelEvalSet,
  labelEvalSetSummary,
  labelTasks,
  labelTrajectories,
  labelTrajectoriesWithGraphs,
  scoreLabels
} from "@core/sites/eval"
import type { LabelEvalSet } from "@core/sites/eval"
import { loadSuites } from "@core/sites/suites"
import { CliError, UsageError } from "../Cli.ts"
import type { Command, ParsedArgs } from "../Cli.ts"
import { openStore } from "../Store.ts"
import { evalPackRun } from "../PackEval.ts"
import { configFlags } from "../ConfigFlags.ts"
import { allowSecretFlags } from "../PackSecrets.ts"

/** Bump when the set's construction changes, so stale caches are not read. 2: selects are recorded by their option's value. */
const SET_VERSION = "2"

export const TARGETS = { precision: 0.98, recall_same_path: 0.9 } as const

const pct = (x: number | null): string => (x === null ? "—" : x.toFixed(3))

const cachedSet = (path: string, build: Effect.Effect<LabelEvalSet, unknown>, rebuild: boolean) =>
  Effect.gen(function* () {
    if (!rebuild && existsSync(path)) {
      console.error(`eval: evaluation set from ${path} (--rebuild builds it again)`)
      return JSON.parse(readFileSync(path, "utf8")) as LabelEvalSet
    }
    const set = yield* build
    mkdirSync(join(path, ".."), { recursive: true })
    writeFileSync(`${path}.tmp`, JSON.stringify(set))
    renameSync(`${path}.tmp`, path)
    return set
  })

/** A run's final strategy graphs and the code of every LF they name, folded from its log. */
const runGraphs = (args: ParsedArgs, runId: string) =>
  Effect.gen(function* () {
    const opened = yield* openStore(args, { quiet: args.flags.json === true })
    const { events } = yield* Effect.provide(readRunLog(runId), opened.layer).pipe(
      Effect.mapError((e) => new CliError({ message: e instanceof Error ? e.message : String(e) }))
    )
    const state = events.reduce(evolveRun, initialRunState)
    const config = state.config
    return {
      graphs: state.graphs,
      codes: new Map([...state.lfs.values()].map((lf) => [lf.lfId, lf.code])),
      // Judged as the run judged its own trajectories: its data rules say how a path is read.
      rules: (graph: StrategyGraph, t: LfTrajectory): VerdictRules => (config === null ? {} : verdictRules(config, graph, t))
    }
  })

export const evalLabels: Command = {
  name: "eval labels",
  summary: "label-function accuracy against the ground-truth checkers (precision, recall, per kind of trajectory)",
  flags: {
    suite: { kind: "string", description: "one suite (shop, forum, travel); all by default" },
    instance: { kind: "string", description: "only these train instances (comma-separated task ids)" },
    random: { kind: "number", description: "random-policy rollouts per task (default 1)" },
    perturbed: { kind: "number", description: "same-path perturbed runs per task (default 1)" },
    rebuild: { kind: "boolean", description: "build the evaluation set again instead of reading the cache" },
    run: { kind: "string", description: "label by this run's strategy graphs (every verified path) instead of each demo's LFs alone" },
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
      if (appDir !== undefined) return yield* evalPackRun(args, appDir)
      const started = Date.now()
      const config = yield* loadConfig({ flags: args.flags })
      const instances = (args.flags.instance as string | undefined)
        ?.split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "")
      const randomPerTask = (args.flags.random as number | undefined) ?? 1
      const perturbedPerTask = (args.flags.perturbed as number | undefined) ?? 1
      for (const [flag, n] of [
        ["--random", randomPerTask],
        ["--perturbed", perturbedPerTask]
      ] as const) {
        if (!Number.isInteger(n) || n < 0 || n > 20)
          return yield* new UsageError({ message: `${flag} must be a whole number from 0 to 20, got ${n}` })
      }
      const suite = args.flags.suite as string | undefined
      const suites = yield* loadSuites().pipe(Effect.mapError((e) => new CliError({ message: e.message })))
      if (suite !== undefined && !suites.some((s) => s.suite === suite)) {
        return yield* new UsageError({ message: `unknown suite ${suite}; suites: ${suites.map((s) => s.suite).join(", ")}` })
      }
      const options = { suite, instances, randomPerTask, perturbedPerTask }
      const key = digest({
        SET_VERSION,
        options,
        // The instances with another start or route are held out and never part of the set: they leave its cache key alone.
        suites: suites.map((s) => ({ suite: s.suite, version: s.version, tasks: s.tasks.filter((t) => t.variant === undefined) }))
      }).slice(0, 16)
      const progress = (line: string) => console.error(`eval: ${line}`)
      const set = yield* cachedSet(
        join(config.values.dataDir, "eval", `label-set-${key}.json`),
        buildLabelEvalSet({ ...options, progress }),
        args.flags.rebuild === true
      ).pipe(
        Effect.mapError((e) => new CliError({ message: `building the evaluation set: ${e instanceof Error ? e.message : String(e)}` }))
      )
      const summary = labelEvalSetSummary(set)
      progress(`${set.tasks.length} tasks, ${set.trajectories.length} trajectories (${summary.positive} checker-positive)`)

      const runId = args.flags.run as string | undefined
      const graphs = runId === undefined ? null : yield* runGraphs(args, runId)
      const { tasks, labels } = yield* Effect.scoped(
        Effect.gen(function* () {
          if (graphs !== null) {
            const labels = yield* labelTrajectoriesWithGraphs(set, graphs.graphs, graphs.codes, progress, graphs.rules)
            const tasks = [...graphs.graphs.values()]
              .filter((g) => set.tasks.some((t) => t.taskId === g.taskId))
              .map((g) => ({
                taskId: g.taskId,
                keySteps: g.nodes.length,
                lfs: g.nodes.map((n) => ({ stepIndex: -1, lfId: n.lfId, code: graphs.codes.get(n.lfId) ?? "", evidence: n.how })),
                rejected: []
              }))
            return { tasks, labels }
          }
          const tasks = yield* labelTasks(set, progress)
          const labels = yield* labelTrajectories(set, tasks, progress)
          return { tasks, labels }
        })
      ).pipe(Effect.provide(Layer.mergeAll(labelSandbox(), noModels)))
      if (graphs !== null && labels.length === 0)
        return yield* new CliError({ message: `run ${runId} has no graph for any task of the evaluation set` })
      const score = scoreLabels(labels)
      const lfCount = tasks.reduce((n, t) => n + t.lfs.length, 0)
      const rejected = tasks.reduce((n, t) => n + t.rejected.length, 0)
      const report = {
        ...score,
        tasks: tasks.length,
        label_functions: lfCount,
        rejected_key_steps: rejected,
        targets: TARGETS,
        ok: (score.precision ?? 0) >= TARGETS.precision && (score.recall_same_path ?? 0) >= TARGETS.recall_same_path,
        seconds: Math.round((Date.now() - started) / 100) / 10,
        mistakes: labels
          .filter((l) => l.pass !== l.checker)
          .map((l) => ({ id: l.id, kind: l.kind, checker: l.checker, pass: l.pass, steps: l.steps }))
      }
      if (args.flags.json === true) {
        console.log(JSON.stringify(report))
        return
      }
      console.log(
        `${score.trajectories} trajectories (${score.positives} positive by the checkers) of ${plural(tasks.length, "task")}; ${plural(lfCount, "label function")}, ${plural(rejected, "key step")} without one`
      )
      console.log("")
      console.log(`kind         total  positive  labelled pass  fp  fn`)
      for (const [kind, k] of Object.entries(score.by_kind)) {
        console.log(
          `${kind.padEnd(11)}  ${String(k.total).padStart(5)}  ${String(k.positives).padStart(8)}  ${String(k.labelled_pass).padStart(13)}  ${String(k.fp).padStart(2)}  ${String(k.fn).padStart(2)}`
        )
      }
      console.log("")
      console.log(`tp ${score.tp}  fp ${score.fp}  tn ${score.tn}  fn ${score.fn}`)
      console.log(
        `precision ${pct(score.precision)} (target ≥ ${TARGETS.precision}) ${(score.precision ?? 0) >= TARGETS.precision ? "✓" : "✗"}`
      )
      console.log(
        `recall ${pct(score.recall)}; same path ${pct(score.recall_same_path)} (target ≥ ${TARGETS.recall_same_path}) ${(score.recall_same_path ?? 0) >= TARGETS.recall_same_path ? "✓" : "✗"}; other paths ${pct(score.recall_other_paths)} (the baseline Strategy Graph Expansion must raise)`
      )
      for (const m of report.mistakes.slice(0, 10)) console.log(`  ${m.pass ? "false positive" : "false negative"}: ${m.id}`)
    })
}
