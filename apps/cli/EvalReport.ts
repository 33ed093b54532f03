/**
 * `bun core eval --report [--seeds 3] [--rounds 3] [--site S | --app <pack>] [--json]`: does
 * CORE make the agent better — on a bundled site, or on an app pack (ReportArms.ts)? Per seed, three CORE runs of the same train tasks with the embedded policy
 * — full, without expansion (no explorer, no new paths) and without extrapolation — then the
 * held-out success (PolicyEval.ts) of:
 *
 * - `bc`: the policy trained on round 0 alone (the demos: behaviour cloning);
 * - `rounds[k-1]`: the full run's policy after round k;
 * - `no_expansion`, `no_extrapolation`: each ablation's policy after its last round.
 *
 * Every arm uses the same policy code, hyperparameters, tasks and seed; the ablations share
 * round 0 with the full run (it is the demos only), so they fork from it. Each figure is the
 * mean over seeds with a 95% bootstrap interval over held-out tasks (per-task success
 * averaged over seeds, 2,000 resamples from a fixed seed).
 *
 * On a bundled site, sized for 25 minutes on 2 cores at the defaults: one train and one held-out instance per
 * template, one rollout and one explorer episode per task and round, one rollout per
 * extrapolated task, no screenshots in the runs (the embedded policy reads none), and each
 * distinct model evaluated once, all with one evaluation seed.
 */
import { Effect } from "effect"
import type { ParsedArgs } from "./Cli.ts"
import { CliError } from "./Cli.ts"
import type { FlagSpec } from "./Cli.ts"
import { loadConfig } from "@core/config"
import { openStore } from "./Store.ts"
import { evalApp } from "./EvalApp.ts"
import { bundledArms, packArms } from "./ReportArms.ts"
import { evaluatePolicies, modelAtRound } from "./PolicyEval.ts"
import type { PolicyEvalResult } from "./PolicyEval.ts"
import { modelDigestInput } from "@core/policy"
import { sha256 } from "@core/events"
import { RUN_CONFIG_KEYS, RUN_DEFAULTS } from "@core/pipeline"
import type { RunPlan } from "@core/pipeline"
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
  "held-out": {
    kind: "string",
    description: "with --report: held-out task ids (comma-separated); default one held-out instance of each template"
  }
}

export { reportTasks } from "./ReportArms.ts"

export interface Interval {
  readonly mean: number
  readonly ci_low: number
  readonly ci_high: number
}

type PerSeed = ReadonlyArray<Readonly<Record<string, number>>>

/** Each task's success averaged over seeds, tasks sorted. */
const taskMeans = (perSeed: PerSeed): Array<readonly [string, number]> =>
  Object.keys(perSeed[0] ?? {})
    .sort()
    .map((t) => [t, perSeed.reduce((n, s) => n + (s[t] ?? 0), 0) / perSeed.length] as const)

const round = (x: number) => Math.round(x * 1000) / 1000

/** Mean of per-seed rates, and a 95% bootstrap interval over tasks (each task's success averaged over seeds). */
export const summarise = (perSeed: PerSeed, resamples = 2000): Interval => {
  const byTask = taskMeans(perSeed).map(([, m]) => m)
  const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
  let state = 0x2545f491
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32
  const means = Array.from({ length: resamples }, () => mean(byTask.map(() => byTask[Math.floor(next() * byTask.length)]!))).sort(
    (a, b) => a - b
  )
  return {
    mean: round(mean(perSeed.map((s) => mean(Object.values(s))))),
    ci_low: round(means[Math.floor(resamples * 0.025)] ?? 0),
    ci_high: round(means[Math.ceil(resamples * 0.975) - 1] ?? 0)
  }
}

/** Each task's success averaged over seeds, as the report prints it. */
export const perTaskMean = (perSeed: PerSeed): Record<string, number> =>
  Object.fromEntries(taskMeans(perSeed).map(([t, m]) => [t, round(m)]))

export const evalReport = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const started = Date.now()
    const seeds = yield* positiveInt(args, "seeds", 3)
    const rounds = yield* positiveInt(args, "rounds", 3)
    const samples = yield* positiveInt(args, "report-samples", 1)
    const evalSamples = yield* positiveInt(args, "samples", 1)
    const stepBudget = yield* positiveInt(args, "step-budget", RUN_DEFAULTS.stepBudget)
    const parallel = yield* positiveInt(args, "parallel", 2)
    const packDir = args.flags.app as string | undefined
    const list = (flag: string) =>
      typeof args.flags[flag] === "string"
        ? (args.flags[flag] as string)
            .split(",")
            .map((x) => x.trim())
            .filter(Boolean)
        : null
    const { site, train, heldOut, play: runArm } = packDir === undefined ? yield* bundledArms(args, list) : yield* packArms(packDir, list)
    const opened = yield* openStore(args)
    const base = (args.flags.seed as string | undefined) ?? "report"
    const arms = {
      bc: [] as Array<Record<string, number>>,
      rounds: Array.from({ length: rounds }, () => [] as Array<Record<string, number>>),
      no_expansion: [] as Array<Record<string, number>>,
      no_extrapolation: [] as Array<Record<string, number>>
    }
    const runs: Array<Record<string, string>> = []
    // Every arm's held-out episodes draw from one evaluation seed (common random numbers):
    // arms differ only in their models, and a model evaluated once is not evaluated again —
    // behaviour cloning's, a function of the demos alone, is the same in every seed.
    const evalSeed = `${base}-eval`
    const evaluated = new Map<string, PolicyEvalResult>()
    const log = (line: string) => console.error(`eval report: ${line}`)
    for (let i = 0; i < seeds; i++) {
      const seed = `${base}-${i + 1}`
      const config = yield* loadConfig({ flags: { ...args.flags, seed } }).pipe(
        Effect.mapError((e) => new CliError({ message: e.message }))
      )
      const play = (tuning: NonNullable<RunPlan["tuning"]>, label: string) =>
        Effect.gen(function* () {
          log(`seed ${seed}: ${label} run (${train.length} tasks, ${rounds} rounds × ${samples} samples)`)
          return yield* runArm(config, opened.layer, {
            command: "run",
            rounds,
            samples,
            stepBudget,
            parallel,
            policy: "embedded",
            screenshots: "none",
            tuning: { explorePerTask: 1, extrapolatedSamples: 1, ...tuning },
            sources: { [RUN_CONFIG_KEYS.policy]: "flag:--report" }
          })
        })
      const full = yield* play({}, "CORE")
      const noExpansion = yield* play({ explorePerTask: 0, expandPerTask: 0 }, "no-expansion")
      const noExtrapolation = yield* play({ extrapolatePerTask: 0 }, "no-extrapolation")
      runs.push({ seed, core: full.runId, no_expansion: noExpansion.runId, no_extrapolation: noExtrapolation.runId })
      const arm = (events: Parameters<typeof modelAtRound>[0], round: number, label: string) => {
        const m = modelAtRound(events, round)
        return typeof m === "string" ? Effect.fail(new CliError({ message: `${label}: ${m}` })) : Effect.succeed({ label, model: m.model })
      }
      const models = yield* Effect.all([
        arm(full.events, 0, "bc"),
        ...Array.from({ length: rounds }, (_, k) => arm(full.events, k + 1, `round ${k + 1}`)),
        arm(noExpansion.events, rounds, "no-expansion"),
        arm(noExtrapolation.events, rounds, "no-extrapolation")
      ])
      const digests = models.map((m) => sha256(modelDigestInput(m.model)))
      const fresh = models.flatMap((_m, i) => (evaluated.has(digests[i]!) || digests.indexOf(digests[i]!) !== i ? [] : [i]))
      // The app is started for the evaluation alone: a pack's pool holds no instances while the runs play.
      const results = yield* Effect.scoped(
        Effect.flatMap(evalApp(packDir, config), ({ app, environment }) =>
          evaluatePolicies(
            {
              app,
              environment,
              tasks: heldOut,
              models: fresh.map((i) => models[i]!.model),
              seed: evalSeed,
              samples: evalSamples,
              stepBudget,
              parallel,
              onModel: (k, r) => log(`seed ${seed}: ${models[fresh[k]!]!.label}: ${r.successes}/${r.episodes} held-out episodes succeeded`)
            },
            opened.layer
          )
        )
      )
      fresh.forEach((i, k) => evaluated.set(digests[i]!, results[k]!))
      for (const [i, m] of models.entries()) {
        const r = evaluated.get(digests[i]!)!
        if (!fresh.includes(i)) log(`seed ${seed}: ${m.label}: the same model as one evaluated before: ${r.successes}/${r.episodes}`)
      }
      const perTask = (i: number) => evaluated.get(digests[i]!)!.per_task
      arms.bc.push(perTask(0))
      for (let r = 1; r <= rounds; r++) arms.rounds[r - 1]!.push(perTask(r))
      arms.no_expansion.push(perTask(rounds + 1))
      arms.no_extrapolation.push(perTask(rounds + 2))
    }
    const report = {
      bc: summarise(arms.bc),
      rounds: arms.rounds.map((r) => summarise(r)),
      no_expansion: summarise(arms.no_expansion),
      no_extrapolation: summarise(arms.no_extrapolation),
      // which held-out tasks each arm solves (share of seeds): where the arms differ, if they do
      per_task: {
        bc: perTaskMean(arms.bc),
        rounds: arms.rounds.map(perTaskMean),
        no_expansion: perTaskMean(arms.no_expansion),
        no_extrapolation: perTaskMean(arms.no_extrapolation)
      },
      config: {
        site,
        train_tasks: train.length,
        train: train.map((t) => t.id),
        held_out: heldOut.map((t) => t.id),
        held_out_tasks: heldOut.length,
        seeds,
        rounds,
        samples,
        eval_samples: evalSamples,
        eval_seed: evalSeed,
        step_budget: stepBudget
      },
      runs,
      seconds: Math.round((Date.now() - started) / 1000)
    }
    if (args.flags.json === true) {
      console.log(JSON.stringify(report))
      return
    }
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`
    const row = (name: string, i: Interval) =>
      console.log(`${name.padEnd(18)} ${pct(i.mean).padStart(6)}  [${pct(i.ci_low)}, ${pct(i.ci_high)}]`)
    console.log(`held-out success on ${site} (${heldOut.length} tasks), ${seeds} seeds, 95% bootstrap CI over tasks`)
    row("bc (round 0)", report.bc)
    report.rounds.forEach((r, k) => row(`CORE round ${k + 1}`, r))
    row("no expansion", report.no_expansion)
    row("no extrapolation", report.no_extrapolation)
    const armsPerTask = [report.per_task.bc, ...report.per_task.rounds, report.per_task.no_expansion, report.per_task.no_extrapolation]
    const ids = heldOut.map((t) => t.id)
    const never = ids.filter((t) => armsPerTask.every((a) => (a[t] ?? 0) === 0))
    const differ = ids.filter((t) => new Set(armsPerTask.map((a) => a[t] ?? 0)).size > 1)
    console.log(`solved by no arm: ${never.join(", ") || "none"}`)
    console.log(`where the arms differ: ${differ.join(", ") || "nowhere"}`)
    console.log(`${report.seconds} s`)
  })
