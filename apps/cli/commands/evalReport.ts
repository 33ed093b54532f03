/**
 * `bun core eval --report [--seeds 3] [--rounds 3] [--site S] [--json]`: does CORE make the
 * agent better? Per seed, three CORE runs of the same train tasks with the embedded policy
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
 */
import { Effect } from "effect"
import type { ParsedArgs } from "../Cli.ts"
import { CliError, UsageError } from "../Cli.ts"
import type { FlagSpec } from "../Cli.ts"
import { loadConfig } from "@core/config"
import { loadSuites } from "@core/sites/suites"
import { SOLVED_SUITES } from "@core/sites/solutions"
import { openStore } from "../Store.ts"
import { executeRun } from "../RunEngine.ts"
import { evaluatePolicy, modelAtRound } from "../PolicyEval.ts"
import { positiveInt } from "./run.ts"

export const REPORT_FLAGS: Readonly<Record<string, FlagSpec>> = {
  report: { kind: "boolean", description: "compare behaviour cloning, CORE rounds and two ablations over several seeds" },
  seeds: { kind: "number", description: "with --report: seeds (default 3)" },
  rounds: { kind: "number", description: "with --report: CORE rounds per run (default 3)" },
  site: { kind: "string", description: "with --report: one site's tasks (default shop)" },
  tasks: { kind: "string", description: "with --report: train task ids (comma-separated) instead of the site's train split" },
  "report-samples": { kind: "number", description: "with --report: rollouts per task and round in the runs (default 2)" },
  "held-out": { kind: "string", description: "with --report: held-out task ids (comma-separated) instead of the site's held-out split (a mini-suite)" }
}

export interface Interval { readonly mean: number; readonly ci_low: number; readonly ci_high: number }

/** Mean of per-seed rates, and a 95% bootstrap interval over tasks (each task's success averaged over seeds). */
export const summarise = (perSeed: ReadonlyArray<Readonly<Record<string, number>>>, resamples = 2000): Interval => {
  const tasks = Object.keys(perSeed[0] ?? {}).sort()
  const byTask = tasks.map((t) => perSeed.reduce((n, s) => n + (s[t] ?? 0), 0) / perSeed.length)
  const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length)
  let state = 0x2545f491
  const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32)
  const means = Array.from({ length: resamples }, () => mean(byTask.map(() => byTask[Math.floor(next() * byTask.length)]!))).sort((a, b) => a - b)
  const round = (x: number) => Math.round(x * 1000) / 1000
  return {
    mean: round(mean(perSeed.map((s) => mean(Object.values(s))))),
    ci_low: round(means[Math.floor(resamples * 0.025)] ?? 0),
    ci_high: round(means[Math.ceil(resamples * 0.975) - 1] ?? 0)
  }
}

export const evalReport = (args: ParsedArgs) =>
  Effect.gen(function*() {
    const started = Date.now()
    const seeds = yield* positiveInt(args, "seeds", 3)
    const rounds = yield* positiveInt(args, "rounds", 3)
    const samples = yield* positiveInt(args, "report-samples", 2)
    const evalSamples = yield* positiveInt(args, "samples", 1)
    const stepBudget = yield* positiveInt(args, "step-budget", 12)
    const parallel = yield* positiveInt(args, "parallel", 2)
    const site = (args.flags.site as string | undefined) ?? "shop"
    const suites = yield* loadSuites().pipe(Effect.mapError((e) => new CliError({ message: e.message })))
    const all = suites.flatMap((s) => s.tasks).filter((t) => SOLVED_SUITES.includes(t.suite) && t.site === site)
    if (all.length === 0) return yield* new UsageError({ message: `--site ${site}: no such site with scripted demos (shop, forum, travel)` })
    const wanted = typeof args.flags.tasks === "string" ? args.flags.tasks.split(",").map((s) => s.trim()).filter(Boolean) : null
    const train = all.filter((t) => t.split === "train" && (wanted === null || wanted.includes(t.id)))
    if (wanted !== null && train.length !== wanted.length) return yield* new UsageError({ message: `--tasks names tasks that are not ${site} train tasks` })
    const only = typeof args.flags["held-out"] === "string" ? args.flags["held-out"].split(",").map((s) => s.trim()).filter(Boolean) : null
    const heldOut = all.filter((t) => t.split === "held-out" && (only === null || only.includes(t.id)))
    if (only !== null && heldOut.length !== only.length) return yield* new UsageError({ message: `--held-out names tasks that are not ${site} held-out tasks` })
    const opened = yield* openStore(args)
    const base = (args.flags.seed as string | undefined) ?? "report"
    const arms = { bc: [] as Array<Record<string, number>>, rounds: Array.from({ length: rounds }, () => [] as Array<Record<string, number>>), no_expansion: [] as Array<Record<string, number>>, no_extrapolation: [] as Array<Record<string, number>> }
    const runs: Array<Record<string, string>> = []
    const log = (line: string) => console.error(`eval report: ${line}`)
    for (let i = 0; i < seeds; i++) {
      const seed = `${base}-${i + 1}`
      const config = yield* loadConfig({ flags: { ...args.flags, seed } }).pipe(Effect.mapError((e) => new CliError({ message: e.message })))
      const play = (extra: Record<string, number>, label: string) =>
        Effect.gen(function*() {
          log(`seed ${seed}: ${label} run (${train.length} tasks, ${rounds} rounds × ${samples} samples)`)
          return yield* executeRun(config, opened.layer, {
            command: "run", tasks: train, rounds, samples, stepBudget, parallel, policy: "embedded", extra: { "run.explorePerTask": 1, ...extra },
            sources: { "run.policy": "flag:--report" }
          })
        })
      const score = (events: Parameters<typeof modelAtRound>[0], round: number, label: string) =>
        Effect.gen(function*() {
          const m = modelAtRound(events, round)
          if (typeof m === "string") return yield* new CliError({ message: `${label}: ${m}` })
          const r = yield* evaluatePolicy({ tasks: heldOut, model: m.model, seed, samples: evalSamples, stepBudget, parallel }, opened.layer)
          log(`seed ${seed}: ${label}: ${r.successes}/${r.episodes} held-out episodes succeeded`)
          return r.per_task
        })
      const full = yield* play({}, "CORE")
      const noExpansion = yield* play({ "run.explorePerTask": 0, "run.expandPerTask": 0 }, "no-expansion")
      const noExtrapolation = yield* play({ "run.extrapolatePerTask": 0 }, "no-extrapolation")
      runs.push({ seed, core: full.runId, no_expansion: noExpansion.runId, no_extrapolation: noExtrapolation.runId })
      arms.bc.push(yield* score(full.events, 0, "bc"))
      for (let r = 1; r <= rounds; r++) arms.rounds[r - 1]!.push(yield* score(full.events, r, `round ${r}`))
      arms.no_expansion.push(yield* score(noExpansion.events, rounds, "no-expansion"))
      arms.no_extrapolation.push(yield* score(noExtrapolation.events, rounds, "no-extrapolation"))
    }
    const report = {
      bc: summarise(arms.bc),
      rounds: arms.rounds.map((r) => summarise(r)),
      no_expansion: summarise(arms.no_expansion),
      no_extrapolation: summarise(arms.no_extrapolation),
      config: { site, train_tasks: train.length, held_out_tasks: heldOut.length, seeds, rounds, samples, eval_samples: evalSamples, step_budget: stepBudget },
      runs,
      seconds: Math.round((Date.now() - started) / 1000)
    }
    if (args.flags.json === true) {
      console.log(JSON.stringify(report))
      return
    }
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`
    const row = (name: string, i: Interval) => console.log(`${name.padEnd(18)} ${pct(i.mean).padStart(6)}  [${pct(i.ci_low)}, ${pct(i.ci_high)}]`)
    console.log(`held-out success on ${site} (${heldOut.length} tasks), ${seeds} seeds, 95% bootstrap CI over tasks`)
    row("bc (round 0)", report.bc)
    report.rounds.forEach((r, k) => row(`CORE round ${k + 1}`, r))
    row("no expansion", report.no_expansion)
    row("no extrapolation", report.no_extrapolation)
    console.log(`${report.seconds} s`)
  })
