/**
 * `bun core sites serve [--port N]`: the bundled sites on 127.0.0.1 until Ctrl-C, for trying
 * them in a browser or pointing a web environment at them.
 */
import { Effect } from "effect"
import { sites, startSites } from "@core/sites"
import { CliError, UsageError } from "../Cli.ts"
import type { Command } from "../Cli.ts"

export const sitesServe: Command = {
  name: "sites serve",
  summary: "serve the bundled web apps (shop, …) on 127.0.0.1",
  flags: {
    port: { kind: "number", description: "port to listen on (default 0: a free port)" },
    json: { kind: "boolean", description: "print one JSON object (origin, sites, state token) instead of text" }
  },
  run: (args) =>
    Effect.gen(function* () {
      const port = (args.flags.port as number | undefined) ?? 0
      if (!Number.isInteger(port) || port < 0 || port > 65535) return yield* new UsageError({ message: `--port must be an integer in 0..65535, got ${port}` })
      const server = yield* Effect.try({
        try: () => startSites({ port }),
        catch: (e) => new CliError({ message: `cannot listen on 127.0.0.1:${port}: ${e instanceof Error ? e.message : String(e)}` })
      })
      const names = sites.map((s) => s.name)
      if (args.flags.json === true) {
        console.log(JSON.stringify({ origin: server.origin, sites: Object.fromEntries(names.map((n) => [n, server.siteUrl(n)])), stateToken: server.stateToken }))
      } else {
        console.log(`sites on ${server.origin}: ${names.map((n) => server.siteUrl(n)).join(", ")}`)
        console.log(`start an episode in a browser: ${server.origin}/`)
        console.log(`or: curl -s -X POST ${server.origin}/__core/episodes -H 'content-type: application/json' -d '{"site":"shop","seed":1}'  (then open its startUrl)`)
        console.log(`state API token (evaluation code only): ${server.stateToken}`)
        console.log("Ctrl-C stops")
      }
      yield* Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            process.once("SIGINT", resolve)
            process.once("SIGTERM", resolve)
          })
      )
      yield* Effect.promise(() => server.stop())
    })
}
