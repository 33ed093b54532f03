/** The config keys as command flags, so every command that reads the config accepts the same overrides. */
import { CONFIG_KEYS } from "@core/config"
import type { ConfigKey } from "@core/config"
import type { FlagSpec } from "./Cli.ts"

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
