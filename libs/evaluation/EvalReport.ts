/**
 * `bun core eval --report [--seeds 3] [--rounds 3] [--site S | --app <pack>] [--split S] [--json]`:
 * does CORE make the agent better — on a bundled site, or on an app pack (ReportArms.ts)? Per
 * seed, three CORE runs of the same train tasks with the `--policy` (embedded by default;
 * learned) — full, without expansion (no explorer, no new paths) and without extrapolation —
 * then the held-out success (PolicyEval.ts) of that policy as each run trained it
 * (ArmModels.ts):
 *
 * - `bc`: the policy trained on round 0 alone (the demos: behaviour cloning);
 * - `rounds[k-1]`: the full run's policy after round k;
 * - `no_expansion`, `no_extrapolation`: each ablation's policy after its last round.
 *
 * Every arm uses the same policy code, hyperparameters, tasks and seed; the ablations share
 * round 0 with the full run (it is the demos only), so they fork from it. A learned arm
 * trains on no record of a held-out task of either split, nor of a generated task the
 * contamination guard refuses against them. Each figure is the mean over seeds with a 95%
 * bootstrap interval over held-out tasks (per-task success averaged over seeds, 2,000
 * resamples from a fixed seed); CORE's last round is compared with bc and with each ablation
 * by a paired bootstrap of per-task differences (ReportStats.ts).
 *
 * Splits (`--split`): `default`, the held-out instances that start where the demos start;
 * `other-routes`, the held-out instances of the train templates that start on another page
 * or with the demo's route switched off (suites/Generator.ts, `variantsOf`) — where a policy
 * that only replays the demo's route is expected to fail and the strategy graph's other
 * paths could help; `both`. One table per split, from the same runs and models.
 *
 * On a bundled site, sized for 25 minutes on 2 cores at the defaults: one train and one held-out instance per
 * template, one rollout and one explorer episode per task and round, one rollout per
 * extrapolated task, no screenshots in the runs (neither policy reads them), and each
 * distinct model evaluated once, all with one evaluation seed.
 */
import { Effect } from "effect"
import type { Layer } from "effect"
import type { SecretRule } from "@core/apps"
import type { BlobStore } from "@core/blobstore"
import type { EventStore } from "@core/eventstore"
import type { ConfigError, LoadedConfig } from "@core/config"
import { EvalError, EvalInputError } from "./EvalError.ts"
import { evalApp } from "./EvalApp.ts"
import type { ReportArms } from "./ReportArms.ts"
import { meanOver, pairedDifference, perTaskMean, summarise } from "./ReportStats.ts"
import { evaluatePolicies } from "./PolicyEval.ts"
import type { PolicyEvalResult } from "./PolicyEval.ts"
import { armDigest, heldOutTaskOf, seedArms } from "./ArmModels.ts"
import type { ArmModel, EvalPolicy } from "./ArmModels.ts"
import { RUN_CONFIG_KEYS } from "@core/pipeline"
import type { RunTask } from "@core/pipeline"
import type { RunPlan } from "@core/run"

export type SplitName = "default" | "other-routes"

interface Arms {
  readonly bc: Array<Record<string, number>>
  readonly rounds: Array<Array<Record<string, number>>>
  readonly no_expansion: Array<Record<string, number>>
  readonly no_extrapolation: Array<Record<string, number>>
}

export interface Split {
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
export type SplitTable = ReturnType<typeof splitTable>

/** The splits `--split` asks for, with their tasks; a split without tasks is a usage error. */
const chosenSplits = (choice: string, arms: ReportArms, rounds: number) =>
  Effect.gen(function* () {
    const names: ReadonlyArray<SplitName> = choice === "both" ? ["default", "other-routes"] : [choice as SplitName]
    if (names.includes("other-routes") && arms.otherRoutes.length === 0)
      return yield* new EvalInputError({ message: `--split ${choice}: ${arms.site} has no held-out instances with another start or route` })
    return names.map(
      (name): Split => ({
        name,
        tasks: name === "default" ? arms.heldOut : arms.otherRoutes,
        variants: new Map(name === "default" ? [] : arms.otherRoutes.map((t) => [t.id, t.variant])),
        arms: emptyArms(rounds)
      })
    )
  })

export interface ReportSettings<LE = unknown> {
  readonly seeds: number
  readonly rounds: number
  readonly samples: number
  readonly evalSamples: number
  readonly stepBudget: number
  readonly parallel: number
  readonly packDir: string | undefined
  readonly arms: ReportArms
  /** `--policy`: the policy the runs play and the arms are (default embedded). */
  readonly policy?: EvalPolicy
  /** `--split`: default, other-routes or both. */
  readonly split: string
  /** What each seed's runs and evaluation are configured by. */
  readonly configFor: (seed: string) => Effect.Effect<LoadedConfig, ConfigError>
  /** What a pack's log-in may type under a config. */
  readonly secrets: (config: LoadedConfig) => SecretRule
  /** The seeds' names are `<base>-1`, `<base>-2`, …; the evaluation's, `<base>-eval`. */
  readonly base: string
  readonly layer: Layer.Layer<EventStore | BlobStore, LE>
  readonly log: (line: string) => void
}

/** One seed's three runs — CORE and the two ablations — and the models the report compares, bc first. */
const playSeed = <LE>(o: ReportSettings<LE>, seed: string, config: LoadedConfig) =>
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
          policy: o.policy ?? "embedded",
          screenshots: "none",
          tuning: { explorePerTask: 1, extrapolatedSamples: 1, ...tuning },
          sources: { [RUN_CONFIG_KEYS.policy]: "flag:--report" }
        })
      })
    const full = yield* play({}, "CORE")
    const noExpansion = yield* play({ explorePerTask: 0, expandPerTask: 0 }, "no-expansion")
    const noExtrapolation = yield* play({ extrapolatePerTask: 0 }, "no-extrapolation")
    // Judged on every held-out task the arms have, whichever split is printed: none may train on one.
    const heldOut = [...o.arms.heldOut, ...o.arms.otherRoutes].map(heldOutTaskOf)
    const logs = { full: full.events, noExpansion: noExpansion.events, noExtrapolation: noExtrapolation.events }
    const arms = seedArms(logs, o.rounds, o.policy ?? "embedded", heldOut)
    if (typeof arms === "string") return yield* new EvalError({ message: arms })
    for (const { label, trained } of arms)
      if (trained.excluded > 0) o.log(`seed ${seed}: ${label}: ${trained.excluded} records left out as held-out tasks or too near one`)
    const models = arms.map(({ label, trained }) => ({ label, arm: trained.arm }))
    return { run: { seed, core: full.runId, no_expansion: noExpansion.runId, no_extrapolation: noExtrapolation.runId }, models }
  })

/**
 * Each model's per-task success on `tasks`, playing only the models not evaluated before: a
 * model evaluated once is not evaluated again — the retrieval policy's behaviour cloning, a
 * function of the demos alone, is the same in every seed (the learner's is seeded from the
 * run's seed, so it is not). The policy's version is part of what is evaluated: the same
 * model read by another version is another arm.
 */
const evaluateSeed = <LE>(
  o: ReportSettings<LE>,
  seed: string,
  config: LoadedConfig,
  tasks: ReadonlyArray<RunTask>,
  models: ReadonlyArray<{ readonly label: string; readonly arm: ArmModel }>,
  evaluated: Map<string, PolicyEvalResult>
) =>
  Effect.gen(function* () {
    const digests = models.map((m) => armDigest(m.arm))
    const fresh = models.flatMap((_m, i) => (evaluated.has(digests[i]!) || digests.indexOf(digests[i]!) !== i ? [] : [i]))
    // The app is started for the evaluation alone: a pack's pool holds no instances while the runs play.
    const results = yield* Effect.scoped(
      Effect.flatMap(evalApp(o.packDir, config, o.secrets(config)), ({ app, environment }) =>
        evaluatePolicies(
          {
            app,
            environment,
            tasks,
            arms: fresh.map((i) => models[i]!.arm),
            seed: evalSeedOf(o),
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

/** Every arm's held-out episodes draw from this one seed (common random numbers): arms differ only in their models. */
const evalSeedOf = (o: ReportSettings): string => `${o.base}-eval`

/** The report (as `--json` prints it) and each split's table, for printing. */
export const evalReport = <LE>(o: ReportSettings<LE>) =>
  Effect.gen(function* () {
    const started = Date.now()
    const splits = yield* chosenSplits(o.split, o.arms, o.rounds)
    // One evaluation per model covers every split: the browser and app start once.
    const heldOut = [...new Map(splits.flatMap((s) => s.tasks).map((t) => [t.id, t])).values()]
    const runs: Array<Record<string, string>> = []
    const evaluated = new Map<string, PolicyEvalResult>()
    for (let i = 0; i < o.seeds; i++) {
      const seed = `${o.base}-${i + 1}`
      const config = yield* o.configFor(seed)
      const { run, models } = yield* playSeed(o, seed, config)
      runs.push(run)
      recordSeed(splits, yield* evaluateSeed(o, seed, config, heldOut, models, evaluated), o.rounds)
    }
    return { report: reportOf(o, splits, runs, started), tables: splits.map((split) => ({ split, table: splitTable(split) })) }
  })

/** The JSON report: the default split's table at the top, as the report always printed it; the other split beside it. */
const reportOf = (o: ReportSettings, splits: ReadonlyArray<Split>, runs: ReadonlyArray<Record<string, string>>, started: number) => {
  const byName = (name: SplitName) => splits.find((s) => s.name === name)
  const main = byName("default")
  const other = byName("other-routes")
  return {
    ...(main === undefined ? {} : splitTable(main)),
    ...(other === undefined ? {} : { other_routes: splitTable(other) }),
    config: {
      site: o.arms.site,
      policy: o.policy ?? "embedded",
      split: o.split,
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
      eval_seed: evalSeedOf(o),
      step_budget: o.stepBudget
    },
    runs,
    seconds: Math.round((Date.now() - started) / 1000)
  }
}
