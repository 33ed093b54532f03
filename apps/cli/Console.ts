/**
 * The console (@core/console) as the commands start it: over the store and the read-model
 * database the config names, for as long as the caller's scope lasts. `bun core ui` serves
 * it alone; `bun core run --ui` beside a run (`withConsoleFlag`).
 *
 * @example
 * const c = yield* openConsole(args, { host: "127.0.0.1", port: 4680 }) // scoped
 * console.log(`console: ${c.open}`)
 */
import { Effect, Layer } from "effect"
import { ConsoleError, startConsole } from "@core/console"
import { openReadModels } from "@core/projections"
import type { Command, ParsedArgs } from "./Cli.ts"
import { openStore } from "@core/run"

export const DEFAULT_CONSOLE_PORT = 4680

export interface ConsoleChoice {
  readonly host: string
  readonly port: number
  /** Another free port when `port` is taken, instead of failing (a run must not fail over its console). */
  readonly anyPortIfTaken?: boolean
  /** Say nothing about the store (the run says it already). */
  readonly quiet?: boolean
}

export const openConsole = (args: ParsedArgs, choice: ConsoleChoice) =>
  Effect.gen(function* () {
    const opened = yield* openStore(args, { quiet: choice.quiet === true })
    const readModels = yield* openReadModels(opened.config.values["database.url"])
    const services = yield* Layer.build(opened.layer)
    const start = (port: number) => Effect.provideContext(startConsole({ readModels, host: choice.host, port }), services)
    return yield* start(choice.port).pipe(
      Effect.catchIf(
        (e) => choice.anyPortIfTaken === true && e instanceof ConsoleError && e.message.includes("is taken"),
        () => start(0)
      )
    )
  })

/** `command` with a `--ui` flag: the console beside it on 127.0.0.1, stopped when the command ends. */
export const withConsoleFlag = <E>(command: Command<E>): Command<E | Effect.Error<ReturnType<typeof openConsole>>> => ({
  ...command,
  flags: {
    ...command.flags,
    ui: { kind: "boolean", description: `serve the console (bun core ui) beside the ${command.name} until it ends; its URL goes to stderr` }
  },
  run: (args) =>
    args.flags.ui !== true
      ? command.run(args)
      : Effect.scoped(
          Effect.gen(function* () {
            const c = yield* openConsole(args, { host: "127.0.0.1", port: DEFAULT_CONSOLE_PORT, anyPortIfTaken: true, quiet: true })
            // With the token: without it every page is a 401.
            console.error(`console: ${c.open} (until the ${command.name} ends; bun core ui serves it afterwards)`)
            return yield* command.run(args)
          })
        )
})
