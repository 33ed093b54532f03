/**
 * Secrets and what may be written down. The event log is immutable, so a key or password
 * that reaches `RunStarted` can never be removed: secrets stay in the environment, are read
 * only at the moment of use, and every recorded or printed form of the config goes
 * through `forRecording`.
 */
import type { ConfigKey, ConfigSource, ConfigValues, LoadedConfig } from "./Config.ts"

/** Config keys whose value is the NAME of an environment variable holding a secret. */
export type SecretKey = "models.apiKeyEnv"

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
  const value = env[config.values[key]]
  return value === undefined || value === "" ? undefined : value
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
  const redacted = redactUrl(url)
  if (redacted === url) return undefined
  const scheme = url.indexOf("://")
  const head = url.slice(scheme + 3).split(/[?#]/)[0] ?? ""
  const userinfo = head.slice(0, head.lastIndexOf("@"))
  const pw = userinfo.slice(userinfo.indexOf(":") + 1)
  return pw || undefined
}

const URL_KEYS: ReadonlyArray<ConfigKey> = ["database.url", "models.baseUrl", "nats.url"]

// Shorter "secrets" would match inside ordinary values (paths, model names) and only garble the record.
const MIN_SCRUB_LENGTH = 4

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
export const forRecording = (
  config: LoadedConfig,
  env: Readonly<Record<string, string | undefined>> = process.env
): RecordedConfig => {
  const secrets = new Set<string>()
  const key = secretValue(config, "models.apiKeyEnv", env)
  if (key !== undefined) secrets.add(key)
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
