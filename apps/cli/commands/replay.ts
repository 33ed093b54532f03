/**
 * `bun core replay <runId>`: re-runs a run's deciders with recorded model answers and
 * observations and compares what they re-derive with the log (docs/architecture.md,
 * "Replay"). Needs
 * no Chromium and no model server. Exit 1 on any divergence, after printing the first
 * with a field-level diff.
 *
 * @example
 * bun core replay demo-m3x1-0a1b2c --json
 * // {"events":7,"projection_digest_match":null,"decision_events":6,"divergences":[]}
 */
import { Effect, Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { EventStore } from "@core/eventstore"
import { formatDiff, replayRun } from "@core/engine"
import { labelSandbox, pipelineDeciders, whatIf } from "@core/pipeline"
import { readFileSync } from "node:fs"
import type { DeciderRegistry, Divergence, ReplayReport } from "@core/engine"
import type { Command, ParsedArgs } from "../Cli.ts"
import { CliError, UsageError } from "../Cli.ts"
import { FlagFileUnreadable } from "../Failures.ts"
import type { Failure } from "../Failures.ts"
import { openStore } from "@core/run"
import type { OpenedStore } from "@core/run"
import { compareWithRebuild, migrationStatus, openReadModels } from "@core/projections"
import { commonConfigFlags, configFlags } from "../ConfigFlags.ts"

/** Projection replay (level 1): true when the rebuilt read models have the logged digest. */
export type ProjectionCheck = (runId: string, opened: OpenedStore) => Effect.Effect<boolean, Failure, EventStore | BlobStore>

export interface ReplayCommandOptions {
  readonly registry?: DeciderRegistry
  readonly projectionCheck?: ProjectionCheck
}

const describe = (d: Divergence): Array<string> => [
  `first divergence: ${d.kind} ${d.type} ${d.id.slice(0, 16)}… in ${d.stream}${d.decider ? ` (decider ${d.decider})` : ""}`,
  `  ${d.reason}`,
  ...(d.blob ? [`  blob ${d.blob}${d.inputEvent ? ` of event ${d.inputEvent}` : ""}`] : []),
  ...(d.diff.length > 0 ? ["  logged → re-derived:", ...formatDiff(d.diff).map((l) => `  ${l}`)] : [])
]

const summaryLines = (r: ReplayReport, projections: boolean | null): Array<string> => {
  const rows: Array<[string, string]> = [
    ["run", r.runId],
    ["events read", String(r.events)],
    ["decision events", `${r.decisionEvents} logged, ${r.rederived} re-derived`],
    ["divergences", String(r.divergences.length)],
    ["projections", projections === null ? "not checked (--projections)" : projections ? "digest matches" : "digest DIFFERS"]
  ]
  const w = Math.max(...rows.map((row) => row[0].length))
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`)
}

export const makeReplayCommand = (options: ReplayCommandOptions = {}): Command<Failure> => ({
  name: "replay",
  summary: "re-run a run's deciders on its recorded inputs and report the first divergence",
  positionals: ["runId"],
  flags: {
    round: { kind: "number", description: "compare only the decision events of this round" },
    "with-lf": {
      kind: "string",
      description: "what-if: <lf-id>=<file> re-scores the run's trajectories with that LF's code replaced and lists the verdicts that flip"
    },
    projections: { kind: "boolean", description: "also rebuild the read models and compare their digest" },
    json: { kind: "boolean", description: "print { events, projection_digest_match, decision_events, divergences }" },
    ...commonConfigFlags,
    ...configFlags(["database.url"])
  },
  run: (args) =>
    Effect.gen(function* () {
      if (args.positionals.length !== 1) {
        return yield* new UsageError({ message: `replay takes one run id, got ${args.positionals.length}; see 'bun core replay --help'` })
      }
      const runId = args.positionals[0]!
      const round = args.flags.round as number | undefined
      if (round !== undefined && (!Number.isInteger(round) || round < 0)) {
        return yield* new UsageError({ message: `--round must be a round number ≥ 0, got ${round}` })
      }
      const withLf = args.flags["with-lf"] as string | undefined
      if (withLf !== undefined) return yield* whatIfCommand(runId, withLf, args)
      const opened = yield* openStore(args)
      const report = yield* Effect.provide(
        replayRun({ runId, registry: options.registry ?? pipelineDeciders, ...(round === undefined ? {} : { round }) }),
        Layer.mergeAll(opened.layer, labelSandbox())
      )
      let projections: boolean | null = null
      if (args.flags.projections === true) {
        if (options.projectionCheck) projections = yield* Effect.provide(options.projectionCheck(runId, opened), opened.layer)
      }
      if (args.flags.json === true) {
        console.log(
          JSON.stringify({
            events: report.events,
            projection_digest_match: projections,
            decision_events: report.decisionEvents,
            divergences: report.divergences
          })
        )
      } else {
        for (const line of summaryLines(report, projections)) console.log(line)
        const first = report.divergences[0]
        if (first) {
          console.log("")
          for (const line of describe(first)) console.log(line)
          if (report.divergences.length > 1) console.log(`(and ${report.divergences.length - 1} more; --json lists them all)`)
        }
      }
      const first = report.divergences[0]
      if (first) {
        const n = report.divergences.length
        return yield* new CliError({
          message: `run ${runId} diverged: ${n} divergence${n === 1 ? "" : "s"}, the first at ${first.type} ${first.id.slice(0, 12)} (${first.kind})`
        })
      }
      if (projections === false) return yield* new CliError({ message: `run ${runId}: the rebuilt read models' digest differs` })
    })
})

/** `replay <run> --with-lf <id>=<file>`: the verdicts a changed label function flips. */
const whatIfCommand = (runId: string, spec: string, args: ParsedArgs) =>
  Effect.gen(function* () {
    const m = spec.match(/^([0-9a-fA-F]{6,64})=(.+)$/)
    if (m === null)
      return yield* new UsageError({
        message: `--with-lf takes <lf-id>=<file> (an id or a prefix of at least 6 hex digits), got ${JSON.stringify(spec)}`
      })
    const [, lfId, file] = m as unknown as [string, string, string]
    const code = yield* Effect.try({
      try: () => readFileSync(file, "utf8"),
      catch: (e) =>
        new FlagFileUnreadable({ flag: "with-lf", file, reason: e instanceof Error ? (e.message.split("\n")[0] ?? "") : String(e) })
    })
    if (!/function\s+labelFunction\s*\(/.test(code))
      return yield* new CliError({ message: `--with-lf: ${file} defines no function labelFunction(t)` })
    const opened = yield* openStore(args, { quiet: args.flags.json === true })
    const report = yield* Effect.provide(whatIf({ runId, replace: new Map([[lfId, code]]) }), Layer.mergeAll(opened.layer, labelSandbox()))
    if (args.flags.json === true) {
      console.log(JSON.stringify({ run_id: runId, replaced: report.replaced, trajectories: report.trajectories, flips: report.flips }))
      return
    }
    console.log(
      `what-if: run ${runId}, label function ${report.replaced[0]!.slice(0, 12)} replaced by ${file}: ${report.trajectories} trajectories re-scored, ${report.flips.length} verdict${report.flips.length === 1 ? "" : "s"} flip`
    )
    for (const f of report.flips) console.log(`  ${f.trajectoryId.padEnd(40)} ${f.logged} → ${f.rederived}`)
  })

/**
 * Level 1 of replay: the live read models (as far as their projectors have read) against a
 * rebuild from the log into a fresh database, both digested canonically. Only reads the
 * live database.
 */
export const projectionCheck: ProjectionCheck = (runId, opened) =>
  Effect.scoped(
    Effect.gen(function* () {
      const live = yield* openReadModels(opened.config.values["database.url"])
      const pending = (yield* migrationStatus(live)).filter((m) => m.appliedAt === null)
      if (pending.length > 0) {
        return yield* new CliError({ message: `no live read models at ${live.location} to compare with: run 'bun core db project' first` })
      }
      const report = yield* compareWithRebuild(live, { runId })
      for (const t of report.differingTables) {
        console.error(`replay: read model ${t.table} differs: ${t.liveRows} live rows, ${t.rebuiltRows} rebuilt`)
      }
      if (!report.settled) console.error("replay: projectors stand at different log positions; compared up to the least advanced")
      return report.equal
    })
  )

export const replay: Command<Failure> = makeReplayCommand({ projectionCheck })
