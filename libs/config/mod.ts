/** `@core/config`: the merged configuration, its secrets discipline (down to keeping the process that holds them unreadable to other processes of its user) and run identity. */
export { CONFIG_KEYS, CONFIG_PATH_ENV, ConfigError, ConfigValues, configKeys, loadConfig } from "./Config.ts"
export { androidSettings, ingestLimits, natsOutageLimitMs, queueSettings, setOfMarksFor, storeSettings } from "./Settings.ts"
export type { ConfigKey, LoadOptions, LoadedConfig } from "./Config.ts"
export type { PackSettings } from "./Packs.ts"
export { codeVersion, programVersion, runIdentity, runProgram, toolVersions } from "./Identity.ts"
export {
  configuredSecrets,
  forRecording,
  natsCredentials,
  redactUrl,
  scrubSecrets,
  secretEnvNames,
  secretValue,
  secretsIn
} from "./Recording.ts"
export { markNonDumpable } from "./NonDumpable.ts"
