/**
 * The stored form of a commit, shared by both layers so that a log copied from one store
 * to the other reads the same: `{"commitId": …, "events": [<event JSON>, …]}`.
 */
import { Effect, Result, Stream } from "effect"
import { catalog } from "@core/events"
import type { CoreEvent, EventEncodeError } from "@core/events"
import { commitId, commitProblem, InvalidAppend, StoreUnavailable, UnreadableEvent } from "./EventStore.ts"
import type { AppendOptions, RecordedEvent } from "./EventStore.ts"

/** One commit is one NATS message; NATS refuses messages over 1 MB by default. */
export const MAX_COMMIT_BYTES = 1024 * 1024 - 4096

/**
 * Encodes a commit body, refusing oversize events (EventTooLarge) and commits. As with an
 * event, the exact UTF-8 byte count is only taken when the text is long enough that it
 * could be over the limit (a UTF-16 code unit is at most three bytes).
 */
export const encodeCommit = (
  stream: string,
  id: string,
  events: ReadonlyArray<CoreEvent>
): Result.Result<string, EventEncodeError | InvalidAppend> => {
  const parts: Array<string> = []
  let length = 0
  for (const e of events) {
    const enc = catalog.encodeJson(e)
    if (Result.isFailure(enc)) return enc
    parts.push(enc.success)
    length += enc.success.length
  }
  if (length * 3 > MAX_COMMIT_BYTES) {
    // The count the message has always given: the events' bytes, without the wrapper.
    let bytes = 0
    for (const p of parts) bytes += Buffer.byteLength(p)
    if (bytes > MAX_COMMIT_BYTES) {
      return Result.fail(
        new InvalidAppend({
          stream,
          reason: `commit of ${events.length} events is ${bytes} bytes, over the ${MAX_COMMIT_BYTES}-byte message limit: split it into several commits`
        })
      )
    }
  }
  const joined = parts.length === 1 ? parts[0] : parts.join(",")
  return Result.succeed(`{"commitId":${JSON.stringify(id)},"events":[${joined}]}`)
}

/** Everything both layers do before a commit touches storage: check it, name it, encode it. */
export const prepareCommit = (
  stream: string,
  events: ReadonlyArray<CoreEvent>,
  options: AppendOptions
): Result.Result<{ readonly id: string; readonly body: string }, EventEncodeError | InvalidAppend> => {
  const invalid = commitProblem(stream, events, options)
  if (invalid) return Result.fail(invalid)
  const id = commitId(stream, events)
  const body = encodeCommit(stream, id, events)
  return Result.isFailure(body) ? Result.fail(body.failure) : Result.succeed({ id, body: body.success })
}

/** Decodes a stored commit into recorded events, or says in one line why it cannot. */
export const decodeCommit = (body: string, position: number): Result.Result<Array<RecordedEvent>, UnreadableEvent> => {
  let parsed: { commitId?: unknown; events?: unknown }
  try {
    parsed = JSON.parse(body)
  } catch {
    return Result.fail(new UnreadableEvent({ position, reason: "commit is not JSON (was it written by core?)" }))
  }
  if (typeof parsed?.commitId !== "string" || !Array.isArray(parsed.events)) {
    return Result.fail(new UnreadableEvent({ position, reason: "commit has no commitId/events (was it written by core?)" }))
  }
  const out: Array<RecordedEvent> = []
  for (let index = 0; index < parsed.events.length; index++) {
    const d = catalog.decode(parsed.events[index])
    if (Result.isFailure(d)) return Result.fail(new UnreadableEvent({ position, reason: d.failure.message.replace(/\s*\n\s*/g, "; ") }))
    out.push({ event: d.success, position, index, commitId: parsed.commitId })
  }
  return Result.succeed(out)
}

/**
 * Turns a batch generator into a Stream. Batches keep the per-element overhead of the
 * Stream machinery off the hot path; the generator's `finally` releases consumers when
 * the stream ends or is interrupted.
 */
export const streamOfBatches = (
  batches: () => AsyncGenerator<Array<RecordedEvent>>,
  store: string
): Stream.Stream<RecordedEvent, StoreUnavailable | UnreadableEvent> =>
  Stream.suspend(() =>
    Stream.fromAsyncIterable(batches(), (e) =>
      e instanceof UnreadableEvent || e instanceof StoreUnavailable
        ? e
        : new StoreUnavailable({ store, reason: e instanceof Error ? e.message : String(e) })
    ).pipe(Stream.flattenIterable)
  )

/** All of a stream's events, oldest first, from a layer's batch generator. */
export const collectBatches = (
  batches: () => AsyncGenerator<Array<RecordedEvent>>,
  unavailable: (e: unknown) => StoreUnavailable
): Effect.Effect<ReadonlyArray<RecordedEvent>, StoreUnavailable | UnreadableEvent> =>
  Effect.tryPromise({
    try: async () => {
      const out: Array<RecordedEvent> = []
      for await (const b of batches()) for (const r of b) out.push(r)
      return out
    },
    catch: (e) => (e instanceof UnreadableEvent ? e : unavailable(e))
  })
