/**
 * Which of the user's environment variables an app pack's log-in may type (libs/apps
 * Auth.ts, docs/app-packs.md "Logging in"). What the log-in types goes to the pack's
 * server, so a pack gets only what the user allowed it — `--allow-secret NAME` on the
 * command, or `packs.<name>.allowSecrets` in core.config.json — and never a variable CORE
 * itself reads, whatever was allowed: the model key, NATS and database credentials, CORE's
 * own settings.
 *
 * @example
 * const rule = secretRule(config, ["SHOP_PASSWORD"]) // the names given on the command line
 * const auth = yield* loadAuth(pack, rule)
 */
import { CONFIG_KEYS, CONFIG_PATH_ENV, configKeys } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { defaultSecretEnv } from "@core/events"
import type { SecretRule } from "./Auth.ts"

/**
 * Variables CORE reads that no setting names, each with what for. A test reads the sources
 * for every variable read by name and fails when one is missing here.
 */
const FIXED: ReadonlyMap<string, string> = new Map([
  [CONFIG_PATH_ENV, "the config file CORE reads"],
  ["CORE_DEBUG", "CORE's stack traces"],
  // CORE sets it on every pack process and finds them by it: a pack must not learn another's.
  ["CORE_APP_INSTANCE_TAG", "the tag CORE finds a pack's processes by"],
  [defaultSecretEnv, "the password `record` seals typed passwords as, for any app"],
  // models.apiKeyEnv's default: a config naming another today may leave yesterday's key in the shell.
  ["CORE_MODEL_API_KEY", "the model API key, by default"],
  ["DISPLAY", "the display CORE's recorder opens on"],
  ["WAYLAND_DISPLAY", "the display CORE's recorder opens on"],
  ["PATH", "the environment CORE runs programs with"],
  ["HOME", "the environment CORE runs programs with"],
  ["LANG", "the environment CORE runs programs with"],
  ["TMPDIR", "the environment CORE runs programs with"]
])

/** The PostgreSQL client reads PGHOST, PGUSER, PGPASSWORD, PGPASSFILE, … for the read models' database. */
const POSTGRES = /^PG[A-Z_]+$/

/**
 * What CORE reads `variable` for, or undefined: every setting's variable (CORE_STORE,
 * NATS_URL, DATABASE_URL, …), every variable a `…Env` setting names (the model key's, the
 * NATS credentials'), and the fixed ones above.
 */
export const coreVariable =
  (config: LoadedConfig) =>
  (variable: string): string | undefined => {
    for (const key of configKeys) {
      if (CONFIG_KEYS[key].env === variable) return `the setting ${key}`
      if (key.endsWith("Env") && config.values[key] === variable) return `the secret ${key} names`
    }
    return FIXED.get(variable) ?? (POSTGRES.test(variable) ? "the PostgreSQL client's settings and password" : undefined)
  }

/** The rule a command's packs are loaded with: the variables `granted` on the command line and the config file's grants, less CORE's own variables. */
export const secretRule = (config: LoadedConfig, granted: ReadonlyArray<string>): SecretRule => ({
  allowed: (pack) => new Set([...granted, ...(config.packs.get(pack)?.allowSecrets ?? [])]),
  coreOwn: coreVariable(config)
})
