/**
 * Secrets and what may be written down. The event log is immutable, so a key or password
 * that reaches `RunStarted` can never be removed: secrets stay in the environment, are read
 * only at the moment of use, and every recorded or printed form of the config goes
 * through `forRecording`.
 */
import type { ConfigKey, ConfigSource, ConfigValues, LoadedConfig } from "./Config.ts"

/** Config keys whose value is the NAME of an environment variable holding a secret. */
export type SecretKey = "models.apiKeyEnv" | "nats.userEnv" | "nats.passwordEnv" | "nats.tokenEnv" | "nats.credsFileEnv"

/**
 * The secret itself, read from the environment variable the config names. Call it where
 * the secret is used (building the HTTP request), never earlier: a value held in a
 * variable is a value that ends up in a log line or an event. Undefined when unset or empty.
 */
export const secretValue = (
  config: LoadedConfig,
  key: SecretKey,
  env: Readonly<Record<string, string | undefined>> = process.env
): string | undefined => {
  const name = config.values[key]
  const value = name === null ? undefined : env[name]
  return value === undefined || value === "" ? undefined : value
}

/**
 * The NATS credentials from the variables `nats.userEnv` … `nats.credsFileEnv` name, read
 * when a connection is opened. A named variable that is unset is an error naming the
 * variable, never its value: connecting anonymously instead would hide the mistake.
 */
export const natsCredentials = (
  config: LoadedConfig,
  env: Readonly<Record<string, string | undefined>> = process.env
):
  | { readonly user?: string; readonly password?: string; readonly token?: string; readonly credsFile?: string }
  | { readonly missing: string } => {
  const keys = { user: "nats.userEnv", password: "nats.passwordEnv", token: "nats.tokenEnv", credsFile: "nats.credsFileEnv" } as const
  const out: Record<string, string> = {}
  for (const [field, key] of Object.entries(keys)) {
    const name = config.values[key]
    if (name === null) continue
    const value = secretValue(config, key, env)
    if (value === undefined) return { missing: `${key} names ${name}, which is not set in the environment` }
    out[field] = value
  }
  return out
}

const SECRET_PARAM = /([?&;](?:password|passwd|pass|pwd|secret|token|api[_-]?key|access[_-]?key|sslpassword)=)[^&#;]*/gi

/**
 * A URL or connection string with any password replaced by `***`:
 * `postgres://user:pw@host/db` → `postgres://user:***@host/db`. The userinfo ends at the
 * last `@` before the path's query, so an unescaped `@` or `/` in a password is still hidden.
 */
export const redactUrl = (url: string): string => {
  let out = url
  const scheme = out.indexOf("://")
  if (scheme !== -1) {
    const rest = out.slice(scheme + 3)
    const end = rest.search(/[?#]/)
    const head = end === -1 ? rest : rest.slice(0, end)
    const at = head.lastIndexOf("@")
    if (at !== -1) {
      const userinfo = head.slice(0, at)
      const colon = userinfo.indexOf(":")
      if (colon !== -1) out = `${out.slice(0, scheme + 3)}${userinfo.slice(0, colon)}:***${rest.slice(at)}`
    }
  }
  // libpq key=value strings (`host=h password=pw`) and secrets passed as query parameters.
  return out.replace(SECRET_PARAM, "$1***").replace(/(^|\s)(password\s*=\s*)('[^']*'|\S+)/gi, "$1$2***")
}

/** The password part of a URL, to scrub it anywhere else it may have been pasted. */
const urlPassword = (url: string): string | undefined => {
  const scheme = url.indexOf("://")
  if (scheme === -1) return undefined
  const head = url.slice(scheme + 3).split(/[?#]/)[0] ?? ""
  // Without userinfo there is no password here; a query secret is left to redactUrl, and
  // taking anything else for one would scrub the host or port out of the record.
  const at = head.lastIndexOf("@")
  const userinfo = at === -1 ? "" : head.slice(0, at)
  const colon = userinfo.indexOf(":")
  const pw = colon === -1 ? "" : userinfo.slice(colon + 1)
  return pw || undefined
}

const URL_KEYS: ReadonlyArray<ConfigKey> = ["database.url", "models.baseUrl", "nats.url"]

// Shorter "secrets" would match inside ordinary values (paths, model names) and only garble the record.
const MIN_SCRUB_LENGTH = 4

/**
 * The variable names held by config keys ending in `Env` (`models.apiKeyEnv`, …): by the
 * naming convention each names a secret, so a key added later is covered without a list to update.
 */
export const secretEnvNames = (values: object): ReadonlyArray<string> =>
  Object.entries(values).flatMap(([k, v]) => (k.endsWith("Env") && typeof v === "string" && v !== "" ? [v] : []))

/**
 * The secrets the config names, read from the environment: what must be scrubbed from
 * anything recorded. Values too short to be told from ordinary text are left out.
 */
export const configuredSecrets = (values: object, env: Readonly<Record<string, string | undefined>> = process.env): ReadonlyArray<string> =>
  secretsIn(secretEnvNames(values), env)

/** The values of the named variables that are set and long enough to scrub. */
export const secretsIn = (
  names: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>> = process.env
): ReadonlyArray<string> => [...new Set(names.map((n) => env[n] ?? ""))].filter((v) => v.length >= MIN_SCRUB_LENGTH)

/** `text` with every secret replaced by `***`; longest first, so one containing another is hidden whole. */
export const scrubSecrets = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) if (secret !== "") out = out.split(secret).join("***")
  return out
}

export interface RecordedConfig {
  /** JSON-safe merged config, as it goes into `RunStarted.config`. */
  readonly config: { readonly [K in ConfigKey]: ConfigValues[K] }
  /** `RunStarted.configSources`: "default" | "file" | "env:NAME" | "flag:--name". */
  readonly configSources: { readonly [K in ConfigKey]: ConfigSource }
}

/**
 * The config in the form that may be recorded or printed: passwords in URLs redacted, and,
 * as a second line of defence, any value that contains a known secret (the model key, a
 * URL password) replaced by `***` — someone may have pasted a key into the wrong field.
 */
export const forRecording = (config: LoadedConfig, env: Readonly<Record<string, string | undefined>> = process.env): RecordedConfig => {
  const secrets = new Set<string>()
  for (const secret of configuredSecrets(config.values, env)) secrets.add(secret)
  for (const k of URL_KEYS) {
    const v = config.values[k]
    const pw = typeof v === "string" ? urlPassword(v) : undefined
    if (pw !== undefined) {
      secrets.add(pw)
      try {
        secrets.add(decodeURIComponent(pw))
      } catch {
        // a malformed escape: the raw form is already in the set
      }
    }
  }
  const scrub = (s: string): string => {
    let out = s
    for (const secret of secrets) if (secret.length >= MIN_SCRUB_LENGTH) out = out.split(secret).join("***")
    return out
  }
  const values: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(config.values)) {
    values[k] = typeof v === "string" ? scrub(URL_KEYS.includes(k as ConfigKey) ? redactUrl(v) : v) : v
  }
  return {
    config: values as RecordedConfig["config"],
    configSources: { ...config.sources }
  }
}
