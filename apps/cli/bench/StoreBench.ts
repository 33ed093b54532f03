/**
 * `bench store`: our EventStore against raw JetStream on the same bytes, in one run
 * (a ratio to the raw tool under the same load). Every figure is events per second, one
 * event per commit. After a warm-up of every side, the bench runs three rounds, each the
 * same sequence of phases (concurrent append against a headered and a plain raw publisher,
 * serial append, read); each ratio is the median of its three per-round ratios, so one
 * round that a busy machine ruins cannot move the headline.
 *
 * All writes go to a stream of their own (`CORE_BENCH_<id>`, subjects `bench<id>.>`),
 * deleted afterwards, so the CORE stream never sees a bench event. Every side of every
 * round writes run ids of its own, so each round's read phase reads exactly the N events
 * that round's concurrent append wrote.
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
import type { EventStoreShape, ReadError } from "@core/eventstore"
import { peakRssMb, perSecond, ratio, shares, timed } from "./Measure.ts"
import type { Tally } from "./Measure.ts"
import { publishChains, publishChainsConditional, readOrdered } from "./RawJetStream.ts"
import type { RawChain } from "./RawJetStream.ts"

/** The raw side failed, or the two sides disagree on what they read: the figures would mean nothing. */
export class BenchError extends Schema.TaggedError<BenchError>()("BenchError", { message: Schema.String }) {}

export const TARGETS = { append_ratio: 0.9, append_ratio_plain: 0.75, append_serial_ratio: 0.8, read_ratio: 0.6 } as const
export type TargetKey = keyof typeof TARGETS

/** Odd, so the median is one round's own figure. */
export const STORE_ROUNDS = 3

/** One round's figures; each ratio is that round's ours ÷ raw, from the printed rates. */
export interface StoreRound {
  readonly append_per_s: number
  /** Publishes with the same two headers as an append: the fair baseline. */
  readonly raw_publish_per_s: number
  /** Publishes without headers: what JetStream does when asked nothing. */
  readonly raw_plain_publish_per_s: number
  readonly append_ratio: number
  readonly append_ratio_plain: number
  readonly append_serial_per_s: number
  readonly raw_serial_per_s: number
  readonly append_serial_ratio: number
  readonly read_per_s: number
  readonly raw_read_per_s: number
  readonly read_ratio: number
}

/**
 * The report. Each NATS figure is the median over `rounds` of that figure (so a headline
 * ratio is the median of the rounds' ratios, not the ratio of the median rates); all are
 * null, and `rounds` empty, when no NATS with JetStream answered.
 */
export type StoreBenchResult = { readonly [K in keyof StoreRound]: number | null } & {
  readonly events: number
  readonly rounds: ReadonlyArray<StoreRound>
  readonly embedded_append_per_s: number
  readonly embedded_read_per_s: number
  readonly nats_server_version: string | null
  readonly bun_version: string
  readonly peak_rss_mb: number
  /** Every ratio was measured and meets its target. */
  readonly targets_met: boolean
}

export interface StoreBenchOptions {
  /** Events per phase, side and round. */
  readonly events: number
  readonly natsUrl: string
  /** Streams written concurrently, one append in flight on each; default 128. */
  readonly streams?: number
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
export const commitBytes = (e: CoreEvent, id: string = commitId(e.stream, [e])): Uint8Array => {
  const enc = catalog.encode(e)
  if (Result.isFailure(enc)) throw enc.failure
  return encoder.encode(`{"commitId":${JSON.stringify(id)},"events":[${enc.success.json}]}`)
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

/** The raw twin of our chains: the same bytes and the same commit ids, computed here rather than timed. */
const rawChains = (prefix: string, chains: ReadonlyArray<Chain>): Array<RawChain> =>
  chains.map((c) => {
    const ids = c.events.map((e) => commitId(e.stream, [e]))
    return { subject: `${prefix}.${c.stream}`, ids, bodies: c.events.map((e, i) => commitBytes(e, ids[i])) }
  })

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
  ).pipe(Effect.as(chains.reduce((n, c) => n + c.events.length, 0)))

interface NatsContext {
  readonly store: EventStoreShape
  readonly js: JetStreamClient
  readonly streamName: string
  readonly prefix: string
}

type AppendFailure = Effect.Error<ReturnType<EventStoreShape["append"]>>

/**
 * One side of a phase: called untimed with its share of the work, it builds its inputs and
 * returns the timed part, which says how many events it handled.
 */
type Side = (size: number) => Effect.Effect<number, BenchError | AppendFailure | ReadError>

/**
 * n events of each side in two halves, in order and then reversed (A B C, C B A): a drift
 * that is linear in time (GC, the server's file growth, a neighbour's load) costs every side
 * the same, whichever comes first.
 */
const mirrored = (n: number, sides: ReadonlyArray<Side>) =>
  Effect.gen(function* () {
    const tallies = sides.map(() => ({ ops: 0, ms: 0 }))
    for (const [half, size] of shares(n, 2).entries()) {
      const work = sides.map((side) => side(size))
      const order = [...sides.keys()]
      for (const i of half === 0 ? order : order.reverse()) {
        const [ops, ms] = yield* timed(work[i]!)
        tallies[i]!.ops += ops
        tallies[i]!.ms += ms
      }
    }
    return tallies as ReadonlyArray<Tally>
  })

/** Our appends of run `run` over `width` streams (1 = serial), each stream's revision carried between halves. */
const oursSide = (ctx: NatsContext, run: string, width: number): Side => {
  const plan = planner(run, width)
  const revisions = new Map<string, number>()
  return (size) => appendChains(ctx.store, revisions, plan(size))
}

/** Raw publishes in the same shape as `oursSide`: with our append's two headers when `conditional`, plain otherwise. */
const rawSide = (ctx: NatsContext, run: string, width: number, conditional: boolean): Side => {
  const plan = planner(run, width)
  const sequences = new Map<string, number>()
  return (size) => {
    const chains = rawChains(ctx.prefix, plan(size))
    return conditional
      ? raw("conditional publish", () => publishChainsConditional(ctx.js, sequences, chains))
      : raw("publish", () => publishChains(ctx.js, chains))
  }
}

/** readAll (decoding every event through the catalog) and a raw ordered consumer, each reading all `expected` events of `run`. */
const readSides = (ctx: NatsContext, run: string, expected: number): [Side, Side] => {
  const check = (side: string) => (n: number) =>
    n === expected ? Effect.succeed(n) : Effect.fail(new BenchError({ message: `${side} read ${n} events, expected ${expected}` }))
  const ours = Stream.runCount(ctx.store.readAll({ filter: `run.${run}.>` })).pipe(Effect.flatMap(check("readAll")))
  const theirs = raw("read", () => readOrdered(ctx.js, ctx.streamName, `${ctx.prefix}.run.${run}.>`)).pipe(
    Effect.flatMap((r) => check("raw consumer")(r.count))
  )
  return [() => ours, () => theirs]
}

/** Ours ÷ raw from the printed rates; a raw side that took no time at all would make the ratio meaningless. */
const pair = (ours: Tally, theirs: Tally, what: string) =>
  Effect.gen(function* () {
    const [o, r] = [perSecond(ours), perSecond(theirs)]
    const q = ratio(o, r)
    if (q === null || o === 0) return yield* new BenchError({ message: `${what}: no rate measured (ours ${o}/s, raw ${r}/s)` })
    return [o, r, q] as const
  })

/** Every side of every phase once, with run ids of its own, so the timed rounds start warm. */
const warmUp = (ctx: NatsContext, n: number, width: number) =>
  Effect.gen(function* () {
    const concurrent = Math.min(n, Math.max(width, Math.ceil(n / 10)))
    yield* mirrored(concurrent, [oursSide(ctx, "cwo", width), rawSide(ctx, "cwf", width, true), rawSide(ctx, "cwp", width, false)])
    yield* mirrored(Math.min(n, Math.ceil(n / 10)), [oursSide(ctx, "swo", 1), rawSide(ctx, "swr", 1, true)])
    yield* mirrored(concurrent, readSides(ctx, "cwo", concurrent))
  })

const round = (ctx: NatsContext, r: number, n: number, width: number) =>
  Effect.gen(function* () {
    const [append, fair, plain] = yield* mirrored(n, [
      oursSide(ctx, `c${r}o`, width),
      rawSide(ctx, `c${r}f`, width, true),
      rawSide(ctx, `c${r}p`, width, false)
    ])
    const [serialOurs, serialRaw] = yield* mirrored(n, [oursSide(ctx, `s${r}o`, 1), rawSide(ctx, `s${r}r`, 1, true)])
    const [readOurs, readRaw] = yield* mirrored(n, readSides(ctx, `c${r}o`, n))
    const [append_per_s, raw_publish_per_s, append_ratio] = yield* pair(append!, fair!, "append")
    const [, raw_plain_publish_per_s, append_ratio_plain] = yield* pair(append!, plain!, "append")
    const [append_serial_per_s, raw_serial_per_s, append_serial_ratio] = yield* pair(serialOurs!, serialRaw!, "serial append")
    const [read_per_s, raw_read_per_s, read_ratio] = yield* pair(readOurs!, readRaw!, "read")
    return {
      append_per_s,
      raw_publish_per_s,
      raw_plain_publish_per_s,
      append_ratio,
      append_ratio_plain,
      append_serial_per_s,
      raw_serial_per_s,
      append_serial_ratio,
      read_per_s,
      raw_read_per_s,
      read_ratio
    } satisfies StoreRound
  })

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
          log(`bench store: warm-up of every side (stream ${streamName})`)
          yield* warmUp(ctx, o.events, o.streams)
          const rounds: Array<StoreRound> = []
          for (let r = 0; r < STORE_ROUNDS; r++) {
            log(
              `bench store: round ${r + 1}/${STORE_ROUNDS}: append over ${o.streams} streams (ours, raw with headers, raw plain), append to one stream, each awaited, then read; ${o.events} events each`
            )
            const figures = yield* round(ctx, r, o.events, o.streams)
            log(
              `bench store: round ${r + 1}/${STORE_ROUNDS}: append_ratio ${figures.append_ratio}, append_ratio_plain ${figures.append_ratio_plain}, append_serial_ratio ${figures.append_serial_ratio}, read_ratio ${figures.read_ratio}`
            )
            rounds.push(figures)
          }
          return rounds
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
        log(`bench store: embedded store (${join(dir, "events.db")}): ${n} serial appends, then readAll`)
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

/** The middle value; with an odd count, one of the values itself. */
const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[(sorted.length - 1) >> 1]!
}

export const runStoreBench = (options: StoreBenchOptions) =>
  Effect.gen(function* () {
    const o = { streams: 128, ...options }
    const log = options.progress ?? (() => undefined)
    const probe = yield* probeNats(o.natsUrl)
    let rounds: ReadonlyArray<StoreRound> = []
    if (probe.reachable && probe.jetstream) {
      log(`bench store: nats-server ${probe.version ?? "?"} at ${o.natsUrl}; ${STORE_ROUNDS} rounds, ours and raw interleaved within each`)
      rounds = yield* natsPart({ events: o.events, natsUrl: o.natsUrl, streams: o.streams }, log)
    } else {
      log(`bench store: no NATS with JetStream at ${o.natsUrl} (${probe.error ?? "no answer"}): embedded store only, NATS figures are null`)
    }
    const embedded = yield* embeddedPart(o.events, log)
    const mid = (k: keyof StoreRound) => (rounds.length === 0 ? null : median(rounds.map((r) => r[k])))
    const ratios: Record<TargetKey, number | null> = {
      append_ratio: mid("append_ratio"),
      append_ratio_plain: mid("append_ratio_plain"),
      append_serial_ratio: mid("append_serial_ratio"),
      read_ratio: mid("read_ratio")
    }
    return {
      events: o.events,
      append_per_s: mid("append_per_s"),
      raw_publish_per_s: mid("raw_publish_per_s"),
      raw_plain_publish_per_s: mid("raw_plain_publish_per_s"),
      append_ratio: ratios.append_ratio,
      append_ratio_plain: ratios.append_ratio_plain,
      append_serial_per_s: mid("append_serial_per_s"),
      raw_serial_per_s: mid("raw_serial_per_s"),
      append_serial_ratio: ratios.append_serial_ratio,
      read_per_s: mid("read_per_s"),
      raw_read_per_s: mid("raw_read_per_s"),
      read_ratio: ratios.read_ratio,
      rounds,
      embedded_append_per_s: perSecond(embedded.append),
      embedded_read_per_s: perSecond(embedded.read),
      nats_server_version: rounds.length > 0 ? probe.version : null,
      bun_version: Bun.version,
      peak_rss_mb: peakRssMb(),
      targets_met: (Object.keys(TARGETS) as Array<TargetKey>).every((k) => ratios[k] !== null && ratios[k] >= TARGETS[k])
    } satisfies StoreBenchResult
  })
