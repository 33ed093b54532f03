/**
 * `dataset follow`'s loop: a durable JetStream pull consumer on the dataset subjects,
 * records appended and fsynced before their commit is acknowledged, and a file's existing
 * record ids skipped. Delivery is at-least-once (a crash between the fsync and the ack
 * redelivers the commit); dedupe by record id makes the file exactly-once.
 */
import type { NatsConnection } from "@nats-io/transport-node"
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream"
import type { ConsumerInfo, JetStreamManager, JsMsg } from "@nats-io/jetstream"
import { Effect, Queue, Result, Schedule } from "effect"
import type { DatasetFormat } from "@core/events"
import { connectNats, decodeCommit, displayNatsUrl, EventStore, natsErrorLine } from "@core/eventstore"
import type { NatsCredentials } from "@core/eventstore"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { DatasetError } from "./DatasetError.ts"
import { imageHashes, makeImageWriter, openAppendFile, readRecordIds, recordLine, runIdOf, syncDir } from "./DatasetFiles.ts"

/** JetStreamStore's defaults, which `openStore` uses: the stream every `core` command writes. */
const STREAM_NAME = "CORE"
const PREFIX = "core"
/** Commits handled per fsync and ack. */
const BATCH = 128
const PROGRESS_EVERY = "1 second"

export interface FollowOptions {
  readonly url: string
  readonly credentials?: NatsCredentials
  readonly consumer: string
  readonly format: DatasetFormat | undefined
  readonly run: string | undefined
  /** Absolute path; undefined = stdout. */
  readonly out: string | undefined
  readonly ackWaitSeconds: number
}

const nanos = (seconds: number) => seconds * 1_000_000_000

// The format filter is applied here, not by the server; a consumer that acked only sft
// records must never be resumed for dpo, so the filter is written into its description.
const describeConsumer = (o: FollowOptions) => `core dataset follow: format=${o.format ?? "all"}`

const ensureConsumer = (jsm: JetStreamManager, o: FollowOptions, filter: string) =>
  Effect.tryPromise({
    try: async (): Promise<ConsumerInfo> => {
      const existing = await jsm.consumers.info(STREAM_NAME, o.consumer).catch((e: unknown) => {
        if ((e as { name?: string }).name === "ConsumerNotFoundError" || /consumer not found/i.test(String((e as Error).message)))
          return null
        throw e
      })
      const description = describeConsumer(o)
      if (existing === null) {
        return await jsm.consumers.add(STREAM_NAME, {
          durable_name: o.consumer,
          description,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: filter,
          ack_wait: nanos(o.ackWaitSeconds),
          max_ack_pending: 1024
        })
      }
      const c = existing.config
      const mismatch =
        c.filter_subject !== filter
          ? `filters ${c.filter_subject ?? "(everything)"}, not ${filter}`
          : (c.description ?? "") !== description
            ? `was made by '${c.description ?? "something else"}', not '${description}'`
            : c.ack_policy !== AckPolicy.Explicit || c.deliver_subject
              ? "is not an explicit-ack pull consumer"
              : null
      // Its acknowledgements mean "written" only for what it was made for; resuming it for
      // something else would silently skip records.
      if (mismatch)
        throw new DatasetError({ message: `consumer ${o.consumer} on stream ${STREAM_NAME} ${mismatch}: pick another --consumer name` })
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

export const followDataset = (o: FollowOptions) =>
  Effect.gen(function* () {
    // Creates the CORE stream if nothing has written to this server yet, so a follower can start first.
    yield* EventStore
    const filter = `${PREFIX}.run.${o.run ?? "*"}.dataset.*`
    const seen = new Set<string>()
    let append: ((text: string) => Effect.Effect<void, DatasetError>) | undefined
    const images = o.out === undefined ? undefined : makeImageWriter(dirname(o.out))
    if (o.out !== undefined) {
      const out = o.out
      yield* Effect.try({
        try: () => mkdirSync(dirname(out), { recursive: true }),
        catch: (e) => new DatasetError({ message: `cannot create ${dirname(out)}: ${(e as Error).message}` })
      })
      const existing = yield* readRecordIds(out)
      for (const id of existing.ids) seen.add(id)
      append = (yield* openAppendFile(out)).append
      yield* Effect.try({
        try: () => syncDir(dirname(out)),
        catch: (e) => new DatasetError({ message: `cannot sync ${dirname(out)}: ${(e as Error).message}` })
      })
      console.error(
        `follow: ${out} holds ${existing.ids.size} records${existing.tornBytes > 0 ? ` (cut a torn last line of ${existing.tornBytes} bytes left by a crash)` : ""}`
      )
    }

    const nc: NatsConnection = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => connectNats(o.url, o.credentials ?? {}, `core-dataset-follow-${o.consumer}`),
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
    yield* ensureConsumer(jsm, o, filter)
    console.error(`follow: consumer ${o.consumer} on ${filter}${o.format ? `, format ${o.format}` : ""} → ${o.out ?? "stdout"}`)

    // Deliveries land in a queue we own, so that on stop we can hand back (nak) exactly what
    // arrived but was not written, instead of leaving it to the ack wait.
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

    let written = 0
    let skipped = 0
    const counts = () => `${written} records written (${skipped} skipped as duplicates)`
    // Silent until something happens: a follower waiting on an idle log says nothing new.
    let reported = `follow: ${counts()}`
    const report = () => {
      const line = `follow: ${counts()}`
      if (line === reported) return
      reported = line
      console.error(line)
    }
    yield* Effect.forkScoped(Effect.repeat(Effect.sync(report), Schedule.spaced(PROGRESS_EVERY)))

    const handle = (batch: ReadonlyArray<JsMsg>) =>
      Effect.gen(function* () {
        const lines: Array<string> = []
        for (const m of batch) {
          const events = decodeCommit(m.string(), m.seq)
          // Left unacknowledged: a newer core may read it; skipping it would lose records.
          if (Result.isFailure(events)) return yield* Effect.fail(events.failure)
          for (const { event: e } of events.success) {
            if (e.type !== "DatasetRecordEmitted" || (o.format !== undefined && e.data.format !== o.format)) continue
            if (seen.has(e.data.recordId)) {
              skipped++
              continue
            }
            seen.add(e.data.recordId)
            // Images first: a line in the file promises its images are beside it.
            if (images) yield* images.ensure(imageHashes(e.data.body), e.data.recordId)
            lines.push(`${recordLine(runIdOf(e), e.data, images ? "paths" : "hashes")}\n`)
          }
        }
        if (lines.length > 0) {
          if (images) yield* images.sync
          if (append) yield* append(lines.join(""))
          else yield* Effect.promise(() => Bun.write(Bun.stdout, lines.join("")))
        }
        for (const m of batch) m.ack()
        written += lines.length
      }).pipe(
        // Nothing of a failed batch was acknowledged, so all of it comes again; a restart's
        // dedupe skips what did reach the file.
        Effect.tapError(() => Effect.sync(() => batch.forEach((m) => m.nak())))
      )

    const loop = Effect.gen(function* () {
      while (true) {
        const batch = yield* Queue.takeBetween(inbox, 1, BATCH)
        // A signal waits for the batch in hand to be written and acknowledged.
        yield* Effect.uninterruptible(handle(batch))
      }
    })
    const signal = yield* Effect.raceFirst(loop, untilSignal)
    console.error(`follow: stopped on ${signal}: ${counts()}`)
  }).pipe(Effect.scoped)
