/** `@core/config`: the merged configuration, its secrets discipline and run identity. */
export {
  CONFIG_KEYS,
  ConfigError,
  ConfigValues,
  androidSettings,
  configKeys,
  ingestLimits,
  loadConfig,
  natsOutageLimitMs,
  setOfMarksFor,
  storeSettings
} from "./Config.ts"
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
