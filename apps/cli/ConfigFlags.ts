/**
 * The config keys and a run's settings as command flags, so every command that reads the
 * config accepts the same overrides, and every command that plans a run the same settings.
 */
import type { Effect } from "effect"
import { CONFIG_KEYS } from "@core/config"
import type { ConfigKey } from "@core/config"
import { RUN_DEFAULTS, RUN_FIELDS } from "@core/pipeline"
import type { RunFlagField } from "@core/pipeline"
import type { FlagSpec, ParsedArgs, UsageError } from "./Cli.ts"
import { positiveInt } from "./Cli.ts"

/** Flag specs for config keys, so commands that read the config accept the same overrides. */
export const configFlags = (keys: ReadonlyArray<ConfigKey>): Record<string, FlagSpec> =>
  Object.fromEntries(
    keys.map((k) => {
      const spec = CONFIG_KEYS[k]
      const flag: FlagSpec = spec.choices
        ? { kind: "string", description: `${spec.description} (${k}, env ${spec.env})`, choices: spec.choices }
        : { kind: "string", description: `${spec.description} (${k}, env ${spec.env})` }
      return [spec.flag, flag]
    })
  )

/** The overrides every config-reading command takes. */
export const commonConfigFlags = configFlags(["store", "nats.url", "dataDir"])

/**
 * Flag specs for a run's settings (@core/pipeline RUN_FIELDS): a count's help ends with its
 * default; `help` rewords a flag where a command plays it differently (one round, say).
 */
export const runFlags = (fields: ReadonlyArray<RunFlagField>, help: Partial<Record<RunFlagField, string>> = {}): Record<string, FlagSpec> =>
  Object.fromEntries(
    fields.map((n) => {
      const { flag, default: fallback } = RUN_FIELDS[n]
      const text = help[n] ?? flag.help
      const spec: FlagSpec =
        flag.kind === "number"
          ? { kind: "number", description: `${text} (default ${fallback}${"note" in flag ? `; ${flag.note}` : ""})` }
          : "choices" in flag
            ? { kind: "string", description: text, choices: flag.choices }
            : { kind: "string", description: text }
      return [flag.name, spec]
    })
  )

/** Every run setting's flag, for commands that must refuse them (a resumed run keeps its own). */
export const RUN_FLAG_NAMES: ReadonlyArray<string> = Object.values(RUN_FIELDS).flatMap((f) => (f.flag === undefined ? [] : [f.flag.name]))

/** The settings these flags set, by the key each is recorded under: RunStarted's config sources ("flag:--rounds"). */
export const runFlagSources = (args: ParsedArgs, fields: ReadonlyArray<RunFlagField>): Record<string, string> =>
  Object.fromEntries(
    fields.flatMap((n) => {
      const { key, flag } = RUN_FIELDS[n]
      return args.flags[flag.name] === undefined ? [] : [[key, `flag:--${flag.name}`]]
    })
  )

/** The settings a number flag sets. */
type CountField = { readonly [N in RunFlagField]: (typeof RUN_FIELDS)[N]["flag"]["kind"] extends "number" ? N : never }[RunFlagField]

/** A count a flag sets, at least `min`, or the run's default. */
export const runCount = (args: ParsedArgs, field: CountField, min = 1): Effect.Effect<number, UsageError> =>
  positiveInt(args, RUN_FIELDS[field].flag.name, RUN_DEFAULTS[field], min)
