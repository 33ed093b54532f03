/**
 * `bun core sites serve [--port N]`: the bundled sites on 127.0.0.1 until Ctrl-C, for trying
 * them in a browser or pointing a web environment at them. A browser cannot start episodes
 * (that takes the episode token), so one is started per site here and its enter URL printed;
 * those episodes never expire, the ones a harness starts do when idle.
 */
import { Effect } from "effect"
import { EPISODE_TOKEN_HEADER, ListenFailed, sites, startSites } from "@core/sites"
import { UsageError } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import type { Command } from "../Cli.ts"

export const sitesServe: Command<Failure> = {
  name: "sites serve",
  summary: "serve the bundled web apps (shop, …) on 127.0.0.1",
  flags: {
    port: { kind: "number", description: "port to listen on (default 0: a free port)" },
    json: { kind: "boolean", description: "print one JSON object (origin, sites, enter URLs, episode and state tokens) instead of text" }
  },
  run: (args) =>
    Effect.gen(function* () {
      const port = (args.flags.port as number | undefined) ?? 0
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        return yield* new UsageError({ message: `--port must be an integer in 0..65535, got ${port}` })
      const server = yield* Effect.try({
        try: () => startSites({ port }),
        catch: (e) => new ListenFailed({ address: `127.0.0.1:${port}`, reason: e instanceof Error ? e.message : String(e) })
      })
      const names = sites.map((s) => s.name)
      const enter = Object.fromEntries(
        names.map((n) => [n, `${server.origin}/__core/enter/${server.episodes.create(n, 1, { pinned: true }).tenant}`])
      )
      if (args.flags.json === true) {
        console.log(
          JSON.stringify({
            origin: server.origin,
            sites: Object.fromEntries(names.map((n) => [n, server.siteUrl(n)])),
            enter,
            episodeToken: server.episodeToken,
            stateToken: server.stateToken
          })
        )
      } else {
        console.log(`sites on ${server.origin}: ${names.map((n) => server.siteUrl(n)).join(", ")}`)
        for (const n of names) console.log(`browse ${n} (seed 1): ${enter[n]}`)
        console.log(
          `more episodes: curl -s -X POST ${server.origin}/__core/episodes -H 'content-type: application/json' -H '${EPISODE_TOKEN_HEADER}: ${server.episodeToken}' -d '{"site":"shop","seed":2}'  (then open its startUrl)`
        )
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
