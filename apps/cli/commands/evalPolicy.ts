/**
 * `bun core eval --suite held-out --policy embedded|learned --round N [--run R] [--samples K] [--json]`:
 * the held-out success rate of the policy a CORE run had trained through round N (0 =
 * behaviour cloning on the demos) — the retrieval policy, or the learner trained on the run's
 * records — by the ground-truth checkers (libs/evaluation ArmModels.ts, PolicyEval.ts).
 * `--report` compares arms of separate runs (EvalReport.ts): its flags and tables are here.
 */
import { Effect } from "effect"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError, UsageError } from "../Cli.ts"
import type { LoadedConfig } from "@core/config"
import {
  armAt,
  bundledArms,
  EVAL_POLICIES,
  evalApp,
  evalReport,
  evaluatePolicy,
  heldOutTaskOf,
  packArms,
  policyHeldOut,
  sealedRun
} from "@core/evaluation"
import type { EvalPolicy } from "@core/evaluation"
import type { Interval, Split, SplitTable } from "@core/evaluation"
import { openStore } from "@core/run"
import { Progress } from "../Progress.ts"
import { isToken, runLog, runsWith } from "@core/engine"
import { commonConfigFlags } from "../ConfigFlags.ts"
import { positiveInt } from "../Cli.ts"
import type { FlagSpec, ParsedArgs } from "../Cli.ts"
import { allowSecretFlags, packSecretRule } from "../PackSecrets.ts"
import { runOnBundledSites } from "@core/sites/run"
import { runOnPack } from "@core/run"
import { loadConfig } from "@core/config"
import { RUN_DEFAULTS } from "@core/pipeline"
import { plural } from "@core/demos"

const nonNegative = (v: unknown, flag: string) =>
  v === undefined || (typeof v === "number" && Number.isInteger(v) && v >= 0)
    ? Effect.succeed(v as number | undefined)
    : Effect.fail(new UsageError({ message: `--${flag} must be a whole number ≥ 0, got ${String(v)}` }))

const REPORT_FLAGS: Readonly<Record<string, FlagSpec>> = {
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

const printTable = (site: string, seeds: number, split: Split, table: SplitTable, policy: EvalPolicy) => {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const row = (name: string, i: Interval) =>
    console.log(`${name.padEnd(18)} ${pct(i.mean).padStart(6)}  [${pct(i.ci_low)}, ${pct(i.ci_high)}]`)
  const what = split.name === "default" ? "held-out success" : "held-out success, other start or route off"
  // The embedded policy's heading is what it always was; another policy is named.
  const of = policy === "embedded" ? "" : ` of the ${policy} policy`
  console.log(`${what}${of} on ${site} (${split.tasks.length} tasks), ${seeds} seeds, 95% bootstrap CI over tasks`)
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

/**
 * `eval --report`: the flags read into the report's settings, the runs started as `run` starts
 * them, the tables printed. A request naming what is not there is a usage error, as a bad flag is.
 */
const report = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const list = (flag: string) =>
      typeof args.flags[flag] === "string"
        ? (args.flags[flag] as string)
            .split(",")
            .map((x) => x.trim())
            .filter(Boolean)
        : null
    const packDir = args.flags.app as string | undefined
    const secrets = (config: LoadedConfig) => packSecretRule(config, args)
    const arms =
      packDir === undefined
        ? yield* bundledArms((args.flags.site as string | undefined) ?? "shop", list, (config, layer, plan) =>
            runOnBundledSites(config, layer, plan, new Progress(plan.command))
          )
        : yield* packArms(
            packDir,
            list,
            secrets,
            (config, layer, dir, plan, rule) => runOnPack(config, layer, dir, plan, rule, new Progress(plan.command)),
            args.flags["no-judge"] !== true
          )
    const o = {
      seeds: yield* positiveInt(args, "seeds", 3),
      rounds: yield* positiveInt(args, "rounds", 3),
      samples: yield* positiveInt(args, "report-samples", 1),
      evalSamples: yield* positiveInt(args, "samples", 1),
      stepBudget: yield* positiveInt(args, "step-budget", RUN_DEFAULTS.stepBudget),
      parallel: yield* positiveInt(args, "parallel", 2),
      packDir,
      arms,
      policy: (args.flags.policy as EvalPolicy | undefined) ?? "embedded",
      split: (args.flags.split as string | undefined) ?? "default",
      configFor: (seed: string) => loadConfig({ flags: { ...args.flags, seed } }),
      secrets,
      base: (args.flags.seed as string | undefined) ?? "report",
      layer: (yield* openStore(args)).layer,
      log: (line: string) => console.error(`eval report: ${line}`)
    }
    const { report, tables } = yield* evalReport(o)
    if (args.flags.json === true) {
      console.log(JSON.stringify(report))
      return
    }
    for (const { split, table } of tables) {
      printTable(arms.site, o.seeds, split, table, o.policy)
      console.log("")
    }
    console.log(`${report.seconds} s`)
  })

export const evalPolicy: Command<Failure> = {
  name: "eval",
  summary:
    "held-out success of the policy a run trained (by the ground-truth checkers); --report compares CORE with behaviour cloning and ablations",
  flags: {
    suite: {
      kind: "string",
      description: "held-out (the held-out instances of the run's sites; the only suite for now)",
      choices: ["held-out"]
    },
    policy: {
      kind: "string",
      description:
        "embedded (the retrieval policy trained on the run's datasets; default) or learned (the learner trained on them, as a learned run trains it); with --report, the policy the runs play too",
      choices: EVAL_POLICIES
    },
    round: { kind: "number", description: "the policy as trained through this round (0 = the demos alone); default the run's last" },
    run: { kind: "string", description: "the run whose datasets trained it (default: the latest CORE run in the log)" },
    samples: { kind: "number", description: "episodes per held-out task (default 1)" },
    "step-budget": { kind: "number", description: "steps per episode (default 12)" },
    parallel: { kind: "number", description: "browser contexts at once (default 2)" },
    seed: { kind: "string", description: "seed of the policy's draws (default 'eval')" },
    json: { kind: "boolean", description: "print one JSON object" },
    ...REPORT_FLAGS,
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.flags.report === true) return yield* report(args)
      const round = yield* nonNegative(args.flags.round, "round")
      const samples = yield* positiveInt(args, "samples", 1)
      const stepBudget = yield* positiveInt(args, "step-budget", 12)
      const parallel = yield* positiveInt(args, "parallel", 2)
      const policy = (args.flags.policy as EvalPolicy | undefined) ?? "embedded"
      const opened = yield* openStore(args, { quiet: args.flags.json === true })
      const chosen = args.flags.run as string | undefined
      if (chosen !== undefined && !isToken(chosen))
        return yield* new UsageError({ message: `--run takes a run id, got ${JSON.stringify(chosen)}` })
      const { runId, events } = yield* Effect.provide(
        Effect.gen(function* () {
          const runId = chosen ?? (yield* runsWith("run.*.round.*")).at(-1)
          if (runId === undefined)
            return yield* new CliError({ message: `no CORE run in the log: start one with bun core run --policy ${policy}` })
          return { runId, events: yield* runLog(runId) }
        }),
        opened.layer
      )
      const run = sealedRun(events, round ?? null)
      if (typeof run === "string") return yield* new CliError({ message: `run ${runId}: ${run}` })
      const at = run.round
      // A run on an app pack is evaluated on that pack's held-out tasks, by its evaluate.
      const ranOn = events.find((e) => e.type === "RunStarted")?.data.config["run.appDir"]
      const appDir = (args.flags.app as string | undefined) ?? (typeof ranOn === "string" ? ranOn : undefined)
      const seed = (args.flags.seed as string | undefined) ?? "eval"
      const progress = new Progress("eval")
      const result = yield* Effect.scoped(
        Effect.gen(function* () {
          const { app, pack, environment } = yield* evalApp(appDir, opened.config, packSecretRule(opened.config, args))
          const tasks = yield* policyHeldOut(pack, run.sites, args.flags.split as string | undefined)
          const trained = armAt(run, policy, tasks.map(heldOutTaskOf))
          if (trained.excluded > 0)
            progress.line(`${plural(trained.excluded, "record")} left out of training: of held-out tasks, or too near one`)
          progress.line(
            `run ${runId}, policy trained through round ${at} (${plural(trained.examples, "example")}), ${plural(tasks.length, "held-out task")} of ${pack?.config.name ?? "the bundled sites"} × ${samples}`
          )
          progress.start("held-out", tasks.length * samples)
          const evaluated = yield* evaluatePolicy(
            {
              app,
              environment,
              tasks,
              arm: trained.arm,
              seed,
              samples,
              stepBudget,
              parallel,
              onEpisode: (_, ok) => progress.count(ok ? "success" : "failure"),
              onStep: () => progress.tick()
            },
            opened.layer
          )
          return { examples: trained.examples, ...evaluated, excluded: trained.excluded }
        })
      )
      progress.done(`held-out: ${result.successes}/${result.episodes} succeeded`)
      const { excluded, ...scores } = result
      // The records left out are said only for the learned policy: the embedded one's output is what it always was.
      const out = {
        run: runId,
        round: at,
        policy,
        suite: "held-out",
        ...scores,
        ...(policy === "learned" ? { excluded_records: excluded } : {})
      }
      if (args.flags.json === true) console.log(JSON.stringify(out))
      else {
        console.log(
          `held-out success  ${(result.success_rate * 100).toFixed(1)}% (${result.successes}/${result.episodes}), policy of run ${runId} through round ${at}`
        )
        for (const [t, r] of Object.entries(result.per_task)) console.log(`  ${t.padEnd(36)} ${(r * 100).toFixed(0)}%`)
      }
    })
}
