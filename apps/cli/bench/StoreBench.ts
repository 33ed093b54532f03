/**
 * `bench store`: our EventStore against raw JetStream on the same bytes, in one run
 * (a ratio to the raw tool under the same load). Every figure is events per second, one event per commit; each NATS figure
 * has a raw twin measured in interleaved rounds after a warm-up of both sides.
 *
 * All writes go to a stream of their own (`CORE_BENCH_<id>`, subjects `bench<id>.>`),
 * deleted afterwards, so the CORE stream never sees a bench event. Warm-up writes use run
 * ids of their own, so the read phase reads exactly the N events the timed appends wrote.
 */
import { connect } from "@nats-io/transport-node"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import type { JetStreamClient } from "@nats-io/jetstream"
import { Effect, Result, Schema, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { catalog, makeEvent, runStream, sha256, TrajectoryVerified } from "@core/events"
import type { CoreEvent } from "@core/events"
import { commitId, EmbeddedStore, EventStore, JetStreamStore, natsErrorLine, probeNats } from "@core/eventstore"
import type { EventStoreShape } from "@core/eventstore"
import { interleaved, peakRssMb, perSecond, ratio, shares, timed } from "./Measure.ts"
import type { Tally } from "./Measure.ts"
import { publishChains, publishSerial, readOrdered } from "./RawJetStream.ts"
import type { RawChain } from "./RawJetStream.ts"

/** The raw side failed, or the two sides disagree on what they read: the figures would mean nothing. */
export class BenchError extends Schema.TaggedError<BenchError>()("BenchError", { message: Schema.String }) {}

export const TARGETS = { append_ratio: 0.8, append_serial_ratio: 0.8, read_ratio: 0.5 } as const
export type TargetKey = keyof typeof TARGETS

/** The report; NATS figures are null when no NATS with JetStream answered. */
export interface StoreBenchResult {
  readonly events: number
  readonly append_per_s: number | null
  readonly raw_publish_per_s: number | null
  readonly append_ratio: number | null
  readonly append_serial_per_s: number | null
  readonly raw_serial_per_s: number | null
  readonly append_serial_ratio: number | null
  readonly read_per_s: number | null
  readonly raw_read_per_s: number | null
  readonly read_ratio: number | null
  readonly embedded_append_per_s: number
  readonly embedded_read_per_s: number
  readonly nats_server_version: string | null
  readonly bun_version: string
  readonly peak_rss_mb: number
  /** Every ratio was measured and meets its target. */
  readonly targets_met: boolean
}

export interface StoreBenchOptions {
  /** Events per phase and side. */
  readonly events: number
  readonly natsUrl: string
  /** Streams written concurrently, one append in flight on each; default 128. */
  readonly streams?: number
  /** Timed rounds per side, interleaved; default 8. */
  readonly rounds?: number
  readonly progress?: (line: string) => void
}

const encoder = new TextEncoder()

/** A TrajectoryVerified with four pieces of evidence (~850 bytes of JSON): the commonest event of a run. */
export const benchEvent = (runId: string, stream: string, k: number): CoreEvent => {
  const recorded = sha256(`${stream}#${k}`)
  return makeEvent(TrajectoryVerified, {
    stream,
    runId,
    causationId: recorded,
    ordinal: 0,
    recordedAt: "2026-12-02T00:00:00.000Z",
    data: {
      trajectoryId: `traj-${recorded.slice(0, 16)}`,
      taskId: "shop.checkout-0042",
      verdict: k % 3 === 0 ? "partial" : "pass",
      evidence: [0, 1, 2, 3].map((i) => ({ lfId: sha256(`lf-${i}`), satisfiedAt: i * 3 + (k % 3), error: null })),
      path: ["root", "open-cart", "fill-address", "pay"]
    }
  })
}

/** The bytes our append stores for a one-event commit (Commit.ts's format): what the raw side publishes. */
export const commitBytes = (e: CoreEvent): Uint8Array => {
  const enc = catalog.encode(e)
  if (Result.isFailure(enc)) throw enc.failure
  return encoder.encode(`{"commitId":${JSON.stringify(commitId(e.stream, [e]))},"events":[${enc.success.json}]}`)
}

interface Chain {
  readonly stream: string
  readonly events: ReadonlyArray<CoreEvent>
}

/**
 * Hands out the next `size` events of run `run`, spread over at most `width` streams that
 * carry on from one call to the next (each a serial chain within a call).
 */
const planner = (run: string, width: number) => {
  const next: Array<number> = []
  return (size: number): Array<Chain> =>
    shares(size, Math.max(1, Math.min(width, size))).map((count, j) => {
      const stream = runStream(run, "trajectory", `s${j}`)
      const from = next[j] ?? 0
      next[j] = from + count
      return { stream, events: Array.from({ length: count }, (_, i) => benchEvent(run, stream, from + i)) }
    })
}

const rawChains = (prefix: string, chains: ReadonlyArray<Chain>): Array<RawChain> =>
  chains.map((c) => ({ subject: `${prefix}.${c.stream}`, bodies: c.events.map(commitBytes) }))

const count = (chains: ReadonlyArray<{ readonly events?: ReadonlyArray<unknown>; readonly bodies?: ReadonlyArray<unknown> }>) =>
  chains.reduce((n, c) => n + (c.events ?? c.bodies ?? []).length, 0)

const raw = <A>(what: string, f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (e) => new BenchError({ message: `raw ${what}: ${natsErrorLine(e)}` }) })

/** Each chain a serial run of conditional appends, all chains at once. */
const appendChains = (store: EventStoreShape, revisions: Map<string, number>, chains: ReadonlyArray<Chain>) =>
  Effect.forEach(
    chains,
    (c) =>
      Effect.gen(function* () {
        let revision = revisions.get(c.stream) ?? 0
        for (const e of c.events) revision = (yield* store.append(c.stream, [e], { expectedRevision: revision })).revision
        revisions.set(c.stream, revision)
      }),
    { concurrency: "unbounded", discard: true }
  ).pipe(Effect.as(count(chains)))

interface NatsContext {
  readonly store: EventStoreShape
  readonly js: JetStreamClient
  readonly streamName: string
  readonly prefix: string
}

/**
 * Ours and raw appends of n events over `width` streams (1 = serial). The raw side is
 * plain publishes when concurrent, and carries the same expected-sequence header as our
 * append when serial.
 */
const appendPhase = (ctx: NatsContext, tag: string, n: number, width: number, rounds: number) =>
  Effect.gen(function* () {
    const serial = width === 1
    const warm = Math.min(n, Math.max(width, Math.ceil(n / 10)))
    const sizes = shares(n, rounds)
    const ours = planner(`${tag}o`, width)
    const theirs = planner(`${tag}r`, width)
    const revisions = new Map<string, number>()
    const sequences = new Map<string, number>()
    const rawRound = (chains: ReadonlyArray<RawChain>) =>
      serial
        ? raw("serial publish", async () => {
            for (const c of chains) sequences.set(c.subject, await publishSerial(ctx.js, c, sequences.get(c.subject) ?? 0))
            return count(chains)
          })
        : raw("publish", () => publishChains(ctx.js, chains))
    yield* appendChains(ctx.store, revisions, planner(`${tag}wo`, width)(warm))
    yield* rawRound(rawChains(ctx.prefix, planner(`${tag}wr`, width)(warm)))
    let round: { ours: Array<Chain>; raw: Array<RawChain> } = { ours: [], raw: [] }
    return yield* interleaved(
      rounds,
      () => appendChains(ctx.store, revisions, round.ours),
      () => rawRound(round.raw),
      (r) => {
        round = { ours: ours(sizes[r]!), raw: rawChains(ctx.prefix, theirs(sizes[r]!)) }
      }
    )
  })

/** readAll (decoding every event through the catalog) against a raw ordered consumer on the same subjects. */
const readPhase = (ctx: NatsContext, run: string, expected: number) =>
  Effect.gen(function* () {
    const check = (side: string) => (n: number) =>
      n === expected ? Effect.succeed(n) : Effect.fail(new BenchError({ message: `${side} read ${n} events, expected ${expected}` }))
    const ours = Stream.runCount(ctx.store.readAll({ filter: `run.${run}.>` })).pipe(Effect.flatMap(check("readAll")))
    const theirs = raw("read", () => readOrdered(ctx.js, ctx.streamName, `${ctx.prefix}.run.${run}.>`)).pipe(
      Effect.flatMap((r) => check("raw consumer")(r.count))
    )
    yield* ours
    yield* theirs
    return yield* interleaved(
      4,
      () => ours,
      () => theirs
    )
  })

interface NatsFigures {
  readonly append: { readonly ours: Tally; readonly raw: Tally }
  readonly serial: { readonly ours: Tally; readonly raw: Tally }
  readonly read: { readonly ours: Tally; readonly raw: Tally }
}

const natsPart = (o: Required<Omit<StoreBenchOptions, "progress">>, log: (line: string) => void) =>
  Effect.acquireUseRelease(
    // The same client options as the store's own connection, so neither side is spared work the other does.
    raw("connect", () => connect({ servers: o.natsUrl, name: "core-bench-raw", timeout: 3000, noAsyncTraces: true })),
    (nc) =>
      Effect.gen(function* () {
        const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
        const streamName = `CORE_BENCH_${id}`
        const prefix = `bench${id}`
        const jsm = yield* raw("connect", () => jetstreamManager(nc))
        const js = jetstream(nc)
        const figures = Effect.gen(function* () {
          const ctx: NatsContext = { store: yield* EventStore, js, streamName, prefix }
          log(`bench store: [1/4] append, ${o.streams} streams concurrently, ${o.events} events per side (stream ${streamName})`)
          const append = yield* appendPhase(ctx, "c", o.events, o.streams, o.rounds)
          log(`bench store: [2/4] append, one stream, each awaited, ${o.events} events per side`)
          const serial = yield* appendPhase(ctx, "s", o.events, 1, o.rounds)
          log(`bench store: [3/4] read the ${o.events} events of the concurrent append, readAll vs raw ordered consumer`)
          const read = yield* readPhase(ctx, "co", o.events)
          return { append, serial, read } satisfies NatsFigures
        })
        return yield* figures.pipe(
          Effect.provide(JetStreamStore.layer({ url: o.natsUrl, streamName, prefix })),
          Effect.ensuring(Effect.promise(() => jsm.streams.delete(streamName).catch(() => false)))
        )
      }),
    (nc) => Effect.promise(() => nc.close().catch(() => undefined))
  )

/** The embedded store in a temp file: serial appends to one stream, then one readAll of them. */
const embeddedPart = (n: number, log: (line: string) => void) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "core-bench-"))),
    (dir) =>
      Effect.gen(function* () {
        log(`bench store: [4/4] embedded store (${join(dir, "events.db")}): ${n} serial appends, then readAll`)
        const store = yield* EventStore
        const warm = planner("ew", 1)(Math.min(n, Math.max(50, Math.ceil(n / 10))))
        const chains = planner("eo", 1)(n)
        yield* appendChains(store, new Map(), warm)
        const [, appendMs] = yield* timed(appendChains(store, new Map(), chains))
        const read = Stream.runCount(store.readAll({ filter: "run.eo.>" }))
        yield* read
        const [got, readMs] = yield* timed(read)
        if (got !== n) return yield* new BenchError({ message: `embedded readAll read ${got} events, expected ${n}` })
        return { append: { ops: n, ms: appendMs }, read: { ops: got, ms: readMs } }
      }).pipe(Effect.provide(EmbeddedStore.layer({ path: join(dir, "events.db") }))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

export const runStoreBench = (options: StoreBenchOptions) =>
  Effect.gen(function* () {
    const o = { streams: 128, rounds: 8, ...options }
    const log = options.progress ?? (() => undefined)
    const probe = yield* probeNats(o.natsUrl)
    let nats: NatsFigures | null = null
    if (probe.reachable && probe.jetstream) {
      log(`bench store: nats-server ${probe.version ?? "?"} at ${o.natsUrl}; ${o.rounds} interleaved rounds per side after a warm-up`)
      nats = yield* natsPart({ events: o.events, natsUrl: o.natsUrl, streams: o.streams, rounds: o.rounds }, log)
    } else {
      log(`bench store: no NATS with JetStream at ${o.natsUrl} (${probe.error ?? "no answer"}): embedded store only, NATS figures are null`)
    }
    const embedded = yield* embeddedPart(o.events, log)
    const pair = (t: { readonly ours: Tally; readonly raw: Tally } | undefined) => {
      const ours = t ? perSecond(t.ours) : null
      const theirs = t ? perSecond(t.raw) : null
      return [ours, theirs, ratio(ours, theirs)] as const
    }
    const [append_per_s, raw_publish_per_s, append_ratio] = pair(nats?.append)
    const [append_serial_per_s, raw_serial_per_s, append_serial_ratio] = pair(nats?.serial)
    const [read_per_s, raw_read_per_s, read_ratio] = pair(nats?.read)
    const ratios: Record<TargetKey, number | null> = { append_ratio, append_serial_ratio, read_ratio }
    return {
      events: o.events,
      append_per_s,
      raw_publish_per_s,
      append_ratio,
      append_serial_per_s,
      raw_serial_per_s,
      append_serial_ratio,
      read_per_s,
      raw_read_per_s,
      read_ratio,
      embedded_append_per_s: perSecond(embedded.append),
      embedded_read_per_s: perSecond(embedded.read),
      nats_server_version: nats ? probe.version : null,
      bun_version: Bun.version,
      peak_rss_mb: peakRssMb(),
      targets_met: (Object.keys(TARGETS) as Array<TargetKey>).every((k) => ratios[k] !== null && ratios[k] >= TARGETS[k])
    } satisfies StoreBenchResult
  })
