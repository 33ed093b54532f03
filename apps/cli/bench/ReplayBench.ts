/**
 * `bench replay`: how fast every projection is rebuilt from JetStream into a fresh SQLite
 * file, against a raw ordered consumer reading the same messages in the same run
 * (a ratio to the raw tool, measured on the same machine under the same load).
 *
 * The log is the synthetic mix of the catalog's events (@core/projections' generator),
 * streamed into a stream of its own (`CORE_BENCH_<id>`, subjects `bench<id>.>`) and
 * deleted afterwards. Writing it is setup, not measured. Nothing holds the whole log: the
 * generator is lazy, appends go in windows, the rebuild streams from the consumer, and the
 * rows live in the SQLite file — so peak RSS stays flat as N grows.
 */
import { connect } from "@nats-io/transport-node"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EventStore, JetStreamStore, natsErrorLine, probeNats } from "@core/eventstore"
import type { EventStoreShape } from "@core/eventstore"
import { generateCommits, migrate, openReadModels, runProjector, takeEvents } from "@core/projections"
import type { Commit } from "@core/projections"
import { peakRssMb, perSecond, ratio, timed } from "./Measure.ts"
import type { Tally } from "./Measure.ts"
import { readOrdered } from "./RawJetStream.ts"
import { BenchError } from "./StoreBench.ts"

export const REPLAY_TARGETS = { rebuild_per_s: 50_000, ratio: 0.3 } as const
export type ReplayTargetKey = keyof typeof REPLAY_TARGETS

export interface ReplayBenchResult {
  readonly events: number
  /** JetStream messages holding them (a trajectory's recording and verdict share one commit). */
  readonly commits: number
  /** Events per second through readAll, every projection and SQLite, checkpoints included. */
  readonly rebuild_per_s: number
  /** The same events per second through a raw ordered consumer, not decoded. */
  readonly raw_read_per_s: number
  readonly ratio: number
  readonly peak_rss_mb: number
  readonly nats_server_version: string | null
  readonly bun_version: string
  readonly targets_met: boolean
}

export interface ReplayBenchOptions {
  readonly events: number
  readonly natsUrl: string
  /** Events per projector transaction; default 5000. */
  readonly batchSize?: number
  readonly progress?: (line: string) => void
}

/** Streams appended at once while writing the log. */
const WRITERS = 128
/** Commits taken from the generator at a time: bounds what the writer holds. */
const WINDOW = 16384

const raw = <A>(what: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (e) => new BenchError({ message: `raw ${what}: ${natsErrorLine(e)}` }) })

/** `ws` for workspace streams, the run id for a run's: each scope's commits are contiguous in the generated log. */
const scopeOf = (stream: string): string => (stream.startsWith("run.") ? stream.slice(4, stream.indexOf(".", 4)) : "ws")

/** Calls `line(done)` once each time `done` passes another tenth of `total` (not at the end: the next phase's line says that). */
const rss = () => `rss ${Math.round(process.memoryUsage().rss / 1048576)} MB`

const tenths = (total: number, line: (done: number) => void) => {
  let next = 1
  return (done: number) => {
    if (done < (total * next) / 10) return
    while (done >= (total * next) / 10) next++
    if (done < total) line(done)
  }
}

/**
 * Appends the first `n` events of the generated log, each stream's commits in order, many
 * streams at once. Revisions are forgotten once a scope (run) is past, since the
 * generator never returns to it, so memory does not grow with the log.
 */
const writeLog = (store: EventStoreShape, id: string, n: number, log: (line: string) => void) =>
  Effect.gen(function* () {
    const commits = takeEvents(generateCommits({ prefix: `b${id}`, runs: Infinity }), n)[Symbol.iterator]()
    let revisions = new Map<string, number>()
    const written = { events: 0, commits: 0 }
    const report = tenths(n, (done) => log(`bench replay:       wrote ${done.toLocaleString("en-US")} events (${rss()})`))
    while (true) {
      const chains = new Map<string, Array<Commit>>()
      for (let taken = 0; taken < WINDOW; taken++) {
        const next = commits.next()
        if (next.done) break
        const chain = chains.get(next.value.stream)
        if (chain) chain.push(next.value)
        else chains.set(next.value.stream, [next.value])
        written.commits++
        written.events += next.value.events.length
      }
      if (chains.size === 0) return written
      yield* Effect.forEach(
        chains,
        ([stream, chain]) =>
          Effect.gen(function* () {
            let revision = revisions.get(stream) ?? 0
            for (const c of chain) revision = (yield* store.append(stream, c.events, { expectedRevision: revision })).revision
            revisions.set(stream, revision)
          }),
        { concurrency: WRITERS, discard: true }
      )
      const live = new Set([...chains.keys()].map(scopeOf))
      revisions = new Map([...revisions].filter(([s]) => live.has(scopeOf(s))))
      report(written.events)
    }
  })

export const runReplayBench = (options: ReplayBenchOptions) =>
  Effect.gen(function* () {
    const n = options.events
    const log = options.progress ?? (() => undefined)
    const probe = yield* probeNats(options.natsUrl)
    if (!probe.reachable || !probe.jetstream) {
      return yield* new BenchError({
        message: `bench replay needs NATS with JetStream at ${options.natsUrl}: ${probe.error ?? "JetStream is not enabled"}`
      })
    }
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
    const streamName = `CORE_BENCH_${id}`
    const prefix = `bench${id}`
    const nc = yield* Effect.acquireRelease(
      raw("connect", () => connect({ servers: options.natsUrl, name: "core-bench-raw", timeout: 3000, noAsyncTraces: true })),
      (c) => Effect.promise(() => c.close().catch(() => undefined))
    )
    const jsm = yield* raw("connect", () => jetstreamManager(nc))
    const js = jetstream(nc)
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-bench-replay-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )

    const measure = Effect.gen(function* () {
      log(`bench replay: nats-server ${probe.version ?? "?"} at ${options.natsUrl}`)
      log(`bench replay: [1/4] write ${n} generated events, ${WRITERS} streams at once (setup, not timed; stream ${streamName})`)
      const written = yield* writeLog(yield* EventStore, id, n, log)

      const rawRead = Effect.gen(function* () {
        const [r, ms] = yield* timed(raw("read", () => readOrdered(js, streamName, `${prefix}.>`)))
        if (r.count !== written.commits)
          return yield* new BenchError({ message: `raw consumer read ${r.count} messages, expected ${written.commits}` })
        return { ops: written.events, ms } satisfies Tally
      })
      log(`bench replay: [2/4] raw ordered consumer over ${written.commits} messages (${written.events} events), not decoded (${rss()})`)
      const before = yield* rawRead

      const db = join(dir, "projections.db")
      log(`bench replay: [3/4] rebuild every projection into a fresh SQLite file (${db})`)
      const rm = yield* openReadModels(`sqlite:${db}`)
      yield* migrate(rm)
      const report = tenths(written.events, (done) =>
        log(`bench replay:       projected ${done.toLocaleString("en-US")} events (${rss()})`)
      )
      const [run, ms] = yield* timed(runProjector(rm, { batchSize: options.batchSize ?? 5000, onProgress: (p) => report(p.events) }))
      if (run.events !== written.events)
        return yield* new BenchError({ message: `rebuild read ${run.events} events, expected ${written.events}` })

      // Raw reads on both sides of the rebuild, so drift during the run weighs on both alike.
      log(`bench replay: [4/4] raw ordered consumer again (${rss()})`)
      const after = yield* rawRead
      return {
        written,
        rebuild: { ops: run.events, ms } satisfies Tally,
        raw: { ops: before.ops + after.ops, ms: before.ms + after.ms } satisfies Tally
      }
    })

    const figures = yield* measure.pipe(
      Effect.provide(JetStreamStore.layer({ url: options.natsUrl, streamName, prefix })),
      Effect.ensuring(Effect.promise(() => jsm.streams.delete(streamName).catch(() => false)))
    )
    const rebuild_per_s = perSecond(figures.rebuild)
    const raw_read_per_s = perSecond(figures.raw)
    const r = ratio(rebuild_per_s, raw_read_per_s) ?? 0
    return {
      events: figures.written.events,
      commits: figures.written.commits,
      rebuild_per_s,
      raw_read_per_s,
      ratio: r,
      peak_rss_mb: peakRssMb(),
      nats_server_version: probe.version,
      bun_version: Bun.version,
      targets_met: rebuild_per_s >= REPLAY_TARGETS.rebuild_per_s && r >= REPLAY_TARGETS.ratio
    } satisfies ReplayBenchResult
  }).pipe(Effect.scoped)
