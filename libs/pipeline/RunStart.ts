/**
 * How a pipeline run's config reaches its RunStarted: through the engine's `startRun`, with
 * RunConfig's codec, so every new run (run, demo, infer, eval) records `run.configVersion`
 * and its deciders decode its config strictly.
 *
 * @example
 * const config = { ...defaultRunConfig(identity.config), demos: "all" }
 * const started = yield* startRun("infer", { value: config, codec: runConfigCodec, sources: modelSources(identity) }, identity, runId)
 */
import type { RunConfigCodec } from "@core/engine"
import { configuredModels, encodeRunConfig, RUN_CONFIG_KEYS, RUN_CONFIG_VERSION_KEY, RUN_DEFAULTS } from "./RunConfig.ts"
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
  policy: { kind: RUN_DEFAULTS.policy },
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
  model: configuredModels(loaded).model,
  demos: []
})

/** The models a run reads come from the loaded config's models.model: their keys' source is its source. */
export const modelSources = (identity: { readonly configSources: Readonly<Record<string, string>> }): Record<string, string> => {
  const source = identity.configSources["models.model"] ?? "default"
  return { [RUN_CONFIG_KEYS.model]: source, [RUN_CONFIG_KEYS.policyModel]: source }
}
