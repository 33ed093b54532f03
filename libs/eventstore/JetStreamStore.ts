/**
 * The EventStore on NATS JetStream: one file-storage stream (limits retention, explicit
 * duplicate window, no message deletion or purge) holding every subject under
 * `<prefix>.>`; one message per commit; `Nats-Expected-Last-Subject-Sequence` for the
 * conditional append and the commit id as `Nats-Msg-Id`. Nothing here needs a server
 * newer than 2.9.
 *
 * @example
 * const layer = JetStreamStore.layer({ url: "nats://127.0.0.1:4222" })
 */
import type { NatsConnection } from "@nats-io/transport-node"
import { AckPolicy, DeliverPolicy, DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream"
import type { JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream"
import { Effect, Layer, Queue, Result, Schedule } from "effect"
import type { CoreEvent } from "@core/events"
import { collectBatches, decodeCommit, prepareCommit, streamOfBatches } from "./Commit.ts"
import { ConcurrencyError, EventStore, StoreUnavailable, type UnreadableEvent } from "./EventStore.ts"
import type { AppendError, AppendOptions, AppendResult, ReadAllOptions, RecordedEvent, SubscribeOptions } from "./EventStore.ts"
import { connectNats, DEFAULT_OUTAGE_LIMIT_MS, displayNatsUrl, inboxPrefixFor, isTransientNatsError } from "./Connection.ts"
import type { NatsCredentials } from "./Connection.ts"
import { makePublisher, PublishRefused, PublishUnanswered } from "./Publisher.ts"
import { natsErrorLine } from "./Select.ts"

export interface JetStreamStoreOptions {
  readonly url: string
  /** JetStream stream name; default "CORE". */
  readonly streamName?: string
  /** Subject prefix; default "core". Tests use a unique one to stay isolated. */
  readonly prefix?: string
  /** How long the server remembers commit ids; default 2 minutes. Retries beyond it are resolved by reading. */
  readonly duplicateWindowMs?: number
  /** How long an append waits through an outage for the server to come back; default 10 minutes. */
  readonly outageLimitMs?: number
  readonly credentials?: NatsCredentials
}

const WRONG_LAST_SEQUENCE = 10071
const nanos = (ms: number) => ms * 1_000_000

/** Errors after which the same conditional append may safely be sent again. */
const isTransient = (e: unknown): boolean => {
  if (e instanceof PublishUnanswered) return true
  if (e instanceof PublishRefused) return e.errCode !== WRONG_LAST_SEQUENCE && (e.status === 503 || e.status === 408)
  return isTransientNatsError(e)
}

export const make = (options: JetStreamStoreOptions) =>
  Effect.gen(function* () {
    const url = displayNatsUrl(options.url)
    const streamName = options.streamName ?? "CORE"
    const prefix = options.prefix ?? "core"
    const where = `${url} stream ${streamName}`
    const unavailable = (e: unknown) => new StoreUnavailable({ store: url, reason: natsErrorLine(e) })

    const nc: NatsConnection = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => connectNats(options.url, options.credentials ?? {}, "core"),
        catch: unavailable
      }),
      (c) => Effect.promise(() => c.close().catch(() => undefined))
    )
    if (nc.info?.jetstream !== true) {
      return yield* new StoreUnavailable({ store: url, reason: "JetStream is not enabled on this server (start nats-server with -js)" })
    }
    const jsm: JetStreamManager = yield* Effect.tryPromise({ try: () => jetstreamManager(nc), catch: unavailable })
    const js: JetStreamClient = jetstream(nc)
    const publisher = yield* Effect.acquireRelease(
      Effect.sync(() => makePublisher(nc, 5000, inboxPrefixFor(options.credentials ?? {}))),
      (p) => Effect.sync(() => p.close())
    )

    const config = {
      name: streamName,
      subjects: [`${prefix}.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(options.duplicateWindowMs ?? 120_000),
      deny_delete: true,
      deny_purge: true,
      allow_direct: true
    }
    yield* Effect.tryPromise({
      try: async () => {
        const existing = await jsm.streams.info(streamName).catch(() => null)
        if (!existing) await jsm.streams.add(config)
        else if (!existing.config.subjects?.includes(`${prefix}.>`)) {
          throw new Error(`stream ${streamName} exists with subjects ${existing.config.subjects?.join(",")}, not ${prefix}.>`)
        }
      },
      catch: unavailable
    })

    const subject = (stream: string) => `${prefix}.${stream}`
    const filterSubject = (filter: string | undefined) => (filter === undefined ? `${prefix}.>` : `${prefix}.${filter}`)
    // Back off from 100 ms to at most 2 s between tries, through an outage of up to `outageLimitMs`.
    const retry = Schedule.min([Schedule.exponential("100 millis", 1.5), Schedule.spaced("2 seconds")]).pipe(
      Schedule.upTo({ duration: `${options.outageLimitMs ?? DEFAULT_OUTAGE_LIMIT_MS} millis` })
    )

    /** The commit at the stream's first revision after `expected`, if it is ours. */
    const landedAfter = (stream: string, expected: number, id: string) =>
      Effect.tryPromise({
        try: async () => {
          const m = await jsm.direct.getMessage(streamName, { seq: expected + 1, next_by_subj: subject(stream) })
          if (m && m.header.get("Nats-Msg-Id") === id) return { landed: m.seq }
          const last = await jsm.direct.getMessage(streamName, { last_by_subj: subject(stream) })
          return { landed: null, actual: last?.seq ?? 0 }
        },
        catch: unavailable
      })

    const append = (stream: string, events: ReadonlyArray<CoreEvent>, opts: AppendOptions) =>
      Effect.suspend((): Effect.Effect<AppendResult, AppendError> => {
        const prepared = prepareCommit(stream, events, opts)
        if (Result.isFailure(prepared)) return Effect.fail(prepared.failure)
        const { id, body } = prepared.success
        const send = () => publisher.publish(subject(stream), body, id, opts.expectedRevision)
        const acked = (a: { readonly seq: number }): AppendResult => ({ revision: a.seq, position: a.seq })
        const settle = (e: unknown): Effect.Effect<AppendResult, AppendError> => {
          if (e instanceof PublishRefused && e.errCode === WRONG_LAST_SEQUENCE) {
            return landedAfter(stream, opts.expectedRevision, id).pipe(
              Effect.flatMap((r) =>
                r.landed !== null
                  ? Effect.succeed<AppendResult>({ revision: r.landed, position: r.landed })
                  : Effect.fail(new ConcurrencyError({ stream, expected: opts.expectedRevision, actual: r.actual ?? 0 }))
              )
            )
          }
          return Effect.fail(unavailable(e))
        }
        // Every writer's hot path: one callback instead of a chain of combinators, and the
        // retry schedule (which costs more than the publish's own client work) only starts
        // after a first transient failure.
        return Effect.callback<AppendResult, AppendError>((resume) => {
          send().then(
            (a) => resume(Effect.succeed(acked(a))),
            (e) =>
              resume(
                isTransient(e)
                  ? Effect.tryPromise({ try: send, catch: (e) => e }).pipe(
                      Effect.retry({ schedule: retry, while: isTransient }),
                      Effect.map(acked),
                      Effect.catch(settle)
                    )
                  : settle(e)
              )
          )
        })
      })

    /**
     * Ordered-consumer batches from `from`, ending at the last matching commit as of the
     * start unless live. The end is the sequence of that commit (a direct get of the last
     * message on the filter), not the consumer's pending count: nats-server 2.9 miscounts
     * pending for wildcard filters over many subjects, which would end a read early or never.
     */
    async function* batches(filter: string, from: number, live: boolean): AsyncGenerator<Array<RecordedEvent>> {
      const start = Math.max(1, from)
      const last = live ? Infinity : ((await jsm.direct.getMessage(streamName, { last_by_subj: filter }))?.seq ?? 0)
      if (last < start) return
      const consumer = await js.consumers.get(streamName, {
        filter_subjects: filter,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: start
      })
      const messages = await consumer.consume({ max_messages: 1024 })
      try {
        let batch: Array<RecordedEvent> = []
        for await (const m of messages) {
          const d = decodeCommit(m.string(), m.seq)
          if (Result.isFailure(d)) {
            // Hand over everything before the unreadable commit, then stop there.
            if (batch.length > 0) yield batch
            throw d.failure
          }
          for (const r of d.success) batch.push(r)
          const end = m.seq >= last
          if (batch.length >= 256 || end || messages.getPending() === 0) {
            yield batch
            batch = []
          }
          if (end) return
        }
      } finally {
        // Not awaited: close() waits for buffered messages to be drained, which a reader
        // that stopped early (take, interruption) never does. The ordered consumer is
        // ephemeral and the server drops it once idle.
        void messages.close().catch(() => undefined)
      }
    }

    const readAll = (o: ReadAllOptions = {}) => streamOfBatches(() => batches(filterSubject(o.filter), o.from ?? 1, o.live ?? false), where)

    const readStream = (stream: string) => collectBatches(() => batches(subject(stream), 1, false), unavailable)

    const head = () => Effect.tryPromise({ try: async () => (await jsm.streams.info(streamName)).state.last_seq, catch: unavailable })

    const subscribe = <E, R>(
      name: string,
      handler: (event: RecordedEvent) => Effect.Effect<void, E, R>,
      opts: SubscribeOptions = {}
    ): Effect.Effect<never, StoreUnavailable | UnreadableEvent | E, R> =>
      Effect.gen(function* () {
        if (!/^[A-Za-z0-9_-]+$/.test(name)) {
          return yield* new StoreUnavailable({ store: where, reason: `consumer name '${name}' may only hold letters, digits, - and _` })
        }
        yield* Effect.tryPromise({
          try: () =>
            jsm.consumers.add(streamName, {
              durable_name: name,
              ack_policy: AckPolicy.Explicit,
              deliver_policy: DeliverPolicy.All,
              filter_subject: filterSubject(opts.filter),
              ack_wait: nanos(30_000),
              max_ack_pending: 1024
            }),
          catch: unavailable
        })
        // Deliveries land in a queue we own, so that on stop we can hand back (nak) exactly
        // what arrived but was not handled, instead of waiting out the ack wait.
        const inbox = yield* Queue.unbounded<JsMsg>()
        yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: async () =>
              (await js.consumers.get(streamName, name)).consume({ max_messages: 256, callback: (m) => void Queue.offerUnsafe(inbox, m) }),
            catch: unavailable
          }),
          (ms) =>
            Effect.gen(function* () {
              yield* Effect.promise(() => Promise.race([ms.close().catch(() => undefined), Bun.sleep(2000)]))
              for (const m of yield* Queue.clear(inbox)) m.nak()
            })
        )
        while (true) {
          const m = yield* Queue.take(inbox)
          const d = decodeCommit(m.string(), m.seq)
          if (Result.isFailure(d)) {
            m.term()
            return yield* Effect.fail(d.failure)
          }
          yield* Effect.forEach(d.success, handler, { discard: true }).pipe(
            Effect.onExit((exit) => (exit._tag === "Success" ? Effect.void : Effect.sync(() => m.nak())))
          )
          // ackAck: the next run must not see this commit again once we move on.
          yield* Effect.tryPromise({ try: () => m.ackAck(), catch: unavailable })
        }
      }).pipe(Effect.scoped) as Effect.Effect<never, StoreUnavailable | UnreadableEvent | E, R>

    return EventStore.of({ kind: "nats", location: where, append, readStream, readAll, head, subscribe })
  })

export const JetStreamStore = {
  make,
  layer: (options: JetStreamStoreOptions) => Layer.effect(EventStore, make(options))
}
