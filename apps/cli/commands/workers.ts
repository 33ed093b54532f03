/**
 * `bun core workers [--json]`: the workers alive on the store's NATS server — each one's
 * host, how many episodes it plays at once, the jobs it holds now and how many it has done.
 * A worker is listed while it says it is alive (every few seconds); one that stopped or
 * was cut off drops out within seconds.
 */
import { Effect } from "effect"
import { livePresences, openQueue, PresenceUnreadable } from "@core/workers"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { messageOf } from "@core/events"
import { commonConfigFlags } from "../ConfigFlags.ts"
import { openStore } from "@core/run"
import { queueConnection } from "@core/run"
import { textTable } from "../bench/Report.ts"

const presences = (nc: Parameters<typeof openQueue>[0]) =>
  Effect.tryPromise({
    try: async () => livePresences(await openQueue(nc)),
    catch: (e) => new PresenceUnreadable({ reason: messageOf(e) })
  })

export const workers: Command<Failure> = {
  name: "workers",
  summary: "list the live rollout workers (bun core worker) and what each holds",
  flags: {
    json: { kind: "boolean", description: "print one JSON object ({ workers: [...] }) instead of the table" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.scoped(
      Effect.gen(function* () {
        const opened = yield* openStore(args, { quiet: args.flags.json === true })
        const nc = yield* queueConnection(opened, "core-workers-list")
        const live = yield* presences(nc)
        if (args.flags.json === true) return console.log(JSON.stringify({ workers: live }))
        if (live.length === 0) return console.log("no live workers (start one: bun core worker)")
        console.log(
          textTable(
            [
              ["worker", "host", "at once", "done", "since", "holding"],
              ...live.map((w) => [w.name, w.host, String(w.concurrency), String(w.done), w.since, w.holding.join(", ") || "—"])
            ],
            []
          )
        )
      })
    )
}
