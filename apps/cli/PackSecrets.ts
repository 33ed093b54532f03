/**
 * `--allow-secret NAME`: the command line's grant of an environment variable to an app pack's
 * log-in. Which variables a pack may then type — these, the config file's, never CORE's own —
 * is @core/apps' `secretRule`.
 *
 * @example
 * const rule = packSecretRule(opened.config, args)
 * const auth = yield* loadAuth(pack, rule)
 */
import { secretRule } from "@core/apps"
import type { SecretRule } from "@core/apps"
import type { LoadedConfig } from "@core/config"
import type { FlagSpec, ParsedArgs } from "./Cli.ts"

export const ALLOW_SECRET_FLAG = "allow-secret"

/** `--allow-secret NAME`, for every command that loads a pack's log-in. */
export const allowSecretFlags: Record<string, FlagSpec> = {
  [ALLOW_SECRET_FLAG]: {
    kind: "list",
    description:
      "an environment variable the app pack's log-in (auth) may type; repeat for several (or packs.<name>.allowSecrets in core.config.json)",
    // Never echoed: someone may have given the password itself.
    check: (v) =>
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(v)
        ? undefined
        : "takes the NAME of an environment variable (letters, digits and '_', not starting with a digit), not its value"
  }
}

/** The rule a command's packs are loaded with: its `--allow-secret` grants and the config file's. */
export const packSecretRule = (config: LoadedConfig, args: Pick<ParsedArgs, "lists">): SecretRule =>
  secretRule(config, args.lists?.[ALLOW_SECRET_FLAG] ?? [])
