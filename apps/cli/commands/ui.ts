/**
 * `bun core ui [--port N] [--host H] [--open]`: the console, a read-only web view of the
 * runs in the log — strategy graphs, trajectory audits, datasets, what-ifs — until Ctrl-C.
 * It listens on 127.0.0.1 by default and asks for the per-launch token on every request, on
 * loopback too: every user of the machine reaches loopback, and whoever reaches the console
 * sees everything the runs saw and typed. The printed URL carries the token once; a cookie
 * carries it after that, so no page holds it.
 *
 * @example
 * bun core ui --open
 * bun core ui --port 0 --data-dir /tmp/core
 */
import { Effect } from "effect"
import { DEFAULT_CONSOLE_PORT, isLoopback } from "@core/console"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { UsageError, untilSignal } from "../Cli.ts"
import { openConsole } from "../Console.ts"
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

export const ui: Command<Failure> = {
  name: "ui",
  summary:
    "the console: a read-only web view of runs, strategy graphs, trajectory audits, datasets and what-ifs; only the URL it prints (it carries the token) opens it",
  flags: {
    port: { kind: "number", description: `port to listen on (default ${DEFAULT_CONSOLE_PORT}; 0: any free port)` },
    host: { kind: "string", description: "address to listen on (default 127.0.0.1; any other is reachable from other machines)" },
    open: { kind: "boolean", description: "open the printed URL, token included, in the browser (xdg-open)" },
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
        if (!isLoopback(host))
          console.error(
            `warning: ${host} is not a loopback address: other machines reach it, and the token crosses the network in clear text (http)`
          )
        // The URL is the key: every request without its token, or the cookie it sets, gets a 401.
        console.log(`console: ${c.open}`)
        console.error("open the URL above, which carries the token; without it every page is a 401. Ctrl-C stops")
        if (args.flags.open === true) openInBrowser(c.open)
        yield* Effect.promise(untilSignal)
      })
    )
}
