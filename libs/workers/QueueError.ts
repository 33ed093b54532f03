/**
 * The work queue failing the driver or a worker: the queue's streams unreachable or refused,
 * a job that could not be queued through an outage, a result that could not be published, a
 * data directory's queue key unusable. One tagged class, so the command line has one line
 * for all of them and a caller can tell them from its other failures by type.
 *
 * @example
 * Effect.tryPromise({ try: () => openQueue(nc), catch: (e) => new QueueError({ message: `work queue: ${describe(e)}` }) })
 */
import { Schema } from "effect"

/** What the queue could not do, worded for a person: the step leads the message. */
export class QueueError extends Schema.TaggedError<QueueError>()("QueueError", { message: Schema.String }) {}
