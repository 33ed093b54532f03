/**
 * The reading and writing of a run's config as it was before RunConfig.ts derived them from
 * one table of fields, kept verbatim (comments trimmed) so RunConfigTable.test.ts can hold
 * the table to it: the same bytes recorded, the same readings of old and new records. It is
 * a frozen reference, not a second implementation: never change it to follow RunConfig.ts.
 */
import { Effect, Schema, SchemaGetter } from "effect"
import { Platform } from "@core/events"

const RUN_CONFIG_VERSION = 2
const RUN_CONFIG_VERSION_KEY = "run.configVersion"

const RUN_DEFAULTS = {
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

const Count = Schema.Number.check(Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= 0 ? undefined : "a whole number ≥ 0")))
const Names = Schema.Array(Schema.String)
const PolicyKind = Schema.Literals(["exploration", "embedded", "model"])
const Synthesis = Schema.Literals(["1", "2", "3", "4", "5", "6", "7"])
const DataRules = Schema.Literals(["1", "2", "3", "4", "5", "6", "7"])
const Exploration = Schema.Literals(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13"])
const Retrieval = Schema.Literals(["1", "2"])
const Demos = Schema.Union([Schema.Literal("all"), Names])

const RunPolicy = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("exploration") }),
  Schema.Struct({ kind: Schema.Literal("embedded"), retrieval: Schema.optionalKey(Retrieval) }),
  Schema.Struct({ kind: Schema.Literal("model"), model: Schema.String, temperature: Schema.Finite, topP: Schema.Finite })
])

const RunConfig = Schema.Struct({
  tasks: Names,
  rounds: Count,
  samples: Count,
  stepBudget: Count,
  policy: RunPolicy,
  expandPerTask: Count,
  explorePerTask: Count,
  extrapolatePerTask: Count,
  extrapolatedSamples: Count,
  heldOut: Names,
  platform: Platform,
  hashRouting: Schema.Boolean,
  synthesis: Synthesis,
  lfGuide: Schema.String,
  dataRules: DataRules,
  exploration: Exploration,
  retrieval: Retrieval,
  model: Schema.NullOr(Schema.String),
  demos: Demos
})
export type ReferenceRunConfig = typeof RunConfig.Type

const keyed = <S extends Schema.Top>(schema: S, fallback: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback)))

export const REFERENCE_RUN_CONFIG_KEYS = {
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

export const REFERENCE_RUN_DEFAULTS = RUN_DEFAULTS

const FIELDS = {
  "run.tasks": Names,
  "run.rounds": Count,
  "run.samples": Count,
  "run.stepBudget": Count,
  "run.policy": PolicyKind,
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

const RunConfigKeys = Schema.Struct({
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

const fromKeys = (k: Keys): ReferenceRunConfig => ({
  tasks: k["run.tasks"],
  rounds: k["run.rounds"],
  samples: k["run.samples"],
  stepBudget: k["run.stepBudget"],
  policy:
    k["run.policy"] === "model" && k["run.policyModel"] !== null
      ? { kind: "model", model: k["run.policyModel"], temperature: k["run.temperature"], topP: k["run.topP"] }
      : k["run.policy"] === "embedded"
        ? k["run.retrieval"] === "1"
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

const toKeys = (c: ReferenceRunConfig): Keys => ({
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

const RunConfigFromKeys = RunConfigKeys.pipe(
  Schema.decodeTo(RunConfig, { decode: SchemaGetter.transform(fromKeys), encode: SchemaGetter.transform(toKeys) })
)

const strings = (v: unknown): ReadonlyArray<string> => (Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : [])

const configuredModels = (
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

export const referenceUpcast = (old: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const out: Record<string, unknown> = { [RUN_CONFIG_VERSION_KEY]: RUN_CONFIG_VERSION }
  for (const [key, fits] of FITS) if (key in old && fits(old[key])) out[key] = old[key]
  const { policyModel, model } = configuredModels(old)
  out["run.tasks"] = strings(old["run.tasks"])
  out["run.heldOut"] = strings(old["run.heldOut"])
  out["run.policyModel"] = out["run.policy"] === "model" ? policyModel : null
  if (out["run.policy"] === "model" && policyModel === null) delete out["run.policy"]
  out["run.model"] = model
  const demos = old["infer.demos"]
  out["infer.demos"] = demos === "all" ? "all" : strings(demos)
  return out
}

const decodeKeys = Schema.decodeUnknownSync(RunConfigFromKeys)

export const referenceRunConfigOf = (config: Readonly<Record<string, unknown>>): ReferenceRunConfig =>
  decodeKeys(config[RUN_CONFIG_VERSION_KEY] === undefined ? referenceUpcast(config) : config)

export const referenceEncode: (config: ReferenceRunConfig) => Record<string, unknown> = Schema.encodeSync(RunConfigFromKeys)
