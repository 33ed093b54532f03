/**
 * The JetStream side of the work queue, set up the same way by whoever comes first — a
 * driver, a worker, or `bun core workers`: the jobs stream (work-queue retention: a job is
 * gone once a worker acks it), the results stream, the presence stream, and the one durable
 * pull consumer every worker shares.
 *
 * The consumer's ack wait and maximum deliveries are the driver's to say (`workers.*` in the
 * config): a driver updates them when it starts, so a run's fault tolerance is its own.
 *
 * A worker given credentials that may only look (docs/examples/nats-workers.conf) finds
 * what a driver set up; before that, it is told in one line what is missing and who makes it.
 *
 * @example
 * const queue = await openQueue(nc, { ackWaitMs: 30_000, maxDeliveries: 3 })
 * await queue.js.publish(jobSubject(runId, jobId), body, { msgID: messageId(runId, jobId) })
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream"
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { JOBS_STREAM, RESULTS_STREAM, WORKERS_CONSUMER } from "./Protocol.ts"

/** Presence messages, one kept per worker, gone after `PRESENCE_TTL_MS` without an update. */
export const PRESENCE_STREAM = "CORE_WORKERS"
export const presenceSubject = (name: string): string => `coreq.workers.${name}`
export const PRESENCE_TTL_MS = 15_000
/** How often a worker says it is alive: well inside the time its presence lasts. */
export const PRESENCE_EVERY_MS = 3_000

export interface QueueSettings {
  /** How long a job may go without an ack or an in-progress heartbeat before it is delivered again. */
  readonly ackWaitMs: number
  /** Deliveries of one job before it is given up on (the driver then records an infra-error). */
  readonly maxDeliveries: number
}

export const DEFAULT_QUEUE: QueueSettings = { ackWaitMs: 30_000, maxDeliveries: 3 }

/** JetStream durations are nanoseconds. */
export const nanos = (ms: number): number => ms * 1_000_000

/** How long JetStream remembers a message id: a job re-published on resume within it is stored once. */
const DUPLICATE_WINDOW_MS = 60 * 60_000

export interface Queue {
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
}

const refused = (e: unknown): boolean => /permissions violation/i.test(e instanceof Error ? e.message : String(e))

/** Creating `what` was refused by the server: these are credentials that may not set the queue up (a worker's). */
const notSetUp = (what: string, e: unknown): unknown =>
  refused(e)
    ? new Error(
        `${what} does not exist and these NATS credentials may not create it: a driver sets the queue up (bun core run --workers queue, or bun core workers, with the driver's credentials)`
      )
    : e

const ensureStream = async (jsm: JetStreamManager, config: Parameters<JetStreamManager["streams"]["add"]>[0]) => {
  // A lookup the credentials may not make is said as it is, not taken for a missing stream.
  const existing = await jsm.streams.info(config.name).catch((e) => (refused(e) ? Promise.reject(e) : null))
  if (existing === null) await jsm.streams.add(config).catch((e) => Promise.reject(notSetUp(`stream ${config.name}`, e)))
}

/** The streams, and the workers' consumer with `settings` when given (a driver's), else as it is. */
export const openQueue = async (nc: NatsConnection, settings?: QueueSettings): Promise<Queue> => {
  if (nc.info?.jetstream !== true) throw new Error("JetStream is not enabled on this server (start nats-server with -js)")
  const jsm = await jetstreamManager(nc)
  await ensureStream(jsm, {
    name: JOBS_STREAM,
    subjects: ["coreq.jobs.>"],
    storage: StorageType.File,
    retention: RetentionPolicy.Workqueue,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS)
  })
  await ensureStream(jsm, {
    name: RESULTS_STREAM,
    subjects: ["coreq.results.>"],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    // A run reads its results as they come; a week covers any run and its resume.
    max_age: nanos(7 * 24 * 3_600_000)
  })
  await ensureStream(jsm, {
    name: PRESENCE_STREAM,
    subjects: ["coreq.workers.>"],
    storage: StorageType.Memory,
    retention: RetentionPolicy.Limits,
    max_msgs_per_subject: 1,
    max_age: nanos(PRESENCE_TTL_MS)
  })
  const consumer = await jsm.consumers.info(JOBS_STREAM, WORKERS_CONSUMER).catch((e) => (refused(e) ? Promise.reject(e) : null))
  const wanted = settings ?? DEFAULT_QUEUE
  if (consumer === null) {
    await jsm.consumers
      .add(JOBS_STREAM, {
        durable_name: WORKERS_CONSUMER,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(wanted.ackWaitMs),
        max_deliver: wanted.maxDeliveries,
        filter_subject: "coreq.jobs.>"
      })
      .catch((e) => Promise.reject(notSetUp(`consumer ${WORKERS_CONSUMER} of stream ${JOBS_STREAM}`, e)))
  } else if (
    settings !== undefined &&
    (consumer.config.ack_wait !== nanos(settings.ackWaitMs) || consumer.config.max_deliver !== settings.maxDeliveries)
  ) {
    await jsm.consumers.update(JOBS_STREAM, WORKERS_CONSUMER, { ack_wait: nanos(settings.ackWaitMs), max_deliver: settings.maxDeliveries })
  }
  return { js: jetstream(nc), jsm }
}

/** The subject JetStream tells of a job that reached its maximum deliveries on. */
export const MAX_DELIVERIES_ADVISORY = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${JOBS_STREAM}.${WORKERS_CONSUMER}`
