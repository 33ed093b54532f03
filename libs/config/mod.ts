/** `@core/config`: the merged configuration, its secrets discipline and run identity. */
export { CONFIG_KEYS, ConfigError, ConfigValues, configKeys, loadConfig } from "./Config.ts"
export { androidSettings, ingestLimits, natsOutageLimitMs, queueSettings, setOfMarksFor, storeSettings } from "./Settings.ts"
export type { ConfigKey, LoadOptions, LoadedConfig } from "./Config.ts"
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
