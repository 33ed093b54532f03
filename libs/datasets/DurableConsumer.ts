/**
 * The durable JetStream pull consumer under `dataset follow` and `train --follow`: explicit
 * acks, a commit acknowledged only after its handler made it durable, deliveries that arrived
 * but were not handled handed back (nak) on stop, progress on stderr only when it changes,
 * and an end on the first SIGINT or SIGTERM. Delivery is at-least-once (a crash between the
 * handler's fsync and the ack redelivers the commit); each caller dedupes by record id.
 *
 * @example
 * const signal = yield* consumeDurably(options, { handle, progress: () => `${n} records` }) // needs EventStore
 */
import type { NatsConnection } from "@nats-io/transport-node"
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream"
import type { ConsumerInfo, JetStreamManager, JsMsg } from "@nats-io/jetstream"
import { Effect, Queue, Result, Schedule } from "effect"
import { connectNats, decodeCommit, displayNatsUrl, EventStore, natsErrorLine } from "@core/eventstore"
import type { NatsCredentials, RecordedEvent } from "@core/eventstore"
import { DatasetError } from "./DatasetError.ts"

/** JetStreamStore's defaults, which `openStore` uses: the stream every `core` command writes. */
export const STREAM_NAME = "CORE"
export const SUBJECT_PREFIX = "core"
/** Commits handled per fsync and ack. */
const BATCH = 128
const PROGRESS_EVERY = "1 second"

export interface DurableConsumerOptions {
  readonly url: string
  readonly credentials?: NatsCredentials
  readonly consumer: string
  /** The subject it reads, e.g. `core.run.*.dataset.*`. */
  readonly filter: string
  /** What its acknowledgements mean: a consumer made with another description is not resumed. */
  readonly description: string
  readonly ackWaitSeconds: number
  /** How the connection names itself to the server. */
  readonly client: string
  /** The prefix of its lines on stderr ("follow", "train"). */
  readonly label: string
  /** What it feeds, to end the line it prints once the consumer is set up (", format sft → out.jsonl"). */
  readonly into: string
  /** The caller holds nothing yet: an existing consumer is made again, so that it delivers the whole log. */
  readonly fromStart?: boolean
}

/** One delivered commit: its sequence in the stream (its log position) and its events. */
export interface Delivery {
  readonly seq: number
  readonly events: ReadonlyArray<RecordedEvent>
}

export interface DeliveryHandler<E, R, E2 = never, R2 = never> {
  /** Makes a batch durable; its commits are acknowledged only when it succeeds. */
  readonly handle: (batch: ReadonlyArray<Delivery>) => Effect.Effect<void, E, R>
  /** Runs once the consumer is set up, before the first batch. */
  readonly started?: Effect.Effect<void, E2, R2>
  /** Runs after a batch's acks; `drained` when no delivery is waiting. */
  readonly handled?: (drained: boolean) => Effect.Effect<void, E2, R2>
  /** The progress line, printed when it changes (at most once a second). */
  readonly progress: () => string
}

const nanos = (seconds: number) => seconds * 1_000_000_000

const notFound = (e: unknown) =>
  (e as { name?: string }).name === "ConsumerNotFoundError" || /consumer not found/i.test(String((e as Error).message))

const ensureConsumer = (jsm: JetStreamManager, o: DurableConsumerOptions) =>
  Effect.tryPromise({
    try: async (): Promise<ConsumerInfo> => {
      const existing = await jsm.consumers.info(STREAM_NAME, o.consumer).catch((e: unknown) => {
        if (notFound(e)) return null
        throw e
      })
      const add = () =>
        jsm.consumers.add(STREAM_NAME, {
          durable_name: o.consumer,
          description: o.description,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: o.filter,
          ack_wait: nanos(o.ackWaitSeconds),
          max_ack_pending: 1024
        })
      if (existing === null) return await add()
      const c = existing.config
      const mismatch =
        c.filter_subject !== o.filter
          ? `filters ${c.filter_subject ?? "(everything)"}, not ${o.filter}`
          : (c.description ?? "") !== o.description
            ? `was made by '${c.description ?? "something else"}', not '${o.description}'`
            : c.ack_policy !== AckPolicy.Explicit || c.deliver_subject
              ? "is not an explicit-ack pull consumer"
              : null
      // Its acknowledgements mean "written" only for what it was made for; resuming it for
      // something else would silently skip records.
      if (mismatch)
        throw new DatasetError({ message: `consumer ${o.consumer} on stream ${STREAM_NAME} ${mismatch}: pick another --consumer name` })
      // What it acknowledged is not held anywhere any more: resuming it would skip those records.
      if (o.fromStart === true && existing.ack_floor.stream_seq > 0) {
        await jsm.consumers.delete(STREAM_NAME, o.consumer)
        return await add()
      }
      if (c.ack_wait !== nanos(o.ackWaitSeconds))
        return await jsm.consumers.update(STREAM_NAME, o.consumer, { ack_wait: nanos(o.ackWaitSeconds) })
      return existing
    },
    catch: (e) =>
      e instanceof DatasetError
        ? e
        : new DatasetError({
            message: `cannot set up consumer ${o.consumer} on ${displayNatsUrl(o.url)} stream ${STREAM_NAME}: ${natsErrorLine(e)}`
          })
  })

/** Resolves on the first SIGINT or SIGTERM: stopping is the normal end of a follower. */
const untilSignal = Effect.callback<NodeJS.Signals>((resume) => {
  const on = (s: NodeJS.Signals) => resume(Effect.succeed(s))
  process.once("SIGINT", on)
  process.once("SIGTERM", on)
  return Effect.sync(() => {
    process.off("SIGINT", on)
    process.off("SIGTERM", on)
  })
})

const consume = <E, R, E2, R2>(o: DurableConsumerOptions, h: DeliveryHandler<E, R, E2, R2>) =>
  Effect.gen(function* () {
    // Creates the CORE stream if nothing has written to this server yet, so a follower can start first.
    yield* EventStore
    const nc: NatsConnection = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => connectNats(o.url, o.credentials ?? {}, o.client),
        catch: (e) => new DatasetError({ message: `cannot connect to NATS at ${displayNatsUrl(o.url)}: ${natsErrorLine(e)}` })
      }),
      // Flush first: acks are fire-and-forget, and one lost here only means a redelivery that dedupe absorbs.
      (c) =>
        Effect.promise(() =>
          c
            .flush()
            .then(() => c.close())
            .catch(() => undefined)
        )
    )
    const jsm = yield* Effect.tryPromise({
      try: () => jetstreamManager(nc),
      catch: (e) => new DatasetError({ message: `JetStream at ${displayNatsUrl(o.url)}: ${natsErrorLine(e)}` })
    })
    yield* ensureConsumer(jsm, o)
    console.error(`${o.label}: consumer ${o.consumer} on ${o.filter}${o.into}`)

    // Deliveries land in a queue we own, so that on stop we can hand back (nak) exactly what
    // arrived but was not handled, instead of leaving it to the ack wait.
    const inbox = yield* Queue.unbounded<JsMsg>()
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () =>
          (await jetstream(nc).consumers.get(STREAM_NAME, o.consumer)).consume({
            max_messages: 256,
            callback: (m) => void Queue.offerUnsafe(inbox, m)
          }),
        catch: (e) => new DatasetError({ message: `cannot consume ${o.consumer}: ${natsErrorLine(e)}` })
      }),
      (ms) =>
        Effect.gen(function* () {
          yield* Effect.promise(() => Promise.race([ms.close().catch(() => undefined), Bun.sleep(2000)]))
          for (const m of yield* Queue.clear(inbox)) m.nak()
        })
    )

    // Silent until something happens: a follower waiting on an idle log says nothing new.
    let reported = `${o.label}: ${h.progress()}`
    const report = () => {
      const line = `${o.label}: ${h.progress()}`
      if (line === reported) return
      reported = line
      console.error(line)
    }
    yield* Effect.forkScoped(Effect.repeat(Effect.sync(report), Schedule.spaced(PROGRESS_EVERY)))

    const handle = (batch: ReadonlyArray<JsMsg>) =>
      Effect.gen(function* () {
        const deliveries: Array<Delivery> = []
        for (const m of batch) {
          const events = decodeCommit(m.string(), m.seq)
          // Left unacknowledged: a newer core may read it; skipping it would lose records.
          if (Result.isFailure(events)) return yield* Effect.fail(events.failure)
          deliveries.push({ seq: m.seq, events: events.success })
        }
        yield* h.handle(deliveries)
        for (const m of batch) m.ack()
      }).pipe(
        // Nothing of a failed batch was acknowledged, so all of it comes again; a restart's
        // dedupe skips what its handler did make durable.
        Effect.tapError(() => Effect.sync(() => batch.forEach((m) => m.nak())))
      )

    if (h.started) yield* Effect.uninterruptible(h.started)
    while (true) {
      const batch = yield* Queue.takeBetween(inbox, 1, BATCH)
      // A signal waits for the batch in hand to be handled and acknowledged.
      yield* Effect.uninterruptible(handle(batch))
      if (h.handled) yield* Effect.uninterruptible(h.handled(Queue.sizeUnsafe(inbox) === 0))
    }
  }).pipe(Effect.scoped)

/** Consumes until SIGINT or SIGTERM and returns the signal; fails when a commit cannot be read or handled. */
export const consumeDurably = <E, R, E2 = never, R2 = never>(o: DurableConsumerOptions, h: DeliveryHandler<E, R, E2, R2>) =>
  // A signal while connecting ends it as cleanly as one while waiting.
  Effect.raceFirst(consume(o, h), untilSignal)
