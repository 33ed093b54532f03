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
 * Each key is one entry of {@link RUN_FIELDS} — its schema, default, flag and the RunConfig
 * property it fills — and the defaults, both schemas, their reading and writing, and the
 * CLI's flags for run settings are derived from that table, so a setting is added in one
 * place. The policy is the one property recorded as several keys; its entries say how.
 *
 * @example
 * const config = runConfigOf(runStarted.data.config) // old runs included
 * const keys = encodeRunConfig(config) // what a new RunStarted records
 */
import { Effect, Schema, SchemaGetter } from "effect"
import { DATA_RULES, EXPLORATION, LEARNER, RETRIEVAL, SYNTHESIS } from "@core/domain"
import type { LearnerVersion } from "@core/domain"
import { Platform } from "@core/events"

/** Marks a RunStarted config written from the schema; records without it are upcast. */
export const RUN_CONFIG_VERSION = 2
export const RUN_CONFIG_VERSION_KEY = "run.configVersion"

/**
/** The data rules a new run decides by (@core/domain DATA_RULES says what each version brought). */
export const DATA_RULES_VERSION = DATA_RULES.current

/** A whole number ≥ 0 (any integer, as runs always read counts: not only safe ones). */
const Count = Schema.Number.check(Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= 0 ? undefined : "a whole number ≥ 0")))
const Names = Schema.Array(Schema.String)
const PolicyKind = Schema.Literals(["exploration", "embedded", "model", "learned"])
const Synthesis = Schema.Literals(SYNTHESIS.versions)
export const DataRules = Schema.Literals(DATA_RULES.versions)
export const Exploration = Schema.Literals(EXPLORATION.versions)
const Retrieval = Schema.Literals(RETRIEVAL.versions)
const Learner = Schema.Literals(LEARNER.versions)
/** The demos inference reads: every one the workspace has, or these ids. */
const Demos = Schema.Union([Schema.Literal("all"), Names])

/** A follow trainer's name: its consumer's, and the last part of its stream's subject. */
const TrainerName = Schema.String.check(
  Schema.makeFilter((n: string) => (/^[A-Za-z0-9_-]+$/.test(n) ? undefined : "letters, digits, '-' and '_'"))
)

/** Who acts in the run's rollouts (the rollout's PolicySpec). */
export const RunPolicy = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("exploration") }),
  /** `retrieval`: the retrieval policy's version, when not 1 (what the rollouts read; the run records it as `run.retrieval`). */
  Schema.Struct({ kind: Schema.Literal("embedded"), retrieval: Schema.optionalKey(Retrieval) }),
  Schema.Struct({ kind: Schema.Literal("model"), model: Schema.String, temperature: Schema.Finite, topP: Schema.Finite }),
  /**
   * The learned policy (@core/learner), trained in the run at each round's start on the
   * dataset records sealed so far; with `trainer`, the latest version that trainer (`core
   * train --follow --consumer <trainer>`) has published is taken instead.
   */
  Schema.Struct({ kind: Schema.Literal("learned"), trainer: Schema.optionalKey(TrainerName) })
])
type Policy = typeof RunPolicy.Type

/** How a flag of `bun core run` sets a field (apps/cli ConfigFlags.ts turns it into the flag's spec). */
export type RunFlag =
  /** A count: its help is followed by the field's default, then `note` (`(default 3; 0: none)`). */
  | { readonly name: string; readonly kind: "number"; readonly help: string; readonly note?: string }
  /** A string: its help says the default in its own words, if there is one. */
  | { readonly name: string; readonly kind: "string"; readonly help: string; readonly choices?: ReadonlyArray<string> }

/** One key a run records, and how its RunConfig holds it. */
export interface RunField<K extends string, S extends Schema.Top> {
  /** The dotted key RunStarted's config records it under. */
  readonly key: K
  /** What a version-2 record must hold, and what an old one's value had to be to count. */
  readonly schema: S
  /** What a record without the key reads as, and what a new run takes when nothing sets it. */
  readonly default: S["Type"]
  /** The flag that sets it, if one does. */
  readonly flag?: RunFlag
  /**
   * The key is part of the run's policy (RunPolicy), written from it: undefined writes the
   * default. Every other key is the RunConfig property of its field's name.
   */
  readonly ofPolicy?: (policy: Policy) => S["Type"] | undefined
  /**
   * The key came after runs recorded every key: a run writes it only when it is not its
   * default, so every run that does not use it records the bytes it always did.
   */
  readonly onlyWhenSet?: true
}

/** A key the RunConfig property of its entry's name holds; its flag's type is kept, so the CLI knows which fields have one. */
const field = <const K extends string, S extends Schema.Top, const F extends RunFlag | undefined = undefined>(
  key: K,
  schema: S,
  fallback: S["Type"],
  flag?: F
): RunField<K, S> & { readonly flag: F } => ({ key, schema, default: fallback, flag: flag as F })

/** A key written from the run's policy (its `ofPolicy`). */
const policyField = <const K extends string, S extends Schema.Top, const F extends RunFlag | undefined = undefined>(
  key: K,
  schema: S,
  fallback: S["Type"],
  ofPolicy: (policy: Policy) => S["Type"] | undefined,
  flag?: F
) => ({ ...field(key, schema, fallback, flag), ofPolicy })

/**
 * Every key a run records, in the order it records them. The `app.hashRouting`,
 * `infer.synthesis` and `infer.lfGuide` defaults are what runs recorded before those keys
 * existed did (no fragment routing, the first synthesizer and LF guide), as are the
 * versions' "1"; a new run records the current versions.
 */
export const RUN_FIELDS = {
  tasks: field("run.tasks", Names, [], { name: "tasks", kind: "string", help: "only these task ids (comma-separated)" }),
  rounds: field("run.rounds", Count, 1, { name: "rounds", kind: "number", help: "rounds to run" }),
  /** Rollouts per task and round. */
  samples: field("run.samples", Count, 5, { name: "samples", kind: "number", help: "rollouts per task per round" }),
  /** Steps per rollout before it is cut off. */
  stepBudget: field("run.stepBudget", Count, 12, { name: "step-budget", kind: "number", help: "steps per rollout before it is cut off" }),
  /** Who acts in the run's rollouts: RunConfig's `policy` is read from this key and the next three (and `run.retrieval`). */
  policy: policyField("run.policy", PolicyKind, "exploration", (p) => p.kind, {
    name: "policy",
    kind: "string",
    help: "exploration (seeded, no model; default), embedded (the retrieval policy trained on each round's data, round 0 = the demos), learned (the learner's parametric policy, trained the same way) or model (models.baseUrl)",
    choices: ["exploration", "embedded", "learned", "model"]
  }),
  /** The trainer whose published versions the learned policy takes; null: trained in the run. Recorded only when set. */
  trainer: {
    ...policyField("run.trainer", Schema.NullOr(TrainerName), null, (p) => (p.kind === "learned" ? (p.trainer ?? null) : null), {
      name: "trainer",
      kind: "string",
      help: "with --policy learned: take the latest version this follow trainer (bun core train --follow --consumer NAME) published at each round's start, instead of training in the run"
    }),
    onlyWhenSet: true
  },
  /** The model acting for the `model` policy; null for the others. */
  policyModel: policyField("run.policyModel", Schema.NullOr(Schema.String), null, (p) => (p.kind === "model" ? p.model : null)),
  temperature: policyField("run.temperature", Schema.Finite, 1, (p) => (p.kind === "model" ? p.temperature : undefined)),
  topP: policyField("run.topP", Schema.Finite, 1, (p) => (p.kind === "model" ? p.topP : undefined)),
  /** Partial trajectories a round may turn into new paths per task (expansion is inference: it costs). */
  expandPerTask: field("run.expandPerTask", Count, 2, {
    name: "expand-per-task",
    kind: "number",
    help: "paths expansion may add per task and round"
  }),
  /** Explorer episodes per task and round (Strategy Graph Expansion b). */
  explorePerTask: field("run.explorePerTask", Count, 3, {
    name: "explore-per-task",
    kind: "number",
    help: "explorer episodes per task and round",
    note: "0 with --expand-per-task 0: no expansion"
  }),
  /** New tasks Trajectory-Guided Extrapolation may add per parent task and round (0: none, the ablation). */
  extrapolatePerTask: field("run.extrapolatePerTask", Count, 1, {
    name: "extrapolate-per-task",
    kind: "number",
    help: "tasks extrapolation may add per task and round",
    note: "0: no extrapolation"
  }),
  /** Rollouts per extrapolated task and round: they join the pool, at a smaller share. */
  extrapolatedSamples: field("run.extrapolatedSamples", Count, 2),
  /** Held-out tasks (ids): generated tasks must not come near them (the contamination guard). */
  heldOut: field("run.heldOut", Names, []),
  /**
   * Where the run's episodes play: desktop Chromium (web), a phone-emulating Chromium over
   * WebDriver (mobile-web), or an Android pack's devices through Appium (android).
   */
  platform: field("run.platform", Platform, "web", {
    name: "platform",
    kind: "string",
    help: "web (desktop Chromium, default) or mobile-web (Chromium's phone emulation over WebDriver: chromedriver, touch); an Android app runs as a pack (--app)",
    choices: ["web", "mobile-web", "android"]
  }),
  /** The app routes by the URL's fragment (from its pack): a rollout's URLs keep it, as the app's demos do. */
  hashRouting: field("app.hashRouting", Schema.Boolean, false),
  /** The embedded synthesizer's version the run infers with. */
  synthesis: field("infer.synthesis", Synthesis, "1"),
  /** The LF API guide version a model is shown. */
  lfGuide: field("infer.lfGuide", Schema.String, "1"),
  /** The data rules the run's graph, verification, extrapolation and dataset deciders follow ({@link DATA_RULES_VERSION}). */
  dataRules: field("run.dataRules", DataRules, "1"),
  /** The exploration policy's version (libs/domain ExplorationPolicy): 2 may fill a form from the instruction, 3 also reads answers off the page, 4 also sets sort selects and never clicks a select. */
  exploration: field("run.exploration", Exploration, "1"),
  /** The embedded retrieval policy's version (libs/policy Reading.ts): version 2 reads a recorded price or count off the page. */
  retrieval: field("run.retrieval", Retrieval, "1"),
  /**
   * How the learned policy is trained (libs/domain rules/Learner.ts): a learned run records the
   * version it trains with; every other run, and learned runs from before the key, read 1.
   */
  learner: { ...field("run.learner", Learner, "1"), onlyWhenSet: true },
  /** The model of the configured model server, which relabels failures the templates cannot; null without one. */
  model: field("run.model", Schema.NullOr(Schema.String), null),
  /** The demos the run infers label functions from. */
  demos: field("infer.demos", Demos, [])
} as const
type Fields = typeof RUN_FIELDS
export type RunFieldName = keyof Fields
/** The fields a flag sets. */
export type RunFlagField = { readonly [N in RunFieldName]: Fields[N]["flag"] extends RunFlag ? N : never }[RunFieldName]
const NAMES = Object.keys(RUN_FIELDS) as ReadonlyArray<RunFieldName>

/** The fields a RunConfig holds as they are recorded: all but the policy's. */
type Own = {
  readonly [N in RunFieldName as Fields[N] extends { readonly ofPolicy: (policy: Policy) => unknown } ? never : N]: Fields[N]["schema"]
}

/** Every default of a run: the CLI's flags default to these, and a key a run did not record reads as its default. */
export const RUN_DEFAULTS = Object.fromEntries(NAMES.map((n) => [n, RUN_FIELDS[n].default])) as {
  readonly [N in RunFieldName]: Fields[N]["default"]
}

/** The keys each field is recorded under, for a plan's config sources. */
export const RUN_CONFIG_KEYS = Object.fromEntries(NAMES.map((n) => [n, RUN_FIELDS[n].key])) as {
  readonly [N in RunFieldName]: Fields[N]["key"]
}

/** A run's parameters, as its deciders use them: each own field, and the policy where its `run.policy` key is. */
export const RunConfig = Schema.Struct(
  Object.fromEntries(
    NAMES.flatMap(
      (n): ReadonlyArray<readonly [string, Schema.Top]> =>
        n === "policy" ? [[n, RunPolicy]] : "ofPolicy" in RUN_FIELDS[n] ? [] : [[n, RUN_FIELDS[n].schema]]
    )
  ) as Own & { readonly policy: typeof RunPolicy }
)
export type RunConfig = typeof RunConfig.Type

const keyed = <S extends Schema.Top>(schema: S, fallback: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback)))

/** RunStarted's config as a run records it: the version mark, then every key, a missing one read as its default. */
export const RunConfigKeys = Schema.Struct({
  [RUN_CONFIG_VERSION_KEY]: Schema.Literal(RUN_CONFIG_VERSION),
  ...(Object.fromEntries(
    NAMES.map((n) => {
      const f: RunField<string, Schema.Top> = RUN_FIELDS[n]
      return [f.key, keyed(f.schema, f.default)]
    })
  ) as { readonly [N in RunFieldName as Fields[N]["key"]]: Schema.withDecodingDefaultKey<Fields[N]["schema"]> })
}).check(
  Schema.makeFilter((k) =>
    k["run.policy"] === "model" && k["run.policyModel"] === null ? "the model policy needs run.policyModel" : undefined
  )
)
type Keys = typeof RunConfigKeys.Type

/** The policy a record's keys name. */
const policyOf = (k: Keys): Policy =>
  k["run.policy"] === "model" && k["run.policyModel"] !== null
    ? { kind: "model", model: k["run.policyModel"], temperature: k["run.temperature"], topP: k["run.topP"] }
    : k["run.policy"] === "embedded"
      ? // the rollouts read the version from the policy they are given: version 1 is the policy as it always was
        k["run.retrieval"] === RETRIEVAL.versions[0]
        ? { kind: "embedded" }
        : { kind: "embedded", retrieval: k["run.retrieval"] }
      : k["run.policy"] === "learned"
        ? k["run.trainer"] === null
          ? { kind: "learned" }
          : { kind: "learned", trainer: k["run.trainer"] }
        : { kind: "exploration" }

const fromKeys = (k: Keys): RunConfig => {
  const byKey: Readonly<Record<string, unknown>> = k
  const config: Record<string, unknown> = {}
  for (const n of NAMES)
    if (n === "policy") config[n] = policyOf(k)
    else if (!("ofPolicy" in RUN_FIELDS[n])) config[n] = byKey[RUN_FIELDS[n].key]
  return config as RunConfig
}

const toKeys = (c: RunConfig): Keys => {
  const byName: Readonly<Record<string, unknown>> = c
  const keys: Record<string, unknown> = { [RUN_CONFIG_VERSION_KEY]: RUN_CONFIG_VERSION }
  for (const n of NAMES) {
    const f: RunField<string, Schema.Top> = RUN_FIELDS[n]
    keys[f.key] = f.ofPolicy ? (f.ofPolicy(c.policy) ?? f.default) : byName[n]
  }
  return keys as Keys
}

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

const FITS: ReadonlyArray<readonly [string, (v: unknown) => boolean]> = NAMES.map((n) => [
  RUN_FIELDS[n].key,
  Schema.is(RUN_FIELDS[n].schema)
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
  // Runs from before the schema knew no learned policy: the name read as exploration, as any unknown one did.
  if (out["run.policy"] === "learned") delete out["run.policy"]
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

const encodeKeys = Schema.encodeSync(RunConfigFromKeys)
const ONLY_WHEN_SET = NAMES.flatMap((n) => {
  const f: RunField<string, Schema.Top> = RUN_FIELDS[n]
  return f.onlyWhenSet ? [f] : []
})

/** The keys a new RunStarted records for the config. */
export const encodeRunConfig = (config: RunConfig): Record<string, unknown> => {
  const keys: Record<string, unknown> = { ...encodeKeys(config) }
  for (const f of ONLY_WHEN_SET) if (keys[f.key] === f.default) delete keys[f.key]
  return keys
}

/** The policy a plan names, with the model the config names; null for the model policy without one. */
export const runPolicy = (kind: RunConfig["policy"]["kind"], model: string | null): RunConfig["policy"] | null =>
  kind !== "model" ? { kind } : model === null ? null : { kind, model, temperature: RUN_DEFAULTS.temperature, topP: RUN_DEFAULTS.topP }

/**
 * The learner version the run's learned models train at: a learned run's recorded one (1
 * for those from before the key); any other run never trained the learner, so what is
 * trained from its data today (eval's learned arms, `core train --run`) uses the current one.
 */
export const learnerOf = (config: RunConfig): LearnerVersion => (config.policy.kind === "learned" ? config.learner : LEARNER.current)

/** How many of the workspace's demos the run infers from. */
export const demoCount = (config: RunConfig, demos: ReadonlyMap<string, unknown>): number =>
  config.demos === "all" ? demos.size : config.demos.filter((d) => demos.has(d)).length
