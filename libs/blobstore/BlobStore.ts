/**
 * The blob store: screenshots, DOM / accessibility snapshots and traces, content-addressed
 * by sha256 so events can carry a hash instead of the bytes (an event is at most 256 KB).
 * Two layers pass one conformance suite: files in a directory (`DirectoryBlobStore`, the
 * embedded default) and a JetStream Object Store bucket (`JetStreamBlobStore`).
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const blobs = yield* BlobStore
 *   const hash = yield* blobs.put(screenshot) // sha256 hex; putting it again is a no-op
 *   const bytes = yield* blobs.get(hash) // verified against the hash, or BlobCorrupt
 * })
 * Effect.runPromise(Effect.provide(program, DirectoryBlobStore.layer({ dir: ".core/blobs" })))
 */
import { Context, Effect, Schema } from "effect"

/** A blob's name: the sha256 of its bytes as 64 lower-case hex characters. */
export const BlobHash = Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/))

export const isBlobHash: (u: unknown) => u is string = Schema.is(BlobHash)

export class BlobNotFound extends Schema.TaggedError<BlobNotFound>()("BlobNotFound", {
  hash: Schema.String
}) {
  override get message() {
    return `blob ${this.hash} not found`
  }
}

/**
 * The stored bytes no longer hash to their name (disk corruption, tampering, a bad chunk);
 * they are never returned.
 */
export class BlobCorrupt extends Schema.TaggedError<BlobCorrupt>()("BlobCorrupt", {
  hash: Schema.String,
  /** What the stored bytes actually hash to ("unknown" when the backend could not say). */
  actual: Schema.String
}) {
  override get message() {
    return `blob ${this.hash} is corrupt: its stored bytes hash to ${this.actual}`
  }
}

/** The store cannot do the work: unreachable server, I/O failure, or a malformed hash. */
export class BlobStoreError extends Schema.TaggedError<BlobStoreError>()("BlobStoreError", {
  reason: Schema.String
}) {
  override get message() {
    return `blob store: ${this.reason}`
  }
}

export class BlobStore extends Context.Service<
  BlobStore,
  {
    readonly kind: "nats" | "directory"
    /** Stores the bytes under their sha256 and returns it; idempotent. */
    put(bytes: Uint8Array): Effect.Effect<string, BlobStoreError>
    /** The bytes stored under `hash`, checked against it. */
    get(hash: string): Effect.Effect<Uint8Array, BlobNotFound | BlobCorrupt | BlobStoreError>
    has(hash: string): Effect.Effect<boolean, BlobStoreError>
  }
>()("@core/blobstore/BlobStore") {}

/** Error messages must stay one line: NATS errors carry newlines and stack-like detail. */
export const describeCause = (cause: unknown): string => {
  const text = cause instanceof Error ? cause.message : String(cause)
  return text.replace(/\s*\n\s*/g, " ").trim() || "unknown error"
}

/**
 * A hash reaches a file path or a NATS subject, so anything but 64 lower-case hex is
 * refused before it can traverse a directory or widen a subject.
 */
export const checkHash = (hash: string): Effect.Effect<string, BlobStoreError> =>
  isBlobHash(hash)
    ? Effect.succeed(hash)
    : Effect.fail(
        new BlobStoreError({
          reason: `invalid blob hash ${JSON.stringify(String(hash).slice(0, 80))}: expected 64 lower-case hex characters`
        })
      )
