/**
 * `bun core demo`: the main job — one CORE round on six bundled tasks (two per site) with
 * zero setup: scripted expert demos recorded and ingested on first use, label functions
 * inferred, five rollouts per task by the seeded exploration policy in real Chromium,
 * each verified against its strategy graph, partial-but-solved runs expanding the graphs.
 *
 * `--round-trip` keeps the store check it started as (seconds, no browser): a run whose
 * jobs are queued and completed, a blob stored, everything read back and compared.
 */
import { Effect, Stream } from "effect"
import { BlobStore } from "@core/blobstore"
import { runIdentity } from "@core/config"
import { canonicalJson } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import { defaultRunConfig, modelSources, RUN_DEFAULTS, runConfigCodec } from "@core/pipeline"
import { demoBlob, demoJobs, newRunId, stamp, startRun } from "@core/engine"
import type { Command, ParsedArgs } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { CliError } from "../Cli.ts"
import { loadSuites } from "@core/sites/suites"
import { runOnBundledSites } from "@core/sites/run"
import { Progress } from "../Progress.ts"
import { metricsLines, runMetrics } from "@core/evaluation"
import { openStore } from "@core/run"
import { commonConfigFlags, configFlags, runCount, runFlagSources, runFlags } from "../ConfigFlags.ts"

const NOT_YET = "a store round trip only: bun core demo without --round-trip runs a CORE round"

/** The demo's tasks: two per site, each with at least two path families, short demos. */
export const DEMO_TASKS: ReadonlyArray<string> = [
  "shop-open-category-1",
  "shop-open-product-1",
  "forum-open-board-1",
  "forum-top-post-1",
  "travel-open-city-1",
  "travel-add-traveller-1"
]

export const demo: Command<Failure> = {
  name: "demo",
  summary: "one CORE round on six bundled tasks with zero setup (demos, label functions, rollouts, verification, expansion)",
  flags: {
    json: { kind: "boolean", description: "print one JSON object instead of the table" },
    ...runFlags(["samples"], { samples: "rollouts per task" }),
    "round-trip": { kind: "boolean", description: "only the store round trip (no browser, seconds)" },
    ...commonConfigFlags,
    ...configFlags(["seed"])
  },
  run: (args) => (args.flags["round-trip"] === true ? roundTrip(args) : coreRound(args))
}

const coreRound = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const suites = yield* loadSuites()
    const all = new Map(suites.flatMap((s) => s.tasks).map((t) => [t.id, t]))
    const tasks = DEMO_TASKS.flatMap((id) => (all.has(id) ? [all.get(id)!] : []))
    if (tasks.length !== DEMO_TASKS.length)
      return yield* new CliError({
        message: `the demo's tasks are missing from the bundled suites: ${DEMO_TASKS.filter((id) => !all.has(id)).join(", ")}`
      })
    const samples = yield* runCount(args, "samples")
    const opened = yield* openStore(args)
    const outcome = yield* runOnBundledSites(
      opened.config,
      opened.layer,
      {
        command: "demo",
        tasks,
        rounds: 1,
        samples,
        stepBudget: RUN_DEFAULTS.stepBudget,
        parallel: 2,
        policy: "exploration",
        sources: runFlagSources(args, ["samples"])
      },
      new Progress("demo")
    )
    const metrics = runMetrics(outcome)
    if (args.flags.json === true) console.log(JSON.stringify({ store: opened.choice.kind, ...metrics, seconds: outcome.seconds }))
    else console.log(metricsLines(metrics, outcome.seconds).join("\n"))
  })

const roundTrip = (args: ParsedArgs) =>
  Effect.gen(function* () {
    const started = Date.now()
    const opened = yield* openStore(args)
    console.error(`demo: ${NOT_YET}`)
    const program = Effect.gen(function* () {
      const store = yield* EventStore
      const blobs = yield* BlobStore
      const runId = yield* newRunId("demo")
      const identity = yield* runIdentity(opened.config)
      const config = { value: defaultRunConfig(identity.config), codec: runConfigCodec, sources: modelSources(identity) }
      const startedEvent = yield* startRun("demo", config, identity, runId)
      const at = startedEvent.recordedAt
      console.error(`demo: run ${runId} started`)
      yield* store.append(startedEvent.stream, [startedEvent], { expectedRevision: 0 })

      const blob = demoBlob(runId)
      const blobHash = yield* blobs.put(blob)
      const written: Array<CoreEvent> = [startedEvent]
      // The jobs come from the demo-jobs decider, so `bun core replay` can re-derive them.
      const jobs = yield* demoJobs.decide(null, startedEvent)
      for (const [i, job] of jobs.entries()) {
        const queued = stamp(job, runId, at)
        const completed = stamp((yield* demoJobs.decide(null, queued))[0]!, runId, at)
        const first = yield* store.append(queued.stream, [queued], { expectedRevision: 0 })
        yield* store.append(queued.stream, [completed], { expectedRevision: first.revision })
        written.push(queued, completed)
        console.error(`demo: job ${i + 1}/${jobs.length} queued and completed`)
      }

      const read = yield* Stream.runCollect(store.readAll({ filter: `run.${runId}.>` }))
      const same = read.length === written.length && written.every((e, i) => canonicalJson(read[i]!.event) === canonicalJson(e))
      const blobBack = yield* blobs.get(blobHash)
      const blobSame = Buffer.from(blobBack).equals(Buffer.from(blob))
      if (!same || !blobSame) {
        return yield* new CliError({
          message: `round trip mismatch: events ${same ? "ok" : "differ"}, blob ${blobSame ? "ok" : "differs"}`
        })
      }
      return {
        store: opened.choice.kind,
        location: store.location,
        run_id: runId,
        events_written: written.length,
        events_read: read.length,
        commits: new Set(read.map((r) => r.position)).size,
        blob: blobHash,
        round_trip: "ok",
        seconds: Math.round((Date.now() - started) / 10) / 100,
        note: NOT_YET
      }
    })
    const summary = yield* Effect.provide(program, opened.layer)
    if (args.flags.json === true) {
      console.log(JSON.stringify(summary))
      return
    }
    const rows: Array<[string, string]> = [
      ["store", `${summary.store} (${summary.location})`],
      ["run", summary.run_id],
      ["events written / read", `${summary.events_written} / ${summary.events_read}`],
      ["commits", String(summary.commits)],
      ["blob", `${summary.blob.slice(0, 16)}… round trip ok`],
      ["took", `${summary.seconds} s`]
    ]
    const w = Math.max(...rows.map((r) => r[0].length))
    for (const [k, v] of rows) console.log(`${k.padEnd(w)}  ${v}`)
    console.log(`\n${NOT_YET}.`)
    console.log(`See the events: bun core events tail --no-follow --filter 'run.${summary.run_id}.>'`)
  })
