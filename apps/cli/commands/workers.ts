/**
 * `bun core workers [--json]`: the workers alive on the store's NATS server — each one's
 * host, how many episodes it plays at once, the jobs it holds now and how many it has done.
 * A worker is listed while it says it is alive (every few seconds); one that stopped or
 * was cut off drops out within seconds.
 */
import { Effect } from "effect"
import { decodePresence, openQueue, PRESENCE_STREAM } from "@core/workers"
import type { Presence } from "@core/workers"
import type { Command } from "../Cli.ts"
import { CliError } from "../Cli.ts"
import { commonConfigFlags } from "../ConfigFlags.ts"
import { openStore } from "../Store.ts"
import { queueConnection } from "../Workers.ts"
import { textTable } from "../bench/Report.ts"

const livePresences = (nc: Parameters<typeof openQueue>[0]) =>
  Effect.tryPromise({
    try: async () => {
      const { jsm } = await openQueue(nc)
      const info = await jsm.streams.info(PRESENCE_STREAM, { subjects_filter: ">" })
      const out: Array<Presence> = []
      for (const subject of Object.keys(info.state.subjects ?? {}).sort()) {
        const m = await jsm.streams.getMessage(PRESENCE_STREAM, { last_by_subj: subject }).catch(() => null)
        if (m === null) continue
        const p = decodePresence(m.json())
        if (p.ok) out.push(p.value)
      }
      return out
    },
    catch: (e) => new CliError({ message: `cannot read the workers' presence: ${e instanceof Error ? e.message : String(e)}` })
  })

export const workers: Command = {
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
        const live = yield* livePresences(nc)
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
