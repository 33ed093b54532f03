/**
 * An app pack's `auth` (docs/app-packs.md): a step file that logs in, played before every
 * episode on the pack and kept out of it (`Prelude` of @core/env-web). It is loaded once per
 * command, before any instance starts, so whatever is wrong with it — the file, a pack that
 * is not web, a secret variable that is not set — is one line and no episode begins.
 *
 * @example
 * const auth = yield* loadAuth(pack)
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

/**
 * The pack's log-in, or null when it has none. `read` is where secrets are looked up (the
 * process environment): each `secretEnv` must be set now, so that an unset variable stops
 * the command before any episode rather than failing every one of them.
 */
export const loadAuth = (pack: Pack, read: ReadSecret = readEnvSecret): Effect.Effect<PackAuth | null, PackError> =>
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
    for (const [i, step] of loaded.steps.entries()) {
      if (step.kind === "type" && step.secretEnv !== undefined && read(step.secretEnv) === undefined) {
        return yield* new PackError({
          file,
          path: `steps[${i}].secretEnv`,
          problem: `the environment variable ${step.secretEnv} is not set: the log-in types its value`
        })
      }
    }
    return { file, steps: loaded.steps }
  })

/** What an episode on `instance` needs to log in first: its prelude, from the instance's base URL. */
export const authOf = (auth: PackAuth | null, instance: InstanceRef): Pick<EnvTask, "prelude"> =>
  auth === null ? {} : { prelude: stepsPrelude(auth.file, auth.steps, taskUrl(instance, "/")) }
