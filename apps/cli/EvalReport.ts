/**
 * `bun core eval --report [--seeds 3] [--rounds 3] [--site S | --app <pack>] [--split S] [--json]`:
 * does CORE make the agent better — on a bundled site, or on an app pack (ReportArms.ts)? Per
 * seed, three CORE runs of the same train tasks with the embedded policy — full, without
 * expansion (no explorer, no new paths) and without extrapolation — then the held-out success
 * (PolicyEval.ts) of:
 *
 * - `bc`: the policy trained on round 0 alone (the demos: behaviour cloning);
 * - `rounds[k-1]`: the full run's policy after round k;
 * - `no_expansion`, `no_extrapolation`: each ablation's policy after its last round.
 *
 * Every arm uses the same policy code, hyperparameters, tasks and seed; the ablations share
 * round 0 with the full run (it is the demos only), so they fork from it. Each figure is the
 * mean over seeds with a 95% bootstrap interval over held-out tasks (per-task success
 * averaged over seeds, 2,000 resamples from a fixed seed); CORE's last round is compared with
 * bc and with each ablation by a paired bootstrap of per-task differences (ReportStats.ts).
 *
 * Splits (`--split`): `default`, the held-out instances that start where the demos start;
 * `other-routes`, the held-out instances of the train templates that start on another page
 * or with the demo's route switched off (suites/Generator.ts, `variantsOf`) — where a policy
 * that only replays the demo's route is expected to fail and the strategy graph's other
 * paths could help; `both`. One table per split, from the same runs and models.
 *
 * On a bundled site, sized for 25 minutes on 2 cores at the defaults: one train and one held-out instance per
 * template, one rollout and one explorer episode per task and round, one rollout per
 * extrapolated task, no screenshots in the runs (the embedded policy reads none), and each
 * distinct model evaluated once, all with one evaluation seed.
 */
import { Effect } from "effect"
import type { Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { EventStore } from "@core/eventstore"
import type { ParsedArgs } from "./Cli.ts"
import { CliError, UsageError } from "./Cli.ts"
import type { FlagSpec } from "./Cli.ts"
import { loadConfig } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { openStore } from "./Store.ts"
import { evalApp } from "./EvalApp.ts"
import { allowSecretFlags, packSecretRule } from "./PackSecrets.ts"
import { bundledArms, packArms } from "./ReportArms.ts"
import type { ReportArms } from "./ReportArms.ts"
import { meanOver, pairedDifference, perTaskMean, summarise } from "./ReportStats.ts"
import type { Interval } from "./ReportStats.ts"
import { evaluatePolicies, modelAtRound } from "./PolicyEval.ts"
import type { PolicyEvalResult } from "./PolicyEval.ts"
import { modelDigestInput } from "@core/policy"
import type { RetrievalModel, RetrievalVersion } from "@core/policy"
import { sha256 } from "@core/events"
import { RUN_CONFIG_KEYS, RUN_DEFAULTS } from "@core/pipeline"
import type { RunTask } from "@core/pipeline"
import type { RunPlan } from "@core/run"
import { positiveInt } from "./Cli.ts"

export const REPORT_FLAGS: Readonly<Record<string, FlagSpec>> = {
  report: { kind: "boolean", description: "compare behaviour cloning, CORE rounds and two ablations over several seeds" },
  seeds: { kind: "number", description: "with --report: seeds (default 3)" },
  rounds: { kind: "number", description: "with --report: CORE rounds per run (default 3)" },
  site: { kind: "string", description: "with --report: one site's tasks (default shop)" },
  app: {
    kind: "string",
    description:
      "an app pack folder: its held-out tasks, judged by its evaluate (default: the run's own pack, if it ran on one); with --report, its train tasks too, instead of a bundled site"
  },
  tasks: { kind: "string", description: "with --report: train task ids (comma-separated); default one instance of each train template" },
  "report-samples": { kind: "number", description: "with --report: rollouts per task and round in the runs (default 1)" },
  "no-judge": {
    kind: "boolean",
    description: "with --report --app: take the step files played as demos without asking the pack's evaluate (as run --no-judge)"
  },
  "held-out": {
    kind: "string",
    description: "with --report: held-out task ids (comma-separated); default one held-out instance of each template"
  },
  split: {
    kind: "string",
    choices: ["default", "other-routes", "both"],
    description:
      "held-out instances that start where the demos do (default), those that start elsewhere or with the demo's route switched off (other-routes), or both"
  },
  ...allowSecretFlags
}

export { reportTasks } from "./ReportArms.ts"
export { perTaskMean, summarise } from "./ReportStats.ts"
export type { Interval } from "./ReportStats.ts"

type SplitName = "default" | "other-routes"

interface Arms {
  readonly bc: Array<Record<string, number>>
  readonly rounds: Array<Array<Record<string, number>>>
  readonly no_expansion: Array<Record<string, number>>
  readonly no_extrapolation: Array<Record<string, number>>
}

interface Split {
  readonly name: SplitName
  readonly tasks: ReadonlyArray<RunTask>
  /** Per task id, its variant (other-routes only). */
  readonly variants: ReadonlyMap<string, string>
  readonly arms: Arms
}

const emptyArms = (rounds: number): Arms => ({
  bc: [],
  rounds: Array.from({ length: rounds }, () => []),
  no_expansion: [],
  no_extrapolation: []
})

/** Each split's arms, from one seed's per-model results: models are bc, rounds 1..n, then the two ablations. */
const recordSeed = (splits: ReadonlyArray<Split>, perModel: ReadonlyArray<Readonly<Record<string, number>>>, rounds: number) => {
  for (const split of splits) {
    const mine = (i: number) => Object.fromEntries(split.tasks.map((t) => [t.id, perModel[i]![t.id] ?? 0]))
    split.arms.bc.push(mine(0))
    for (let r = 1; r <= rounds; r++) split.arms.rounds[r - 1]!.push(mine(r))
    split.arms.no_expansion.push(mine(rounds + 1))
    split.arms.no_extrapolation.push(mine(rounds + 2))
  }
}

/** One split's table: every arm's interval, which tasks each solves, and CORE's last round paired against bc and the ablations. */
const splitTable = (split: Split) => {
  const { arms } = split
  const core = arms.rounds.at(-1)!
  const variants = [...new Set(split.variants.values())].sort()
  const ofVariant = (v: string) => split.tasks.filter((t) => split.variants.get(t.id) === v).map((t) => t.id)
  return {
    bc: summarise(arms.bc),
    rounds: arms.rounds.map((r) => summarise(r)),
    no_expansion: summarise(arms.no_expansion),
    no_extrapolation: summarise(arms.no_extrapolation),
    // CORE's last round minus each other arm, task by task: its lower bound is the test
    paired: {
      core_vs_bc: pairedDifference(core, arms.bc),
      core_vs_no_expansion: pairedDifference(core, arms.no_expansion),
      core_vs_no_extrapolation: pairedDifference(core, arms.no_extrapolation)
    },
    // which held-out tasks each arm solves (share of seeds): where the arms differ, if they do
    per_task: {
      bc: perTaskMean(arms.bc),
      rounds: arms.rounds.map(perTaskMean),
      no_expansion: perTaskMean(arms.no_expansion),
      no_extrapolation: perTaskMean(arms.no_extrapolation)
    },
    ...(variants.length === 0
      ? {}
      : {
          by_variant: Object.fromEntries(
            variants.map((v) => [
              v,
              {
                tasks: ofVariant(v).length,
                bc: meanOver(arms.bc, ofVariant(v)),
                core: meanOver(core, ofVariant(v)),
                no_expansion: meanOver(arms.no_expansion, ofVariant(v)),
                no_extrapolation: meanOver(arms.no_extrapolation, ofVariant(v))
              }
            ])
          )
        })
  }
}
type SplitTable = ReturnType<typeof splitTable>

const printTable = (site: string, seeds: number, split: Split, table: SplitTable) => {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const row = (name: string, i: Interval) =>
    console.log(`${name.padEnd(18)} ${pct(i.mean).padStart(6)}  [${pct(i.ci_low)}, ${pct(i.ci_high)}]`)
  const what = split.name === "default" ? "held-out success" : "held-out success, other start or route off"
  console.log(`${what} on ${site} (${split.tasks.length} tasks), ${seeds} seeds, 95% bootstrap CI over tasks`)
  row("bc (round 0)", table.bc)
  table.rounds.forEach((r, k) => row(`CORE round ${k + 1}`, r))
  row("no expansion", table.no_expansion)
  row("no extrapolation", table.no_extrapolation)
  const points = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}`
  for (const [name, p] of Object.entries(table.paired))
    console.log(
      `CORE round ${table.rounds.length} − ${name.replace("core_vs_", "").replaceAll("_", " ")}: ${points(p.mean_diff)} points, paired 95% CI [${points(p.ci_low)}, ${points(p.ci_high)}]`
    )
  for (const [v, b] of Object.entries(table.by_variant ?? {}))
    console.log(`  ${v} (${b.tasks} tasks): bc ${pct(b.bc ?? 0)}, CORE ${pct(b.core ?? 0)}`)
  const armsPerTask = [table.per_task.bc, ...table.per_task.rounds, table.per_task.no_expansion, table.per_task.no_extrapolation]
  const ids = split.tasks.map((t) => t.id)
  const never = ids.filter((t) => armsPerTask.every((a) => (a[t] ?? 0) === 0))
  const differ = ids.filter((t) => new Set(armsPerTask.map((a) => a[t] ?? 0)).size > 1)
  console.log(`solved by no arm: ${never.join(", ") || "none"}`)
  console.log(`where the arms differ: ${differ.join(", ") || "nowhere"}`)
}

/** The splits `--split` asks for, with their tasks; a split without tasks is a usage error. */
const chosenSplits = (args: ParsedArgs, arms: ReportArms, rounds: number) =>
  Effect.gen(function* () {
    const choice = (args.flags.split as string | undefined) ?? "default"
    const names: ReadonlyArray<SplitName> = choice === "both" ? ["default", "other-routes"] : [choice as SplitName]
    if (names.includes("other-routes") && arms.otherRoutes.length === 0)
      return yield* new UsageError({ message: `--split ${choice}: ${arms.site} has no held-out instances with another start or route` })
    return names.map(
      (name): Split => ({
        name,
        tasks: name === "default" ? arms.heldOut : arms.otherRoutes,
        variants: new Map(name === "default" ? [] : arms.otherRoutes.map((t) => [t.id, t.variant])),
        arms: emptyArms(rounds)
      })
    )
  })

interface Settings {
  readonly args: ParsedArgs
  readonly seeds: number
  readonly rounds: number
  readonly samples: number
  readonly evalSamples: number
  readonly stepBudget: number
  readonly parallel: number
  readonly packDir: string | undefined
  readonly arms: ReportArms
  readonly layer: Layer.Layer<EventStore | BlobStore, unknown>
  /** Every arm's held-out episodes draw from this one seed (common random numbers): arms differ only in their models. */
  readonly evalSeed: string
  readonly log: (line: string) => void
}

/** One seed's three runs — CORE and the two ablations — and the models the report compares, bc first. */
const playSeed = (o: Settings, seed: string, config: LoadedConfig) =>
  Effect.gen(function* () {
    const play = (tuning: NonNullable<RunPlan["tuning"]>, label: string) =>
      Effect.gen(function* () {
        o.log(`seed ${seed}: ${label} run (${o.arms.train.length} tasks, ${o.rounds} rounds × ${o.samples} samples)`)
        return yield* o.arms.play(config, o.layer, {
          command: "run",
          rounds: o.rounds,
          samples: o.samples,
          stepBudget: o.stepBudget,
          parallel: o.parallel,
          policy: "embedded",
          screenshots: "none",
          tuning: { explorePerTask: 1, extrapolatedSamples: 1, ...tuning },
          sources: { [RUN_CONFIG_KEYS.policy]: "flag:--report" }
        })
      })
    const full = yield* play({}, "CORE")
    const noExpansion = yield* play({ explorePerTask: 0, expandPerTask: 0 }, "no-expansion")
    const noExtrapolation = yield* play({ extrapolatePerTask: 0 }, "no-extrapolation")
    const arm = (events: Parameters<typeof modelAtRound>[0], round: number, label: string) => {
      const m = modelAtRound(events, round)
      return typeof m === "string"
        ? Effect.fail(new CliError({ message: `${label}: ${m}` }))
        : Effect.succeed({ label, model: m.model, retrieval: m.retrieval })
    }
    const models = yield* Effect.all([
      arm(full.events, 0, "bc"),
      ...Array.from({ length: o.rounds }, (_, k) => arm(full.events, k + 1, `round ${k + 1}`)),
      arm(noExpansion.events, o.rounds, "no-expansion"),
      arm(noExtrapolation.events, o.rounds, "no-extrapolation")
    ])
    return { run: { seed, core: full.runId, no_expansion: noExpansion.runId, no_extrapolation: noExtrapolation.runId }, models }
  })

/**
 * Each model's per-task success on `tasks`, playing only the models not evaluated before: a
 * model evaluated once is not evaluated again — behaviour cloning's, a function of the demos
 * alone, is the same in every seed. The policy's version is part of what is evaluated: the
 * same model read by another version is another arm.
 */
const evaluateSeed = (
  o: Settings,
  seed: string,
  config: LoadedConfig,
  tasks: ReadonlyArray<RunTask>,
  models: ReadonlyArray<{ readonly label: string; readonly model: RetrievalModel; readonly retrieval: RetrievalVersion }>,
  evaluated: Map<string, PolicyEvalResult>
) =>
  Effect.gen(function* () {
    const digests = models.map((m) => sha256(`${m.retrieval}:${modelDigestInput(m.model)}`))
    const fresh = models.flatMap((_m, i) => (evaluated.has(digests[i]!) || digests.indexOf(digests[i]!) !== i ? [] : [i]))
    // The app is started for the evaluation alone: a pack's pool holds no instances while the runs play.
    const results = yield* Effect.scoped(
      Effect.flatMap(evalApp(o.packDir, config, packSecretRule(config, o.args)), ({ app, environment }) =>
        evaluatePolicies(
          {
            app,
            environment,
            tasks,
            models: fresh.map((i) => ({ model: models[i]!.model, retrieval: models[i]!.retrieval })),
            seed: o.evalSeed,
            samples: o.evalSamples,
            stepBudget: o.stepBudget,
            parallel: o.parallel,
            onModel: (k, r) => o.log(`seed ${seed}: ${models[fresh[k]!]!.label}: ${r.successes}/${r.episodes} held-out episodes succeeded`)
          },
          o.layer
        )
      )
    )
    fresh.forEach((i, k) => evaluated.set(digests[i]!, results[k]!))
    for (const [i, m] of models.entries()) {
      const r = evaluated.get(digests[i]!)!
      if (!fresh.includes(i)) o.log(`seed ${seed}: ${m.label}: the same model as one evaluated before: ${r.successes}/${r.episodes}`)
    }
    return models.map((_m, i) => evaluated.get(digests[i]!)!.per_task)
  })

export const evalReport = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const started = Date.now()
    const list = (flag: string) =>
      typeof args.flags[flag] === "string"
        ? (args.flags[flag] as string)
            .split(",")
            .map((x) => x.trim())
            .filter(Boolean)
        : null
    const packDir = args.flags.app as string | undefined
    const arms =
      packDir === undefined ? yield* bundledArms(args, list) : yield* packArms(packDir, list, args, args.flags["no-judge"] !== true)
    const base = (args.flags.seed as string | undefined) ?? "report"
    const o: Settings = {
      args,
      seeds: yield* positiveInt(args, "seeds", 3),
      rounds: yield* positiveInt(args, "rounds", 3),
      samples: yield* positiveInt(args, "report-samples", 1),
      evalSamples: yield* positiveInt(args, "samples", 1),
      stepBudget: yield* positiveInt(args, "step-budget", RUN_DEFAULTS.stepBudget),
      parallel: yield* positiveInt(args, "parallel", 2),
      packDir,
      arms,
      layer: (yield* openStore(args)).layer,
      evalSeed: `${base}-eval`,
      log: (line) => console.error(`eval report: ${line}`)
    }
    const splits = yield* chosenSplits(args, arms, o.rounds)
    // One evaluation per model covers every split: the browser and app start once.
    const heldOut = [...new Map(splits.flatMap((s) => s.tasks).map((t) => [t.id, t])).values()]
    const runs: Array<Record<string, string>> = []
    const evaluated = new Map<string, PolicyEvalResult>()
    for (let i = 0; i < o.seeds; i++) {
      const seed = `${base}-${i + 1}`
      const config = yield* loadConfig({ flags: { ...args.flags, seed } }).pipe(
        Effect.mapError((e) => new CliError({ message: e.message }))
      )
      const { run, models } = yield* playSeed(o, seed, config)
      runs.push(run)
      recordSeed(splits, yield* evaluateSeed(o, seed, config, heldOut, models, evaluated), o.rounds)
    }
    const report = reportOf(o, splits, runs, started)
    if (args.flags.json === true) {
      console.log(JSON.stringify(report))
      return
    }
    for (const split of splits) {
      printTable(arms.site, o.seeds, split, splitTable(split))
      console.log("")
    }
    console.log(`${report.seconds} s`)
  })

/** The JSON report: the default split's table at the top, as the report always printed it; the other split beside it. */
const reportOf = (o: Settings, splits: ReadonlyArray<Split>, runs: ReadonlyArray<Record<string, string>>, started: number) => {
  const byName = (name: SplitName) => splits.find((s) => s.name === name)
  const main = byName("default")
  const other = byName("other-routes")
  return {
    ...(main === undefined ? {} : splitTable(main)),
    ...(other === undefined ? {} : { other_routes: splitTable(other) }),
    config: {
      site: o.arms.site,
      split: (o.args.flags.split as string | undefined) ?? "default",
      train_tasks: o.arms.train.length,
      train: o.arms.train.map((t) => t.id),
      held_out: main?.tasks.map((t) => t.id) ?? [],
      held_out_tasks: main?.tasks.length ?? 0,
      other_routes: other?.tasks.map((t) => t.id) ?? [],
      other_routes_tasks: other?.tasks.length ?? 0,
      seeds: o.seeds,
      rounds: o.rounds,
      samples: o.samples,
      eval_samples: o.evalSamples,
      eval_seed: o.evalSeed,
      step_budget: o.stepBudget
    },
    runs,
    seconds: Math.round((Date.now() - started) / 1000)
  }
}
