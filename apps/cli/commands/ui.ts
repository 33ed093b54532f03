/**
 * `bun core ui [--port N] [--host H] [--open]`: the console, a read-only web view of the
 * runs in the log — strategy graphs, trajectory audits, datasets, what-ifs — until Ctrl-C.
 * It listens on 127.0.0.1 by default; any other address asks for the printed token on every
 * page, since whoever reaches it sees everything the runs saw and typed.
 *
 * @example
 * bun core ui --open
 * bun core ui --port 0 --data-dir /tmp/core
 */
import { Effect } from "effect"
import { isLoopback } from "@core/console"
import type { Command } from "../Cli.ts"
import { UsageError, untilSignal } from "../Cli.ts"
import { DEFAULT_CONSOLE_PORT, openConsole } from "../Console.ts"
import { commonConfigFlags, configFlags } from "../ConfigFlags.ts"

/** Best effort: a machine without a desktop has no xdg-open, and the URL is printed anyway. */
const openInBrowser = (url: string): void => {
  try {
    const child = Bun.spawn(["xdg-open", url], { stdout: "ignore", stderr: "ignore" })
    void child.exited.then((code) => {
      if (code !== 0) console.error(`--open: xdg-open exited with ${code}; open ${url} yourself`)
    })
  } catch {
    console.error(`--open: cannot run xdg-open here; open ${url} yourself`)
  }
}

export const ui: Command = {
  name: "ui",
  summary: "the console: a read-only web view of runs, strategy graphs, trajectory audits, datasets and what-ifs",
  flags: {
    port: { kind: "number", description: `port to listen on (default ${DEFAULT_CONSOLE_PORT}; 0: any free port)` },
    host: { kind: "string", description: "address to listen on (default 127.0.0.1; any other asks for the token on every page)" },
    open: { kind: "boolean", description: "open the console in the browser (xdg-open)" },
    ...commonConfigFlags,
    ...configFlags(["dataDir", "database.url"])
  },
  // Ctrl-C is how the console ends: a clean stop, not an interrupted command.
  ownSignals: true,
  run: (args) =>
    Effect.scoped(
      Effect.gen(function* () {
        const port = (args.flags.port as number | undefined) ?? DEFAULT_CONSOLE_PORT
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          return yield* new UsageError({ message: `--port must be a whole number in 0..65535, got ${port}` })
        const host = (args.flags.host as string | undefined) ?? "127.0.0.1"
        if (host.trim() === "" || /[\s/]/.test(host)) return yield* new UsageError({ message: `--host needs an address, got '${host}'` })
        const c = yield* openConsole(args, { host, port })
        const open = isLoopback(host) ? c.url : `${c.url}/?token=${c.token}`
        if (!isLoopback(host))
          console.error(
            `warning: ${host} is not a loopback address: whoever reaches it sees everything the runs logged, so every page asks for the token — open the URL below, which carries it`
          )
        console.log(`console: ${open}`)
        console.log(`what-if token: ${c.token}`)
        console.error("Ctrl-C stops")
        if (args.flags.open === true) openInBrowser(open)
        yield* Effect.promise(untilSignal)
      })
    )
}
