/**
 * The console (@core/console) over the store and the read-model database the command's
 * config names: `bun core ui` serves it alone; `bun core run --ui` beside a run (`withConsoleFlag`).
 *
 * @example
 * const c = yield* openConsole(args, { host: "127.0.0.1", port: 4680 }) // scoped
 * console.log(`console: ${c.open}`)
 */
import { Effect } from "effect"
import { consoleOver, DEFAULT_CONSOLE_PORT } from "@core/console"
import type { ConsoleChoice } from "@core/console"
import type { Command, ParsedArgs } from "./Cli.ts"
import { openStore } from "@core/run"

/** `quiet`: say nothing about the store (the run says it already). */
export const openConsole = (args: ParsedArgs, choice: ConsoleChoice & { readonly quiet?: boolean }) =>
  Effect.gen(function* () {
    const opened = yield* openStore(args, { quiet: choice.quiet === true })
    return yield* consoleOver({ databaseUrl: opened.config.values["database.url"], layer: opened.layer }, choice)
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
