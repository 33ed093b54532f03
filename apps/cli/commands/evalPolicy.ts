/**
 * `bun core eval --suite held-out --policy embedded --round N [--run R] [--samples K] [--json]`:
 * the held-out success rate of the embedded policy a CORE run had trained through round N
 * (0 = behaviour cloning on the demos), by the ground-truth checkers (PolicyEval.ts).
 * `--report` compares arms of separate runs (EvalReport.ts).
 */
import { Effect } from "effect"
import type { Command } from "../Cli.ts"
import { CliError, UsageError } from "../Cli.ts"
import { loadSuites } from "@core/sites/suites"
import { SOLVED_SUITES } from "@core/sites/solutions"
import { openStore } from "../Store.ts"
import { evaluatePolicy, modelAtRound } from "../PolicyEval.ts"
import { Progress } from "../Progress.ts"
import { isToken, runLog, runsWith } from "../RunLog.ts"
import { commonConfigFlags } from "../ConfigFlags.ts"
import { positiveInt } from "../Cli.ts"
import { evalReport, REPORT_FLAGS } from "../EvalReport.ts"
import { evalApp, packTasksOf } from "../EvalApp.ts"
import { packSecretRule } from "../PackSecrets.ts"
import { runTaskOf } from "@core/sites/app"
import type { RunTask } from "@core/pipeline"
import { plural } from "@core/demos"

/**
 * The held-out instances of the given sites (all sites when none is given) of a `--split`:
 * `default`, those that start where the demos start; `other-routes`, those that start on
 * another page or with the demo's route switched off; `both`.
 */
export const heldOutTasks = (sites: ReadonlySet<string> | null, split = "default") =>
  Effect.map(loadSuites().pipe(Effect.mapError((e) => new CliError({ message: e.message }))), (suites) =>
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

const nonNegative = (v: unknown, flag: string) =>
  v === undefined || (typeof v === "number" && Number.isInteger(v) && v >= 0)
    ? Effect.succeed(v as number | undefined)
    : Effect.fail(new UsageError({ message: `--${flag} must be a whole number ≥ 0, got ${String(v)}` }))

export const evalPolicy: Command = {
  name: "eval",
  summary:
    "held-out success of the embedded policy a run trained (by the ground-truth checkers); --report compares CORE with behaviour cloning and ablations",
  flags: {
    suite: {
      kind: "string",
      description: "held-out (the held-out instances of the run's sites; the only suite for now)",
      choices: ["held-out"]
    },
    policy: { kind: "string", description: "embedded (the retrieval policy trained on the run's datasets)", choices: ["embedded"] },
    round: { kind: "number", description: "the policy as trained through this round (0 = the demos alone); default the run's last" },
    run: { kind: "string", description: "the run whose datasets trained it (default: the latest embedded run in the log)" },
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
      if (args.flags.report === true) return yield* evalReport(args)
      const round = yield* nonNegative(args.flags.round, "round")
      const samples = yield* positiveInt(args, "samples", 1)
      const stepBudget = yield* positiveInt(args, "step-budget", 12)
      const parallel = yield* positiveInt(args, "parallel", 2)
      const opened = yield* openStore(args, { quiet: args.flags.json === true })
      const chosen = args.flags.run as string | undefined
      if (chosen !== undefined && !isToken(chosen))
        return yield* new UsageError({ message: `--run takes a run id, got ${JSON.stringify(chosen)}` })
      const { runId, events } = yield* Effect.provide(
        Effect.gen(function* () {
          const runId = chosen ?? (yield* runsWith("run.*.round.*")).at(-1)
          if (runId === undefined)
            return yield* new CliError({ message: "no CORE run in the log: start one with bun core run --policy embedded" })
          return { runId, events: yield* runLog(runId) }
        }),
        opened.layer
      )
      const trained = modelAtRound(events, round ?? null)
      if (typeof trained === "string") return yield* new CliError({ message: `run ${runId}: ${trained}` })
      const at = trained.round
      // A run on an app pack is evaluated on that pack's held-out tasks, by its evaluate.
      const ranOn = events.find((e) => e.type === "RunStarted")?.data.config["run.appDir"]
      const appDir = (args.flags.app as string | undefined) ?? (typeof ranOn === "string" ? ranOn : undefined)
      const seed = (args.flags.seed as string | undefined) ?? "eval"
      const progress = new Progress("eval")
      const result = yield* Effect.scoped(
        Effect.gen(function* () {
          const { app, pack, environment } = yield* evalApp(appDir, opened.config, packSecretRule(opened.config, args))
          const tasks: ReadonlyArray<RunTask> =
            pack !== null
              ? packTasksOf(pack, "held-out")
              : (yield* heldOutTasks(trained.sites.size === 0 ? null : trained.sites, args.flags.split as string | undefined)).map(
                  runTaskOf
                )
          progress.line(
            `run ${runId}, policy trained through round ${at} (${plural(trained.examples, "example")}), ${plural(tasks.length, "held-out task")} of ${pack?.config.name ?? "the bundled sites"} × ${samples}`
          )
          progress.start("held-out", tasks.length * samples)
          return yield* evaluatePolicy(
            {
              app,
              environment,
              tasks,
              model: trained.model,
              retrieval: trained.retrieval,
              seed,
              samples,
              stepBudget,
              parallel,
              onEpisode: (_, ok) => progress.count(ok ? "success" : "failure"),
              onStep: () => progress.tick()
            },
            opened.layer
          )
        })
      )
      progress.done(`held-out: ${result.successes}/${result.episodes} succeeded`)
      const out = { run: runId, round: at, policy: "embedded", suite: "held-out", examples: trained.examples, ...result }
      if (args.flags.json === true) console.log(JSON.stringify(out))
      else {
        console.log(
          `held-out success  ${(result.success_rate * 100).toFixed(1)}% (${result.successes}/${result.episodes}), policy of run ${runId} through round ${at}`
        )
        for (const [t, r] of Object.entries(result.per_task)) console.log(`  ${t.padEnd(36)} ${(r * 100).toFixed(0)}%`)
      }
    })
}
