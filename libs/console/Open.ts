/**
 * The console over a store the caller has chosen, with its own read-model database, for as
 * long as the caller's scope lasts: `bun core ui` serves it alone, `bun core run --ui`
 * beside a run, where a taken port must not fail the run, so it can fall back to any free one.
 *
 * @example
 * const c = yield* consoleOver({ databaseUrl, layer: opened.layer }, { host: "127.0.0.1", port: DEFAULT_CONSOLE_PORT }) // scoped
 * console.log(`console: ${c.open}`)
 */
import { Effect, Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { EventStore } from "@core/eventstore"
import { openReadModels } from "@core/projections"
import { ConsoleError, startConsole } from "./Server.ts"

export const DEFAULT_CONSOLE_PORT = 4680

export interface ConsoleChoice {
  readonly host: string
  readonly port: number
  /** Another free port when `port` is taken, instead of failing (a run must not fail over its console). */
  readonly anyPortIfTaken?: boolean
}

/** The read models at `databaseUrl`, the store's services from `layer`, and the console started over them. */
export const consoleOver = <E>(
  store: { readonly databaseUrl: string; readonly layer: Layer.Layer<EventStore | BlobStore, E> },
  choice: ConsoleChoice
) =>
  Effect.gen(function* () {
    const readModels = yield* openReadModels(store.databaseUrl)
    const services = yield* Layer.build(store.layer)
    const start = (port: number) => Effect.provideContext(startConsole({ readModels, host: choice.host, port }), services)
    return yield* start(choice.port).pipe(
      Effect.catchIf(
        (e) => choice.anyPortIfTaken === true && e instanceof ConsoleError && e.message.includes("is taken"),
        () => start(0)
      )
    )
  })
