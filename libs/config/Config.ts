/**
 * The merged configuration (docs/architecture.md, "Configuration"): defaults, then
 * `core.config.json`, then environment variables, then flags — each later source wins —
 * with the source of every value kept, because `RunStarted` records both and a user asking
 * "why did it use that NATS?" needs the answer.
 *
 * Secrets are never config values: `models.apiKeyEnv` holds the *name* of the variable
 * with the key (see `secretValue` in Recording.ts), so nothing loaded here can leak a key
 * into the immutable log.
 *
 * @example
 * const config = yield* loadConfig({ flags: args.flags })
 * config.values["nats.url"]   // "nats://127.0.0.1:4222"
 * config.sources["nats.url"]  // "env:NATS_URL"
 */
import { Context, Effect, Layer, Schema, SchemaIssue } from "effect"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { PacksFile, packSettingsOf } from "./Packs.ts"
import type { PackSettings } from "./Packs.ts"

/** Bad configuration from any source, in one line that names the file or variable and the key. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  message: Schema.String
}) {}

const EnvVarName = Schema.String.check(
  // Deliberately does not echo the value: a user who pasted the key itself here must not see it printed.
  Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: "must be the NAME of an environment variable holding the key, not the key itself"
  })
)

/**
 * The complaint when `text` is not JSON for an object (nor an array, nor null). It never
 * quotes the text, not even the parser's view of it: capabilities may hold a password.
 */
const jsonObjectIssue = (text: string): string | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return "must be a JSON object of Appium capabilities (this is not valid JSON)"
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? undefined
    : "must be a JSON object of Appium capabilities"
}

/**
 * Appium capabilities as JSON text: a config value stays a plain string (printable by
 * `config show`, scrubbed by `forRecording` like any other); `androidSettings` parses it.
 */
const CapabilitiesJson = Schema.String.check(Schema.makeFilter(jsonObjectIssue))

const BYTE_UNITS: Readonly<Record<string, number>> = { "": 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }

/** `"16MiB"` → 16777216; a whole number of bytes, KiB, MiB or GiB. Undefined when not that shape or not positive. */
export const parseByteSize = (text: string): number | undefined => {
  const m = /^(\d{1,15})\s*(B|KiB|MiB|GiB)?$/.exec(text.trim())
  const n = m ? Number(m[1]) * BYTE_UNITS[m[2] ?? ""]! : 0
  return n > 0 && Number.isSafeInteger(n) ? n : undefined
}

/** A size limit, kept as the text the user wrote (`config show` prints it as given); `ingestLimits` reads it. */
const ByteSize = Schema.String.check(
  Schema.makeFilter((s: string) =>
    parseByteSize(s) === undefined ? "must be a positive size in bytes, e.g. 16777216 or 16MiB" : undefined
  )
)

/**
 * A NATS URL: credentials in it would be printed and recorded with it, so they are refused
 * (the complaint never quotes the URL) in favour of environment variables the config names.
 */
const NatsUrl = Schema.NonEmptyString.check(
  Schema.makeFilter((url: string) =>
    /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url)
      ? "must not carry credentials: set nats.userEnv and nats.passwordEnv (or nats.tokenEnv, nats.credsFileEnv) to the NAMES of environment variables holding them"
      : undefined
  )
)

/** Milliseconds, kept as the decimal text the user wrote; `natsSettings` reads it. */
const Milliseconds = Schema.String.check(Schema.isPattern(/^[1-9][0-9]{0,11}$/, { message: "must be a whole number of milliseconds" }))

const NullableEnvVarName = Schema.NullOr(EnvVarName)

/** How often a job may be delivered, kept as the decimal text the user wrote; `queueSettings` reads it. */
const Deliveries = Schema.String.check(Schema.isPattern(/^[1-9][0-9]{0,2}$/, { message: "must be a whole number from 1 to 999" }))

/** On or off: `true` / `false` in the file, the variable or the flag; null: unset. */
const NullableToggle = Schema.NullOr(Schema.Boolean).annotate({ message: "must be true or false" })

/** Keys whose value is a `NullableToggle`: their variable's and flag's text becomes the boolean. */
const TOGGLES: ReadonlySet<string> = new Set(["models.setOfMarks"])

/** "true" → true, "false" → false; anything else stays text, for the schema to refuse in one line. */
const toggleOf = (text: string): boolean | string => (text === "true" ? true : text === "false" ? false : text)

/** The typed shape of a merged config. Keys are flat dotted names. */
export const ConfigValues = Schema.Struct({
  store: Schema.Literals(["auto", "embedded", "nats"]),
  "nats.url": NatsUrl,
  "nats.outageLimitMs": Milliseconds,
  "nats.userEnv": NullableEnvVarName,
  "nats.passwordEnv": NullableEnvVarName,
  "nats.tokenEnv": NullableEnvVarName,
  "nats.credsFileEnv": NullableEnvVarName,
  dataDir: Schema.NonEmptyString,
  seed: Schema.NonEmptyString,
  "database.url": Schema.NonEmptyString,
  "models.baseUrl": Schema.NullOr(Schema.NonEmptyString),
  "models.model": Schema.NullOr(Schema.NonEmptyString),
  "models.apiKeyEnv": EnvVarName,
  "models.setOfMarks": NullableToggle,
  "chromium.path": Schema.NonEmptyString,
  "chromedriver.path": Schema.NonEmptyString,
  "android.appiumUrl": Schema.NonEmptyString,
  "android.capabilities": CapabilitiesJson,
  "ingest.maxBlobBytes": ByteSize,
  "ingest.maxDemoBytes": ByteSize,
  "workers.ackWaitMs": Milliseconds,
  "workers.maxDeliveries": Deliveries
})
export type ConfigValues = typeof ConfigValues.Type
export type ConfigKey = keyof ConfigValues

export type ConfigSource = "default" | "file" | `env:${string}` | `flag:--${string}`

export interface KeySpec {
  readonly env: string
  /** Flag name without the leading dashes. */
  readonly flag: string
  readonly description: string
  readonly choices?: ReadonlyArray<string>
}

export const CONFIG_KEYS: { readonly [K in ConfigKey]: KeySpec } = {
  store: { env: "CORE_STORE", flag: "store", description: "event store: auto, embedded or nats", choices: ["auto", "embedded", "nats"] },
  "nats.url": { env: "NATS_URL", flag: "nats-url", description: "NATS server URL (no credentials: see nats.userEnv)" },
  "nats.outageLimitMs": {
    env: "CORE_NATS_OUTAGE_LIMIT_MS",
    flag: "nats-outage-limit-ms",
    description: "how long work waits for a lost NATS server to return before failing"
  },
  "nats.userEnv": { env: "CORE_NATS_USER_ENV", flag: "nats-user-env", description: "NAME of the env var holding the NATS user" },
  "nats.passwordEnv": {
    env: "CORE_NATS_PASSWORD_ENV",
    flag: "nats-password-env",
    description: "NAME of the env var holding the NATS password"
  },
  "nats.tokenEnv": { env: "CORE_NATS_TOKEN_ENV", flag: "nats-token-env", description: "NAME of the env var holding the NATS token" },
  "nats.credsFileEnv": {
    env: "CORE_NATS_CREDS_FILE_ENV",
    flag: "nats-creds-file-env",
    description: "NAME of the env var holding the path of a NATS .creds file"
  },
  dataDir: { env: "CORE_DATA_DIR", flag: "data-dir", description: "directory for the embedded store, blobs and read models" },
  seed: { env: "CORE_SEED", flag: "seed", description: "run seed for every random draw" },
  "database.url": { env: "DATABASE_URL", flag: "database-url", description: "read-model database (sqlite:<file> or postgres://…)" },
  "models.baseUrl": {
    env: "CORE_MODEL_BASE_URL",
    flag: "model-base-url",
    description: "OpenAI-compatible model server (unset = embedded backends)"
  },
  "models.model": { env: "CORE_MODEL", flag: "model", description: "model name at the model server" },
  "models.apiKeyEnv": {
    env: "CORE_MODEL_API_KEY_ENV",
    flag: "model-api-key-env",
    description: "NAME of the env var holding the model API key"
  },
  "models.setOfMarks": {
    env: "CORE_SET_OF_MARKS",
    flag: "set-of-marks",
    description: "screenshots with the element ids drawn on, for the model policy: true or false (unset: on for --policy model only)",
    choices: ["true", "false"]
  },
  "chromium.path": { env: "CORE_CHROMIUM", flag: "chromium", description: "Chromium binary" },
  "chromedriver.path": { env: "CORE_CHROMEDRIVER", flag: "chromedriver", description: "chromedriver binary" },
  "android.appiumUrl": { env: "CORE_APPIUM_URL", flag: "appium-url", description: "Appium server for Android devices and emulators" },
  "android.capabilities": {
    env: "CORE_ANDROID_CAPABILITIES",
    flag: "android-capabilities",
    description: "Appium capabilities as a JSON object (appium:udid, appium:appPackage, …)"
  },
  "ingest.maxBlobBytes": {
    env: "CORE_INGEST_MAX_BLOB_BYTES",
    flag: "max-blob-bytes",
    description: "largest file `ingest` reads: a blob or demo.json (bytes, or KiB/MiB/GiB)"
  },
  "ingest.maxDemoBytes": {
    env: "CORE_INGEST_MAX_DEMO_BYTES",
    flag: "max-demo-bytes",
    description: "largest demo `ingest` reads: demo.json and its blobs together"
  },
  "workers.ackWaitMs": {
    env: "CORE_WORKERS_ACK_WAIT_MS",
    flag: "ack-wait-ms",
    description: "how long a worker may hold an episode job without a heartbeat before another gets it"
  },
  "workers.maxDeliveries": {
    env: "CORE_WORKERS_MAX_DELIVERIES",
    flag: "max-deliveries",
    description: "deliveries of one episode job before it is recorded as an infra-error"
  }
}
export const configKeys = Object.keys(CONFIG_KEYS) as ReadonlyArray<ConfigKey>

/** Env var that points at a config file other than `<root>/core.config.json`. */
export const CONFIG_PATH_ENV = "CORE_CONFIG"
export const CONFIG_FILE_NAME = "core.config.json"

/** What a UiAutomator2 session needs at least; a device is picked by Appium unless `appium:udid` names one. */
export const DEFAULT_ANDROID_CAPABILITIES = JSON.stringify({ platformName: "Android", "appium:automationName": "UiAutomator2" })

const defaultsFor = (dataDir: string): ConfigValues => ({
  store: "auto",
  "nats.url": "nats://127.0.0.1:4222",
  "nats.outageLimitMs": "600000",
  "nats.userEnv": null,
  "nats.passwordEnv": null,
  "nats.tokenEnv": null,
  "nats.credsFileEnv": null,
  dataDir: ".core",
  seed: "0",
  "database.url": `sqlite:${join(dataDir, "projections.db")}`,
  "models.baseUrl": null,
  "models.model": null,
  "models.apiKeyEnv": "CORE_MODEL_API_KEY",
  // Unset: the run decides by its policy (`setOfMarksFor`).
  "models.setOfMarks": null,
  "chromium.path": "/usr/bin/chromium",
  "chromedriver.path": "/usr/bin/chromedriver",
  "android.appiumUrl": "http://127.0.0.1:4723",
  "android.capabilities": DEFAULT_ANDROID_CAPABILITIES,
  "ingest.maxBlobBytes": "16MiB",
  "ingest.maxDemoBytes": "256MiB",
  "workers.ackWaitMs": "30000",
  "workers.maxDeliveries": "3"
})

// The file may be nested (`{"nats": {"url": …}}`) or flat (`{"nats.url": …}`); both flatten to the same keys.
const GROUPS = new Set(configKeys.filter((k) => k.includes(".")).map((k) => k.slice(0, k.indexOf("."))))

const FileValues = Schema.Struct({
  store: Schema.optional(ConfigValues.fields.store),
  "nats.url": Schema.optional(ConfigValues.fields["nats.url"]),
  "nats.outageLimitMs": Schema.optional(Schema.Union([Milliseconds, Schema.Int])),
  "nats.userEnv": Schema.optional(NullableEnvVarName),
  "nats.passwordEnv": Schema.optional(NullableEnvVarName),
  "nats.tokenEnv": Schema.optional(NullableEnvVarName),
  "nats.credsFileEnv": Schema.optional(NullableEnvVarName),
  dataDir: Schema.optional(ConfigValues.fields.dataDir),
  // A number is the natural way to write a seed in JSON; it is kept as its decimal string.
  seed: Schema.optional(Schema.Union([Schema.NonEmptyString, Schema.Int])),
  "database.url": Schema.optional(ConfigValues.fields["database.url"]),
  "models.baseUrl": Schema.optional(ConfigValues.fields["models.baseUrl"]),
  "models.model": Schema.optional(ConfigValues.fields["models.model"]),
  "models.apiKeyEnv": Schema.optional(ConfigValues.fields["models.apiKeyEnv"]),
  "models.setOfMarks": Schema.optional(NullableToggle).annotate({ message: "must be true or false" }),
  "chromium.path": Schema.optional(ConfigValues.fields["chromium.path"]),
  "chromedriver.path": Schema.optional(ConfigValues.fields["chromedriver.path"]),
  "android.appiumUrl": Schema.optional(ConfigValues.fields["android.appiumUrl"]),
  // In the file, the natural form is the object itself; it is kept as its JSON text.
  "android.capabilities": Schema.optional(Schema.Union([CapabilitiesJson, Schema.Record(Schema.String, Schema.Unknown)])),
  // Like seed: a number of bytes in JSON is kept as its decimal string.
  "ingest.maxBlobBytes": Schema.optional(Schema.Union([ByteSize, Schema.Int])),
  "ingest.maxDemoBytes": Schema.optional(Schema.Union([ByteSize, Schema.Int])),
  "workers.ackWaitMs": Schema.optional(Schema.Union([Milliseconds, Schema.Int])),
  "workers.maxDeliveries": Schema.optional(Schema.Union([Deliveries, Schema.Int])),
  packs: Schema.optional(PacksFile)
})

export interface LoadedConfig {
  readonly values: ConfigValues
  readonly sources: { readonly [K in ConfigKey]: ConfigSource }
  /** The config file consulted, and whether it existed. */
  readonly file: { readonly path: string; readonly found: boolean }
  /** The file's `packs`: what each app pack, by name, is granted (Packs.ts). */
  readonly packs: ReadonlyMap<string, PackSettings>
}

export interface LoadOptions {
  /** Parsed command-line flags by name without dashes (`ParsedArgs.flags`); undefined = not given. */
  readonly flags?: Readonly<Record<string, string | number | boolean | undefined>>
  /** Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Project root holding `core.config.json`; default the working directory. */
  readonly root?: string
  /** Explicit config file path, beating `CORE_CONFIG` and the root's file; null = read no file. */
  readonly configPath?: string | null
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

// A prototype-less target: in a plain `{}`, assigning the own key "__proto__" that JSON.parse
// produces would set the prototype instead, hiding the key from the unknown-key check and
// letting the keys of its value pass for settings.
const flatten = (
  obj: Record<string, unknown>,
  prefix = "",
  out: Record<string, unknown> = Object.create(null)
): Record<string, unknown> => {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k
    if (!prefix && GROUPS.has(k) && isRecord(v)) flatten(v, key, out)
    else out[key] = v
  }
  return out
}

// Values of these keys may carry credentials, so a complaint about them never quotes the value.
const QUIET_KEYS: ReadonlySet<string> = new Set([
  "database.url",
  "models.baseUrl",
  "models.apiKeyEnv",
  "nats.userEnv",
  "nats.passwordEnv",
  "nats.tokenEnv",
  "nats.credsFileEnv"
])

const issueLine = (error: Schema.SchemaError, input: unknown): { key: string; text: string } => {
  const first = SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues[0]
  const key = (first?.path ?? []).map(String).join(".")
  const raw = (first?.message ?? "invalid value").replace(/ \| undefined/g, "")
  let text = raw.charAt(0).toLowerCase() + raw.slice(1)
  if (text === "expected no excess property") {
    text = GROUPS.has(key)
      ? `must be an object with ${configKeys
          .filter((k) => k.startsWith(`${key}.`))
          .map((k) => k.slice(key.length + 1))
          .join(", ")}`
      : key.startsWith("packs.")
        ? "unknown key (a pack's entry takes allowSecrets)"
        : `unknown key (known: ${configKeys.join(", ")}, packs)`
  } else if (key && isRecord(input) && key in input && !QUIET_KEYS.has(key) && !text.startsWith("must")) {
    text += `, got ${JSON.stringify(input[key])?.slice(0, 60)}`
  }
  return { key, text }
}

const readFile = (path: string, explicit: boolean): Effect.Effect<Record<string, unknown> | null, ConfigError> =>
  Effect.gen(function* () {
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (e) {
      const code = (e as { code?: string }).code
      // No file at the default place just means "no file settings"; a file the user named must exist.
      if (code === "ENOENT" && !explicit) return null
      return yield* new ConfigError({
        message: code === "ENOENT" ? `${path}: config file not found` : `${path}: cannot read config file (${code ?? String(e)})`
      })
    }
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) =>
        new ConfigError({ message: `${path}: invalid JSON: ${(e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ")}` })
    })
    if (!isRecord(json)) return yield* new ConfigError({ message: `${path}: must contain a JSON object of settings` })
    const flat = flatten(json)
    const decoded = Schema.decodeUnknownResult(FileValues)(flat, { onExcessProperty: "error" })
    if (decoded._tag === "Failure") {
      const { key, text: why } = issueLine(decoded.failure, flat)
      return yield* new ConfigError({ message: `${path}: key "${key}": ${why}` })
    }
    return flat
  })

const describeSource = (source: ConfigSource, key: string, file: string): string =>
  source.startsWith("env:")
    ? `environment variable ${source.slice(4)} (${key})`
    : source.startsWith("flag:")
      ? `flag ${source.slice(5)} (${key})`
      : `${file}: key "${key}"`

/** Loads and validates the merged config; every failure is one `ConfigError` line. */
export const loadConfig = Effect.fnUntraced(function* (options: LoadOptions = {}): Effect.fn.Return<LoadedConfig, ConfigError> {
  const env = options.env ?? process.env
  const root = resolve(options.root ?? process.cwd())
  const fromEnv = env[CONFIG_PATH_ENV]
  const explicit = options.configPath === undefined ? (fromEnv ? resolve(root, fromEnv) : undefined) : options.configPath
  const path = explicit ?? join(root, CONFIG_FILE_NAME)
  const file = explicit === null ? null : yield* readFile(path, explicit !== undefined)

  const raw: Record<string, unknown> = {}
  const sources: Record<string, ConfigSource> = {}
  const flags = options.flags ?? {}
  const merge = (key: ConfigKey, fallback: unknown) => {
    const spec = CONFIG_KEYS[key]
    let value: unknown = fallback
    let source: ConfigSource = "default"
    if (file && key in file) {
      const v = file[key]
      value = typeof v === "number" ? String(v) : isRecord(v) ? JSON.stringify(v) : v
      source = "file"
    }
    // An empty variable (`NATS_URL= bun core …`) means "unset", as most tools treat it.
    const e = env[spec.env]
    if (e !== undefined && e !== "") {
      value = TOGGLES.has(key) ? toggleOf(e) : e
      source = `env:${spec.env}`
    }
    const f = flags[spec.flag]
    if (f !== undefined) {
      value = TOGGLES.has(key) ? toggleOf(String(f)) : String(f)
      source = `flag:--${spec.flag}`
    }
    raw[key] = value
    sources[key] = source
  }
  // database.url's default lives under dataDir, so dataDir is settled first.
  merge("dataDir", ".core")
  const defaults = defaultsFor(typeof raw.dataDir === "string" ? raw.dataDir : ".core")
  for (const key of configKeys) if (key !== "dataDir") merge(key, defaults[key])

  const decoded = Schema.decodeUnknownResult(ConfigValues)(raw)
  if (decoded._tag === "Failure") {
    const { key, text } = issueLine(decoded.failure, raw)
    return yield* new ConfigError({ message: `${describeSource(sources[key] ?? "default", key, path)}: ${text}` })
  }
  return {
    values: decoded.success,
    sources: Object.fromEntries(configKeys.map((k) => [k, sources[k]])) as LoadedConfig["sources"],
    file: { path, found: file !== null },
    packs: packSettingsOf(file?.packs)
  }
})

/** The loaded config as a service, for Effect programs that would rather not thread it. */
export class CoreConfig extends Context.Service<CoreConfig, LoadedConfig>()("@core/config/CoreConfig") {
  static readonly layer = (options: LoadOptions = {}): Layer.Layer<CoreConfig, ConfigError> => Layer.effect(CoreConfig, loadConfig(options))
}
