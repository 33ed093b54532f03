/**
 * An app pack's `auth` (docs/app-packs.md): a step file that logs in, played before every
 * episode on the pack and kept out of it (`Prelude` of @core/env-web). It is loaded once per
 * command, before any instance starts, so whatever is wrong with it — the file, a pack that
 * is not web, a secret variable that is not set or not allowed — is one line and no episode
 * begins.
 *
 * A secret the log-in types goes into the pack's app, that is to the pack's server: a pack
 * may name only variables the user allowed it, and never one CORE itself reads.
 *
 * @example
 * const auth = yield* loadAuth(pack, { allowed: () => new Set(["NOTES_PASSWORD"]), coreOwn: () => undefined })
 * yield* env.reset({ taskId, startUrl, origins: lease.origins, ...authOf(auth, lease.instance) })
 */
import { Effect } from "effect"
import { loadStepFile, stepsPrelude } from "@core/demos"
import type { Step } from "@core/demos"
import { readEnvSecret } from "@core/environment"
import type { EnvTask, ReadSecret } from "@core/environment"
import { PACK_FILE, PackError } from "./Format.ts"
import { taskUrl } from "./Instance.ts"
import type { InstanceRef } from "./Instance.ts"
import type { Pack } from "./Pack.ts"

export interface PackAuth {
  /** The step file as messages name it: beside the pack's core-app.json as the caller named it. */
  readonly file: string
  readonly steps: ReadonlyArray<Step>
}

/** Which environment variables a pack's log-in may type. */
export interface SecretRule {
  /** The variables the user allowed the pack of this name (its core-app.json `name`) to type. */
  readonly allowed: (pack: string) => ReadonlySet<string>
  /**
   * What CORE reads the variable for (its model key, a NATS credential, …), or undefined when
   * CORE does not read it. Such a variable is refused even when allowed: a user allowing it
   * for one pack would hand CORE's own credentials to that pack's server.
   */
  readonly coreOwn: (variable: string) => string | undefined
}

/** Why the pack named `pack` may not type `variable`, or undefined when it may. */
export const secretRefusal = (rule: SecretRule, pack: string, variable: string): string | undefined => {
  const own = rule.coreOwn(variable)
  if (own !== undefined) return `${variable} is CORE's own (${own}): a pack may never type it, even when allowed`
  if (rule.allowed(pack).has(variable)) return undefined
  return `the pack ${pack} may not type ${variable} unless you allow it: --allow-secret ${variable}, or "packs": { "${pack}": { "allowSecrets": ["${variable}"] } } in core.config.json`
}

/** Each step that types a variable's value, by index: what a pack's secrets are checked on. */
const typedSecrets = (steps: ReadonlyArray<Step>): ReadonlyArray<readonly [number, string]> =>
  steps.flatMap((step, i) => (step.kind === "type" && step.secretEnv !== undefined ? [[i, step.secretEnv] as const] : []))

/**
 * The pack's log-in, or null when it has none. Every `secretEnv` must be allowed by `rule`
 * and, looked up with `read` (the process environment), set now: a variable refused or unset
 * stops the command before any episode rather than failing every one of them.
 */
export const loadAuth = (pack: Pack, rule: SecretRule, read: ReadSecret = readEnvSecret): Effect.Effect<PackAuth | null, PackError> =>
  Effect.gen(function* () {
    const rel = pack.config.auth
    if (rel === null) return null
    if (pack.config.platform !== "web") {
      return yield* new PackError({
        file: pack.file,
        path: "auth",
        problem: `only for platform 'web' (a log-in is played in the episode's browser); this pack is '${pack.config.platform}'`
      })
    }
    const file = `${pack.file.slice(0, -PACK_FILE.length)}${rel}`
    const loaded = yield* loadStepFile(file, { auth: true }).pipe(
      Effect.mapError((e) => new PackError({ file: e.file, path: e.path, problem: e.problem }))
    )
    for (const [i, variable] of typedSecrets(loaded.steps)) {
      // Refused before asking whether it is set: an unset model key must not read as "set it and try again".
      const refused = secretRefusal(rule, pack.config.name, variable)
      const problem =
        refused ?? (read(variable) === undefined ? `the environment variable ${variable} is not set: the log-in types its value` : null)
      if (problem !== null) return yield* new PackError({ file, path: `steps[${i}].secretEnv`, problem })
    }
    return { file, steps: loaded.steps }
  })

/**
 * Where a pack's episodes find a `type`'s secret by reference: only the variables `rule`
 * lets this pack type, read with `read`; any other is unset for it. A demo or a policy may
 * name any variable, and the value goes to the pack's server.
 */
export const packSecretReader =
  (pack: Pack, rule: SecretRule, read: ReadSecret = readEnvSecret): ReadSecret =>
  (variable) =>
    secretRefusal(rule, pack.config.name, variable) === undefined ? read(variable) : undefined

/** A pack's log-in, and the only reader of secrets its episodes get. */
export interface PackLogin {
  readonly auth: PackAuth | null
  readonly readSecret: ReadSecret
}

/**
 * `loadAuth`, and the same rule for every step file of the pack's tasks: a demo typing a
 * variable the pack may not type is one line before any instance starts, rather than a
 * demo that fails with "not set".
 */
export const loadLogin = (pack: Pack, rule: SecretRule, read: ReadSecret = readEnvSecret): Effect.Effect<PackLogin, PackError> =>
  Effect.gen(function* () {
    const auth = yield* loadAuth(pack, rule, read)
    for (const task of pack.tasks) {
      if (task.steps === null) continue
      const file = `${pack.file.slice(0, -PACK_FILE.length)}${task.steps}`
      // Its other problems are for the command that plays it, if any does; the episodes' reader guards it then too.
      const loaded = yield* loadStepFile(file).pipe(Effect.option)
      if (loaded._tag === "None") continue
      for (const [i, variable] of typedSecrets(loaded.value.steps)) {
        const refused = secretRefusal(rule, pack.config.name, variable)
        if (refused !== undefined) return yield* new PackError({ file, path: `steps[${i}].secretEnv`, problem: refused })
      }
    }
    return { auth, readSecret: packSecretReader(pack, rule, read) }
  })

/** What an episode on `instance` needs to log in first: its prelude, from the instance's base URL. */
export const authOf = (auth: PackAuth | null, instance: InstanceRef): Pick<EnvTask, "prelude"> =>
  auth === null ? {} : { prelude: stepsPrelude(auth.file, auth.steps, taskUrl(instance, "/")) }
