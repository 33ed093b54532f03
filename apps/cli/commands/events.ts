/**
 * `bun core events tail`: the log as JSONL, as events arrive — the quickest way to see
 * what a run is doing, and to pipe it elsewhere (`| jq`).
 */
import { Effect, Stream } from "effect"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { UsageError } from "../Cli.ts"
import { EventStore } from "@core/eventstore"
import { openStore } from "@core/run"
import { commonConfigFlags } from "../ConfigFlags.ts"

export const eventsTail: Command<Failure> = {
  name: "events tail",
  summary: "print events as JSONL as they arrive",
  flags: {
    from: { kind: "number", description: "start at this log position (default 1: the whole log)" },
    type: { kind: "string", description: "only events of these types (comma-separated)" },
    filter: { kind: "string", description: "only these streams, e.g. 'run.<runId>.>' or 'ws.task.*'" },
    "no-follow": { kind: "boolean", description: "stop at the end of the log instead of waiting for more" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      const from = args.flags.from as number | undefined
      if (from !== undefined && (!Number.isInteger(from) || from < 1)) {
        return yield* new UsageError({ message: `--from must be a log position ≥ 1, got ${from}` })
      }
      const filter = args.flags.filter as string | undefined
      if (filter !== undefined && !/^[A-Za-z0-9_*>-]+(\.[A-Za-z0-9_*>-]+)*$/.test(filter)) {
        return yield* new UsageError({ message: `--filter '${filter}' is not a stream pattern like 'run.<runId>.>'` })
      }
      const types = typeof args.flags.type === "string" ? new Set(args.flags.type.split(",").map((t) => t.trim())) : null
      const opened = yield* openStore(args)
      const program = Effect.gen(function* () {
        const store = yield* EventStore
        yield* store.readAll({ from: from ?? 1, filter, live: args.flags["no-follow"] !== true }).pipe(
          Stream.filter((r) => types === null || types.has(r.event.type)),
          Stream.runForEach((r) => Effect.sync(() => console.log(JSON.stringify({ position: r.position, index: r.index, ...r.event }))))
        )
      })
      yield* Effect.provide(program, opened.layer)
    })
}
