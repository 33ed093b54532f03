/**
 * The event store: the log every CORE step is written to, behind one interface with two
 * layers — JetStream (`JetStreamStore.ts`) and an embedded bun:sqlite file
 * (`EmbeddedStore.ts`) — that pass one conformance suite.
 *
 * A *commit* is one or more events of one stream, written atomically (one JetStream
 * message). Every append is conditional: `expectedRevision` is the stream's revision the
 * writer last saw (0 = the stream must not exist yet), and a stream's revision is the log
 * position of its last commit — JetStream's "last subject sequence". The commit id is a
 * hash of the events' ids, so a retry of a commit that already landed is recognised and
 * succeeds instead of writing a duplicate.
 *
 * @example
 * const store = yield* EventStore
 * const { revision } = yield* store.append("run.r1.run.r1", [started], { expectedRevision: 0 })
 */
import { Context, Effect, Schema, type Scope, type Stream } from "effect"
import type { CoreEvent, EventEncodeError } from "@core/events"

export interface AppendOptions {
  /** The stream's revision as the writer last saw it; 0 = a new stream. */
  readonly expectedRevision: number
}

export interface AppendResult {
  /** The stream's revision after this commit: pass it as the next `expectedRevision`. */
  readonly revision: number
  /** The commit's position in the whole log. */
  readonly position: number
}

/** An event as read back, with where it sits in the log. */
export interface RecordedEvent {
  readonly event: CoreEvent
  /** Log position of the commit that holds the event (shared by the events of one commit). */
  readonly position: number
  /** Index of the event inside its commit. */
  readonly index: number
  readonly commitId: string
}

export interface ReadAllOptions {
  /** First log position to read (inclusive); default 1. */
  readonly from?: number
  /**
   * Streams to read, as a NATS-style pattern over stream names: `run.r1.>` or
   * `ws.task.*`; default every stream.
   */
  readonly filter?: string
  /** Keep following new commits instead of ending at the log's end as of the call. */
  readonly live?: boolean
}

export interface SubscribeOptions {
  readonly filter?: string
}

/** Another writer got there first: re-read the stream and decide again. */
export class ConcurrencyError extends Schema.TaggedError<ConcurrencyError>()("ConcurrencyError", {
  stream: Schema.String,
  expected: Schema.Number,
  actual: Schema.Number
}) {
  override get message() {
    return `stream ${this.stream} is at revision ${this.actual}, not ${this.expected}: another writer appended first`
  }
}

/** The store cannot be reached or opened (NATS down, JetStream off, unreadable file). */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  store: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `event store ${this.store} is unavailable: ${this.reason}`
  }
}

/** A commit the store refuses as given (empty, mixed streams, too big for one message). */
export class InvalidAppend extends Schema.TaggedError<InvalidAppend>()("InvalidAppend", {
  stream: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot append to ${this.stream}: ${this.reason}`
  }
}

/** A stored event this build cannot decode; the log is untouched, the reader stops here. */
export class UnreadableEvent extends Schema.TaggedError<UnreadableEvent>()("UnreadableEvent", {
  position: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `event at log position ${this.position}: ${this.reason}`
  }
}

export type AppendError = ConcurrencyError | StoreUnavailable | InvalidAppend | EventEncodeError
export type ReadError = StoreUnavailable | UnreadableEvent

export interface EventStoreShape {
  /** "nats" or "embedded". */
  readonly kind: "nats" | "embedded"
  /** Where the log lives, for humans: `nats://127.0.0.1:4222 stream CORE` or a file path. */
  readonly location: string
  append(stream: string, events: ReadonlyArray<CoreEvent>, options: AppendOptions): Effect.Effect<AppendResult, AppendError>
  /** Every event of one stream, oldest first. Its revision is the last event's `position` (0 when empty). */
  readStream(stream: string): Effect.Effect<ReadonlyArray<RecordedEvent>, ReadError>
  /** The log in order, as a stream. */
  readAll(options?: ReadAllOptions): Stream.Stream<RecordedEvent, ReadError>
  /** Position of the last commit in the log (0 when empty). */
  head(): Effect.Effect<number, StoreUnavailable>
  /**
   * Runs `handler` on every event through a durable consumer `name`, acknowledging each
   * commit only after the handler succeeded for all its events: at-least-once, resuming
   * after a restart where the last acknowledgement left off. Handlers must be idempotent
   * by event id. Runs until interrupted or the handler fails.
   */
  subscribe<E, R>(
    name: string,
    handler: (event: RecordedEvent) => Effect.Effect<void, E, R>,
    options?: SubscribeOptions
  ): Effect.Effect<never, ReadError | E, R>
}

export class EventStore extends Context.Service<EventStore, EventStoreShape>()("@core/eventstore/EventStore") {}

/**
 * The commit id: a hash of the stream and its events' ids, stable across retries. It is
 * `digest([stream, ids])`, computed on the append hot path without the general canonical
 * JSON walk (for an array of strings, canonical JSON and JSON.stringify spell the same) and
 * with Bun's native sha256, a third of node:crypto's cost per call.
 */
export const commitId = (stream: string, events: ReadonlyArray<CoreEvent>): string =>
  Bun.SHA256.hash(JSON.stringify([stream, events.map((e) => e.id)]), "hex") as string

/** NATS-style pattern match over dot-separated stream names (`*` one token, `>` the rest). */
export const matchesFilter = (filter: string | undefined, stream: string): boolean => {
  if (filter === undefined || filter === ">") return true
  const f = filter.split(".")
  const s = stream.split(".")
  for (let i = 0; i < f.length; i++) {
    if (f[i] === ">") return s.length > i
    if (i >= s.length) return false
    if (f[i] !== "*" && f[i] !== s[i]) return false
  }
  return f.length === s.length
}

/** Checks shared by both layers before anything touches storage: what is wrong with a commit, if anything. */
export const commitProblem = (stream: string, events: ReadonlyArray<CoreEvent>, options: AppendOptions): InvalidAppend | undefined => {
  if (events.length === 0) return new InvalidAppend({ stream, reason: "a commit needs at least one event" })
  if (!Number.isInteger(options.expectedRevision) || options.expectedRevision < 0) {
    return new InvalidAppend({ stream, reason: `expectedRevision must be a non-negative integer, got ${options.expectedRevision}` })
  }
  const other = events.find((e) => e.stream !== stream)
  if (other) return new InvalidAppend({ stream, reason: `event ${other.id.slice(0, 12)} belongs to stream ${other.stream}` })
  return undefined
}

/** {@link commitProblem} as an effect. */
export const validateCommit = (
  stream: string,
  events: ReadonlyArray<CoreEvent>,
  options: AppendOptions
): Effect.Effect<void, InvalidAppend> => {
  const problem = commitProblem(stream, events, options)
  return problem ? Effect.fail(problem) : Effect.void
}

/** The stored body of a commit: its id and its events' JSON, in order. */
export interface CommitBody {
  readonly commitId: string
  readonly events: ReadonlyArray<unknown>
}

export type { Scope }
