/**
 * `bun core demo`: the main job. CORE's rounds are built issue by issue; until they exist
 * the demo runs what does — today a store round trip: it starts a run (RunStarted with
 * the merged config, code and tool versions), queues and completes a few jobs, stores a
 * blob, reads everything back from the log and checks it is identical.
 */
import { DateTime, Effect, Random, Stream } from "effect"
import { BlobStore } from "@core/blobstore"
import { runIdentity } from "@core/config"
import { canonicalJson, makeEvent, RunStarted, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import { demoBlob, demoJobs, stamp } from "@core/replay"
import type { Command } from "../Cli.ts"
import { CliError } from "../Cli.ts"
import { openStore } from "../Store.ts"
import { commonConfigFlags } from "./config.ts"

const NOT_YET = "CORE rounds (rollouts, strategy graph, extrapolation) are not built yet: this demo is a store round trip; label functions are (bun core infer, README: Label functions)"

/** A new run id from the Clock and Random services: both are inputs, recorded in RunStarted's envelope. */
const newRunId = Effect.gen(function* () {
  const now = yield* DateTime.now
  const r = yield* Random.nextIntBetween(0, 0xffffff)
  return `demo-${DateTime.toEpochMillis(now).toString(36)}-${r.toString(16).padStart(6, "0")}`
})

export const demo: Command = {
  name: "demo",
  summary: "run what CORE has so far on bundled data with zero setup (today: a store round trip)",
  flags: {
    json: { kind: "boolean", description: "print one JSON object instead of the table" },
    ...commonConfigFlags
  },
  run: (args) =>
    Effect.gen(function* () {
      const started = Date.now()
      const opened = yield* openStore(args)
      console.error(`demo: ${NOT_YET}`)
      const program = Effect.gen(function* () {
        const store = yield* EventStore
        const blobs = yield* BlobStore
        const runId = yield* newRunId
        const at = DateTime.formatIso(yield* DateTime.now)
        const identity = yield* runIdentity(opened.config)
        const runStreamName = runStream(runId, "run", runId)
        const startedEvent = makeEvent(RunStarted, {
          stream: runStreamName, runId, causationId: null, ordinal: 0, recordedAt: at,
          data: { ...identity, command: "demo" }
        })
        console.error(`demo: run ${runId} started`)
        yield* store.append(runStreamName, [startedEvent], { expectedRevision: 0 })

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
        const same = read.length === written.length &&
          written.every((e, i) => canonicalJson(read[i]!.event) === canonicalJson(e))
        const blobBack = yield* blobs.get(blobHash)
        const blobSame = Buffer.from(blobBack).equals(Buffer.from(blob))
        if (!same || !blobSame) {
          return yield* new CliError({ message: `round trip mismatch: events ${same ? "ok" : "differ"}, blob ${blobSame ? "ok" : "differs"}` })
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
}
