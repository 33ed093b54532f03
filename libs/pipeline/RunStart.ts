/**
 * How a pipeline run's config reaches its RunStarted: through the engine's `startRun`, with
 * RunConfig's codec, so every new run (run, demo, infer, eval) records `run.configVersion`
 * and its deciders decode its config strictly.
 *
 * @example
 * const config = { ...defaultRunConfig(identity.config), demos: "all" }
 * const started = yield* startRun("infer", { value: config, codec: runConfigCodec, sources: modelSources(identity) }, identity, runId)
 */
import { EXPLORATION, LEARNER, LF_GUIDE, RETRIEVAL, SYNTHESIS } from "@core/domain"
import type { RunConfigCodec } from "@core/engine"
import {
  configuredModels,
  DATA_RULES_VERSION,
  encodeRunConfig,
  RUN_CONFIG_KEYS,
  RUN_CONFIG_VERSION_KEY,
  RUN_DEFAULTS,
  runPolicy
} from "./RunConfig.ts"
import type { RunConfig } from "./RunConfig.ts"

export const runConfigCodec: RunConfigCodec<RunConfig> = { versionKey: RUN_CONFIG_VERSION_KEY, encode: encodeRunConfig }

/**
 * A run's config where the plan says nothing: every default, no tasks, and the model the
 * loaded config names — what a RunStarted without the run's keys always read as, so a
 * command that used to record none (infer, demo --round-trip) decides as before.
 */
export const defaultRunConfig = (loaded: Readonly<Record<string, unknown>>): RunConfig => ({
  tasks: [],
  rounds: RUN_DEFAULTS.rounds,
  samples: RUN_DEFAULTS.samples,
  stepBudget: RUN_DEFAULTS.stepBudget,
  policy: runPolicy(RUN_DEFAULTS.policy, null) ?? { kind: "exploration" },
  expandPerTask: RUN_DEFAULTS.expandPerTask,
  explorePerTask: RUN_DEFAULTS.explorePerTask,
  extrapolatePerTask: RUN_DEFAULTS.extrapolatePerTask,
  extrapolatedSamples: RUN_DEFAULTS.extrapolatedSamples,
  heldOut: [],
  platform: RUN_DEFAULTS.platform,
  hashRouting: RUN_DEFAULTS.hashRouting,
  synthesis: RUN_DEFAULTS.synthesis,
  lfGuide: RUN_DEFAULTS.lfGuide,
  dataRules: RUN_DEFAULTS.dataRules,
  exploration: RUN_DEFAULTS.exploration,
  retrieval: RUN_DEFAULTS.retrieval,
  learner: RUN_DEFAULTS.learner,
  model: configuredModels(loaded).model,
  demos: []
})

/** The models a run reads come from the loaded config's models.model: their keys' source is its source. */
export const modelSources = (identity: { readonly configSources: Readonly<Record<string, string>> }): Record<string, string> => {
  const source = identity.configSources["models.model"] ?? "default"
  return { [RUN_CONFIG_KEYS.model]: source, [RUN_CONFIG_KEYS.policyModel]: source }
}

/** What a new run's plan sets; the rest is the defaults and the versions a new run decides by. */
export interface NewRunPlan {
  readonly tasks: ReadonlyArray<string>
  readonly rounds: number
  readonly samples: number
  readonly stepBudget: number
  readonly policy: RunConfig["policy"]["kind"]
  /** With the learned policy: the follow trainer whose published versions it takes. */
  readonly trainer?: string
  readonly tuning?: Partial<Pick<RunConfig, "expandPerTask" | "explorePerTask" | "extrapolatePerTask" | "extrapolatedSamples">>
  readonly platform?: RunConfig["platform"]
  readonly hashRouting?: boolean
  readonly heldOut: ReadonlyArray<string>
  readonly demos: ReadonlyArray<string>
}

/**
 * A new run's config: the plan, RUN_DEFAULTS for the knobs it leaves out, the current
 * versions of synthesis, the LF guide, the data rules, exploration and retrieval, and the
 * models the loaded config names. Null: the model policy without a model's name.
 */
export const newRunConfig = (plan: NewRunPlan, loaded: Readonly<Record<string, unknown>>): RunConfig | null => {
  const models = configuredModels(loaded)
  const policy =
    plan.policy === "learned" && plan.trainer !== undefined
      ? { kind: "learned" as const, trainer: plan.trainer }
      : runPolicy(plan.policy, models.policyModel)
  if (policy === null) return null
  const tuning = plan.tuning ?? {}
  return {
    tasks: plan.tasks,
    rounds: plan.rounds,
    samples: plan.samples,
    stepBudget: plan.stepBudget,
    policy,
    expandPerTask: tuning.expandPerTask ?? RUN_DEFAULTS.expandPerTask,
    explorePerTask: tuning.explorePerTask ?? RUN_DEFAULTS.explorePerTask,
    extrapolatePerTask: tuning.extrapolatePerTask ?? RUN_DEFAULTS.extrapolatePerTask,
    extrapolatedSamples: tuning.extrapolatedSamples ?? RUN_DEFAULTS.extrapolatedSamples,
    heldOut: plan.heldOut,
    platform: plan.platform ?? RUN_DEFAULTS.platform,
    hashRouting: plan.hashRouting ?? RUN_DEFAULTS.hashRouting,
    synthesis: SYNTHESIS.current,
    lfGuide: LF_GUIDE.current,
    dataRules: DATA_RULES_VERSION,
    exploration: EXPLORATION.current,
    retrieval: RETRIEVAL.current,
    // Only a learned run trains the learner: the others record no version of it.
    learner: policy.kind === "learned" ? LEARNER.current : RUN_DEFAULTS.learner,
    model: models.model,
    demos: plan.demos
  }
}
