/**
 * A `run`'s parameters: one schema for what `bun core run` plans, what its RunStarted
 * records and what its deciders read back, with every default here.
 *
 * RunStarted's `config` stays one flat record of dotted keys — the run's own (`run.*`,
 * `app.hashRouting`, `infer.*`) beside the loaded config's (`models.*`, `seed`…), each with
 * its source in `configSources` — so a log, an audit or a read model shows a run's
 * parameters key by key. A run records every key of {@link RunConfigKeys}, marked
 * `run.configVersion` 2, and its deciders decode that record strictly: a value that does
 * not fit is an error, not a default. Runs logged before the schema recorded only some keys
 * and were read leniently (a missing or malformed value meant the default); their records
 * go through {@link upcastRunConfig} first, which keeps exactly those readings.
 *
 * @example
 * const config = runConfigOf(runStarted.data.config) // old runs included
 * const keys = encodeRunConfig(config) // what a new RunStarted records
 */
import { Effect, Schema, SchemaGetter } from "effect"
import { DATA_RULES, EXPLORATION, RETRIEVAL, SYNTHESIS } from "@core/domain"
import { Platform } from "@core/events"

/** Marks a RunStarted config written from the schema; records without it are upcast. */
export const RUN_CONFIG_VERSION = 2
export const RUN_CONFIG_VERSION_KEY = "run.configVersion"

/**
 * Every default of a run. The CLI's flags default to these, and a key a run did not
 * record reads as its default: the `app.hashRouting`, `infer.synthesis` and `infer.lfGuide`
 * ones are what runs recorded before those keys existed did (no fragment routing, the
 * first synthesizer and LF guide); a new run records the current versions.
 */
export const RUN_DEFAULTS = {
  rounds: 1,
  samples: 5,
  stepBudget: 12,
  policy: "exploration",
  temperature: 1,
  topP: 1,
  expandPerTask: 2,
  explorePerTask: 3,
  extrapolatePerTask: 1,
  extrapolatedSamples: 2,
  platform: "web",
  hashRouting: false,
  synthesis: "1",
  lfGuide: "1",
  dataRules: "1",
  exploration: "1",
  retrieval: "1"
} as const

/** The data rules a new run decides by (@core/domain DATA_RULES says what each version brought). */
export const DATA_RULES_VERSION = DATA_RULES.current

/** A whole number ≥ 0 (any integer, as runs always read counts: not only safe ones). */
const Count = Schema.Number.check(Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= 0 ? undefined : "a whole number ≥ 0")))
const Names = Schema.Array(Schema.String)
const PolicyKind = Schema.Literals(["exploration", "embedded", "model"])
const Synthesis = Schema.Literals(SYNTHESIS.versions)
export const DataRules = Schema.Literals(DATA_RULES.versions)
export const Exploration = Schema.Literals(EXPLORATION.versions)
const Retrieval = Schema.Literals(RETRIEVAL.versions)
/** The demos inference reads: every one the workspace has, or these ids. */
const Demos = Schema.Union([Schema.Literal("all"), Names])

/** Who acts in the run's rollouts (the rollout's PolicySpec). */
export const RunPolicy = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("exploration") }),
  /** `retrieval`: the retrieval policy's version, when not 1 (what the rollouts read; the run records it as `run.retrieval`). */
  Schema.Struct({ kind: Schema.Literal("embedded"), retrieval: Schema.optionalKey(Retrieval) }),
  Schema.Struct({ kind: Schema.Literal("model"), model: Schema.String, temperature: Schema.Finite, topP: Schema.Finite })
])

/** A run's parameters, as its deciders use them. */
export const RunConfig = Schema.Struct({
  tasks: Names,
  rounds: Count,
  /** Rollouts per task and round. */
  samples: Count,
  /** Steps per rollout before it is cut off. */
  stepBudget: Count,
  policy: RunPolicy,
  /** Partial trajectories a round may turn into new paths per task (expansion is inference: it costs). */
  expandPerTask: Count,
  /** Explorer episodes per task and round (Strategy Graph Expansion b). */
  explorePerTask: Count,
  /** New tasks Trajectory-Guided Extrapolation may add per parent task and round (0: none, the ablation). */
  extrapolatePerTask: Count,
  /** Rollouts per extrapolated task and round: they join the pool, at a smaller share. */
  extrapolatedSamples: Count,
  /** Held-out tasks (ids): generated tasks must not come near them (the contamination guard). */
  heldOut: Names,
  /**
   * Where the run's episodes play: desktop Chromium (web), a phone-emulating Chromium over
   * WebDriver (mobile-web), or an Android pack's devices through Appium (android).
   */
  platform: Platform,
  /** The app routes by the URL's fragment (from its pack): a rollout's URLs keep it, as the app's demos do. */
  hashRouting: Schema.Boolean,
  /** The embedded synthesizer's version the run infers with. */
  synthesis: Synthesis,
  /** The LF API guide version a model is shown. */
  lfGuide: Schema.String,
  /** The data rules the run's graph, verification, extrapolation and dataset deciders follow ({@link DATA_RULES_VERSION}). */
  dataRules: DataRules,
  /** The exploration policy's version (libs/domain ExplorationPolicy): 2 may fill a form from the instruction, 3 also reads answers off the page, 4 also sets sort selects and never clicks a select. */
  exploration: Exploration,
  /** The embedded retrieval policy's version (libs/policy Reading.ts): version 2 reads a recorded price or count off the page. */
  retrieval: Retrieval,
  /** The model of the configured model server, which relabels failures the templates cannot; null without one. */
  model: Schema.NullOr(Schema.String),
  /** The demos the run infers label functions from. */
  demos: Demos
})
export type RunConfig = typeof RunConfig.Type

const keyed = <S extends Schema.Top>(schema: S, fallback: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback)))

/** The keys each RunConfig field is recorded under, for a plan's config sources. */
export const RUN_CONFIG_KEYS = {
  tasks: "run.tasks",
  rounds: "run.rounds",
  samples: "run.samples",
  stepBudget: "run.stepBudget",
  policy: "run.policy",
  policyModel: "run.policyModel",
  temperature: "run.temperature",
  topP: "run.topP",
  expandPerTask: "run.expandPerTask",
  explorePerTask: "run.explorePerTask",
  extrapolatePerTask: "run.extrapolatePerTask",
  extrapolatedSamples: "run.extrapolatedSamples",
  heldOut: "run.heldOut",
  platform: "run.platform",
  hashRouting: "app.hashRouting",
  synthesis: "infer.synthesis",
  lfGuide: "infer.lfGuide",
  dataRules: "run.dataRules",
  exploration: "run.exploration",
  retrieval: "run.retrieval",
  model: "run.model",
  demos: "infer.demos"
} as const

/** Each recorded key's value schema: what a version-2 record must hold, and what an old one's value had to be to count. */
const FIELDS = {
  "run.tasks": Names,
  "run.rounds": Count,
  "run.samples": Count,
  "run.stepBudget": Count,
  "run.policy": PolicyKind,
  /** The model acting for the `model` policy; null for the others. */
  "run.policyModel": Schema.NullOr(Schema.String),
  "run.temperature": Schema.Finite,
  "run.topP": Schema.Finite,
  "run.expandPerTask": Count,
  "run.explorePerTask": Count,
  "run.extrapolatePerTask": Count,
  "run.extrapolatedSamples": Count,
  "run.heldOut": Names,
  "run.platform": Platform,
  "app.hashRouting": Schema.Boolean,
  "infer.synthesis": Synthesis,
  "infer.lfGuide": Schema.String,
  "run.dataRules": DataRules,
  "run.exploration": Exploration,
  "run.retrieval": Retrieval,
  "run.model": Schema.NullOr(Schema.String),
  "infer.demos": Demos
} as const

/** RunStarted's config as a run records it: the version mark, then every key, a missing one read as its default. */
export const RunConfigKeys = Schema.Struct({
  [RUN_CONFIG_VERSION_KEY]: Schema.Literal(RUN_CONFIG_VERSION),
  "run.tasks": keyed(FIELDS["run.tasks"], []),
  "run.rounds": keyed(FIELDS["run.rounds"], RUN_DEFAULTS.rounds),
  "run.samples": keyed(FIELDS["run.samples"], RUN_DEFAULTS.samples),
  "run.stepBudget": keyed(FIELDS["run.stepBudget"], RUN_DEFAULTS.stepBudget),
  "run.policy": keyed(FIELDS["run.policy"], RUN_DEFAULTS.policy),
  "run.policyModel": keyed(FIELDS["run.policyModel"], null),
  "run.temperature": keyed(FIELDS["run.temperature"], RUN_DEFAULTS.temperature),
  "run.topP": keyed(FIELDS["run.topP"], RUN_DEFAULTS.topP),
  "run.expandPerTask": keyed(FIELDS["run.expandPerTask"], RUN_DEFAULTS.expandPerTask),
  "run.explorePerTask": keyed(FIELDS["run.explorePerTask"], RUN_DEFAULTS.explorePerTask),
  "run.extrapolatePerTask": keyed(FIELDS["run.extrapolatePerTask"], RUN_DEFAULTS.extrapolatePerTask),
  "run.extrapolatedSamples": keyed(FIELDS["run.extrapolatedSamples"], RUN_DEFAULTS.extrapolatedSamples),
  "run.heldOut": keyed(FIELDS["run.heldOut"], []),
  "run.platform": keyed(FIELDS["run.platform"], RUN_DEFAULTS.platform),
  "app.hashRouting": keyed(FIELDS["app.hashRouting"], RUN_DEFAULTS.hashRouting),
  "infer.synthesis": keyed(FIELDS["infer.synthesis"], RUN_DEFAULTS.synthesis),
  "infer.lfGuide": keyed(FIELDS["infer.lfGuide"], RUN_DEFAULTS.lfGuide),
  "run.dataRules": keyed(FIELDS["run.dataRules"], RUN_DEFAULTS.dataRules),
  "run.exploration": keyed(FIELDS["run.exploration"], RUN_DEFAULTS.exploration),
  "run.retrieval": keyed(FIELDS["run.retrieval"], RUN_DEFAULTS.retrieval),
  "run.model": keyed(FIELDS["run.model"], null),
  "infer.demos": keyed(FIELDS["infer.demos"], [])
}).check(
  Schema.makeFilter((k) =>
    k["run.policy"] === "model" && k["run.policyModel"] === null ? "the model policy needs run.policyModel" : undefined
  )
)
type Keys = typeof RunConfigKeys.Type

const fromKeys = (k: Keys): RunConfig => ({
  tasks: k["run.tasks"],
  rounds: k["run.rounds"],
  samples: k["run.samples"],
  stepBudget: k["run.stepBudget"],
  policy:
    k["run.policy"] === "model" && k["run.policyModel"] !== null
      ? { kind: "model", model: k["run.policyModel"], temperature: k["run.temperature"], topP: k["run.topP"] }
      : k["run.policy"] === "embedded"
        ? // the rollouts read the version from the policy they are given: version 1 is the policy as it always was
          k["run.retrieval"] === RETRIEVAL.versions[0]
          ? { kind: "embedded" }
          : { kind: "embedded", retrieval: k["run.retrieval"] }
        : { kind: "exploration" },
  expandPerTask: k["run.expandPerTask"],
  explorePerTask: k["run.explorePerTask"],
  extrapolatePerTask: k["run.extrapolatePerTask"],
  extrapolatedSamples: k["run.extrapolatedSamples"],
  heldOut: k["run.heldOut"],
  platform: k["run.platform"],
  hashRouting: k["app.hashRouting"],
  synthesis: k["infer.synthesis"],
  lfGuide: k["infer.lfGuide"],
  dataRules: k["run.dataRules"],
  exploration: k["run.exploration"],
  retrieval: k["run.retrieval"],
  model: k["run.model"],
  demos: k["infer.demos"]
})

const toKeys = (c: RunConfig): Keys => ({
  [RUN_CONFIG_VERSION_KEY]: RUN_CONFIG_VERSION,
  "run.tasks": c.tasks,
  "run.rounds": c.rounds,
  "run.samples": c.samples,
  "run.stepBudget": c.stepBudget,
  "run.policy": c.policy.kind,
  "run.policyModel": c.policy.kind === "model" ? c.policy.model : null,
  "run.temperature": c.policy.kind === "model" ? c.policy.temperature : RUN_DEFAULTS.temperature,
  "run.topP": c.policy.kind === "model" ? c.policy.topP : RUN_DEFAULTS.topP,
  "run.expandPerTask": c.expandPerTask,
  "run.explorePerTask": c.explorePerTask,
  "run.extrapolatePerTask": c.extrapolatePerTask,
  "run.extrapolatedSamples": c.extrapolatedSamples,
  "run.heldOut": c.heldOut,
  "run.platform": c.platform,
  "app.hashRouting": c.hashRouting,
  "infer.synthesis": c.synthesis,
  "infer.lfGuide": c.lfGuide,
  "run.dataRules": c.dataRules,
  "run.exploration": c.exploration,
  "run.retrieval": c.retrieval,
  "run.model": c.model,
  "infer.demos": c.demos
})

/** The RunConfig a RunStarted config records (version 2), and back. */
export const RunConfigFromKeys = RunConfigKeys.pipe(
  Schema.decodeTo(RunConfig, { decode: SchemaGetter.transform(fromKeys), encode: SchemaGetter.transform(toKeys) })
)

const strings = (v: unknown): ReadonlyArray<string> => (Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : [])

/**
 * The models a recorded config names, read as runs always read them: the model policy acts
 * with `models.model` when it is a string; failures are relabelled by a model only when a
 * server is configured too (`models.baseUrl`). The loaded config's keys are recorded as
 * they were loaded (secrets scrubbed), so a new run reads them the same way.
 */
export const configuredModels = (
  config: Readonly<Record<string, unknown>>
): { readonly policyModel: string | null; readonly model: string | null } => {
  const model = config["models.model"]
  const name = typeof model === "string" ? model : null
  return { policyModel: name, model: config["models.baseUrl"] ? name : null }
}

const FITS: ReadonlyArray<readonly [string, (v: unknown) => boolean]> = Object.entries(FIELDS).map(([key, schema]) => [
  key,
  Schema.is(schema)
])

/**
 * A RunStarted config recorded before the schema, as a version-2 record with the same
 * reading: a key whose value does not fit its schema is dropped (so it reads as its
 * default, as it always did), lists keep their strings, and the models come from the loaded
 * config's `models.*` keys. A run without `run.platform` played on the web, one without
 * `app.hashRouting` kept no fragment, one without `infer.synthesis` used version 1: the
 * defaults say so.
 */
export const upcastRunConfig = (old: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const out: Record<string, unknown> = { [RUN_CONFIG_VERSION_KEY]: RUN_CONFIG_VERSION }
  for (const [key, fits] of FITS) if (key in old && fits(old[key])) out[key] = old[key]
  const { policyModel, model } = configuredModels(old)
  out["run.tasks"] = strings(old["run.tasks"])
  out["run.heldOut"] = strings(old["run.heldOut"])
  out["run.policyModel"] = out["run.policy"] === "model" ? policyModel : null
  // The model policy without a model's name was read as the exploration policy.
  if (out["run.policy"] === "model" && policyModel === null) delete out["run.policy"]
  out["run.model"] = model
  const demos = old["infer.demos"]
  out["infer.demos"] = demos === "all" ? "all" : strings(demos)
  return out
}

const decodeKeys = Schema.decodeUnknownSync(RunConfigFromKeys)

/**
 * The RunConfig a RunStarted config records, old runs' through {@link upcastRunConfig}.
 * Throws when a version-2 record does not decode: only a defect writes one (the engine
 * encodes it from the schema), and a run must not go on with parameters it did not record.
 */
export const runConfigOf = (config: Readonly<Record<string, unknown>>): RunConfig =>
  decodeKeys(config[RUN_CONFIG_VERSION_KEY] === undefined ? upcastRunConfig(config) : config)

/** The keys a new RunStarted records for the config. */
export const encodeRunConfig: (config: RunConfig) => Record<string, unknown> = Schema.encodeSync(RunConfigFromKeys)

/** The policy a plan names, with the model the config names; null for the model policy without one. */
export const runPolicy = (kind: RunConfig["policy"]["kind"], model: string | null): RunConfig["policy"] | null =>
  kind !== "model" ? { kind } : model === null ? null : { kind, model, temperature: RUN_DEFAULTS.temperature, topP: RUN_DEFAULTS.topP }

/** How many of the workspace's demos the run infers from. */
export const demoCount = (config: RunConfig, demos: ReadonlyMap<string, unknown>): number =>
  config.demos === "all" ? demos.size : config.demos.filter((d) => demos.has(d)).length
