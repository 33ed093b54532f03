/**
 * `bun core db migrate|status|project`: the read-model database (docs/architecture.md,
 * "Projections and read models") —
 * apply migrations, see where each projection stands against the log, and run the
 * projectors (catch up, or `--follow` the log).
 *
 * @example
 * bun core db migrate
 * bun core db status --json
 * DATABASE_URL=postgres://root@127.0.0.1/core bun core db project --follow
 */
import { Effect } from "effect"
import { loadConfig } from "@core/config"
import { EventStore } from "@core/eventstore"
import { migrate, migrationStatus, openReadModels, projections, readCheckpoints, runProjector } from "@core/projections"
import type { ReadModels } from "@core/projections"
import type { Command, ParsedArgs } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { openStore } from "@core/run"
import { commonConfigFlags, configFlags } from "../ConfigFlags.ts"

const dbFlags = configFlags(["dataDir", "database.url"])
const json = { kind: "boolean", description: "print one JSON object" } as const

const withReadModels = <A, E, R>(args: ParsedArgs, f: (rm: ReadModels) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const config = yield* loadConfig({ flags: args.flags })
    return yield* Effect.scoped(Effect.flatMap(openReadModels(config.values["database.url"]), f))
  })

export const dbMigrate: Command<Failure> = {
  name: "db migrate",
  summary: "apply pending read-model migrations",
  flags: { json, ...dbFlags },
  run: (args) =>
    withReadModels(args, (rm) =>
      Effect.gen(function* () {
        const applied = yield* migrate(rm)
        if (args.flags.json === true) return console.log(JSON.stringify({ database: rm.location, dialect: rm.dialect, applied }))
        console.log(applied.length === 0 ? `${rm.location}: up to date` : `${rm.location}: applied ${applied.join(", ")}`)
      })
    )
}

export const dbStatus: Command<Failure> = {
  name: "db status",
  summary: "migrations applied/pending, and each projection's checkpoint against the log head",
  flags: { json, ...commonConfigFlags, ...dbFlags },
  run: (args) =>
    withReadModels(args, (rm) =>
      Effect.gen(function* () {
        const ms = yield* migrationStatus(rm)
        const migrated = ms.every((m) => m.appliedAt !== null)
        // Before the first migration there is no checkpoint table: every projection is at 0.
        const cps = ms[0]?.appliedAt ? yield* readCheckpoints(rm) : new Map()
        const opened = yield* openStore(args, { quiet: args.flags.json === true })
        const head = yield* Effect.provide(
          Effect.flatMap(EventStore, (s) => s.head()),
          opened.layer
        )
        const rows = projections.map((p) => {
          const position = cps.get(p.name)?.position ?? 0
          return { name: p.name, position, behind: Math.max(0, head - position) }
        })
        if (args.flags.json === true) {
          return console.log(
            JSON.stringify({ database: rm.location, dialect: rm.dialect, migrations: ms, migrated, head, projections: rows }, null, 2)
          )
        }
        console.log(`database: ${rm.location} (${rm.dialect})`)
        console.log(`migrations: ${ms.filter((m) => m.appliedAt).length} applied, ${ms.filter((m) => !m.appliedAt).length} pending`)
        for (const m of ms) console.log(`  ${m.name.padEnd(28)}${m.appliedAt ? `applied ${m.appliedAt}` : "pending"}`)
        console.log(`log head: ${head}`)
        console.log(`  ${"projection".padEnd(18)}${"checkpoint".padStart(12)}${"behind".padStart(10)}`)
        for (const r of rows) console.log(`  ${r.name.padEnd(18)}${String(r.position).padStart(12)}${String(r.behind).padStart(10)}`)
        if (!migrated) console.log("run 'bun core db migrate' (or 'bun core db project', which migrates first)")
      })
    )
}

export const dbProject: Command<Failure> = {
  name: "db project",
  summary: "run the projectors: catch up with the log, or --follow it",
  flags: {
    follow: { kind: "boolean", description: "keep following the log (Ctrl-C stops)" },
    "batch-size": { kind: "number", description: "most events per transaction (default 500)" },
    json,
    ...commonConfigFlags,
    ...dbFlags
  },
  run: (args) =>
    withReadModels(args, (rm) =>
      Effect.gen(function* () {
        const applied = yield* migrate(rm)
        if (applied.length > 0) console.error(`migrated ${rm.location}: ${applied.join(", ")}`)
        const opened = yield* openStore(args, { quiet: args.flags.json === true })
        let reported = 0
        const batchSize = typeof args.flags["batch-size"] === "number" ? Math.max(1, Math.floor(args.flags["batch-size"])) : undefined
        const result = yield* Effect.provide(
          runProjector(rm, {
            live: args.flags.follow === true,
            ...(batchSize ? { batchSize } : {}),
            onProgress: (p) => {
              // One line a second at most: a catch-up over a long log must not flood stderr.
              if (Date.now() - reported >= 1000) {
                reported = Date.now()
                console.error(`projected to log position ${p.position} (${p.events} events)`)
              }
            }
          }),
          opened.layer
        )
        if (args.flags.json === true)
          return console.log(
            JSON.stringify({ database: rm.location, migrated: applied, events: result.events, checkpoint: result.checkpoint })
          )
        console.log(`${rm.location}: projected ${result.events} events; at log position ${result.checkpoint.position}`)
      })
    )
}
