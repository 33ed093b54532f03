/**
 * The `App` of a pack folder: the pack loaded and checked, its instances run by the pack's
 * own commands in a pool. The layer is a scoped resource: when its scope closes — the
 * command ended, failed or was interrupted by SIGINT/SIGTERM — every instance is stopped,
 * those still starting included.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const app = yield* App
 *   const lease = yield* app.acquire()
 *   yield* lease.release()
 * }).pipe(Effect.provide(CommandApp.layer("packs/myapp")))
 */
import { Effect, Layer } from "effect"
import { App } from "./App.ts"
import { evaluateEpisode, InstanceError } from "./Instance.ts"
import type { PackError } from "./Format.ts"
import { loadPack } from "./Pack.ts"
import { makePool } from "./Pool.ts"
import type { Lease, PoolOptions } from "./Pool.ts"

/** `pool`: a command's own bounds on the pool (one instance, none prepared ahead), instead of the pack's. */
export const layer = (packDir: string, pool: PoolOptions = {}): Layer.Layer<App, PackError> =>
  Layer.effect(
    App,
    Effect.gen(function* () {
      const pack = yield* loadPack(packDir)
      const instances = yield* makePool(pack, pool)
      const { name } = pack.config
      const evaluate = (lease: Lease, taskId: string, answer: string) =>
        Effect.suspend(() => {
          const instance = instances.instanceOf(lease)
          return instance === undefined
            ? Effect.fail(new InstanceError({ app: name, reason: `app ${name}: evaluate was given a lease of another app` }))
            : evaluateEpisode(instance, taskId, answer)
        })
      return App.of({
        name,
        platform: pack.config.platform,
        tasks: pack.tasks,
        acquire: instances.acquire,
        ...(pack.config.evaluate === null ? {} : { evaluate })
      })
    })
  )
