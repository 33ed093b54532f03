/**
 * Two buckets for work queue blobs, so that a worker never writes the store older runs'
 * replays read from. A worker puts its observations into a staging store (the uploads
 * bucket) and reads from the main store first (the retrieval model the driver put there).
 * The driver, checking a worker's record, reads each blob from the main store or else from
 * the uploads, and promotes what it read into the main store: `get` checks every blob
 * against its hash, so only bytes that are what the record names get there.
 *
 * A worker able to write the main bucket could wipe it: the object store's metadata
 * subjects take a rollup header, and NATS permissions go by subject, not header. With
 * staging, the worst it can do to the uploads bucket is lose the episodes in flight.
 *
 * @example
 * Layer.succeed(BlobStore, staged(main, uploads))    // a worker's store
 * Layer.succeed(BlobStore, promoting(main, uploads)) // the driver's check
 */
import { Effect } from "effect"
import { BlobStore } from "./BlobStore.ts"
import type { BlobStoreError } from "./BlobStore.ts"

type Store = BlobStore["Service"]

/** Reads the main store, then the uploads; `get`'s hash check applies to whichever answered. */
const readEither = (main: Store, uploads: Store, hash: string, onUpload: (bytes: Uint8Array) => Effect.Effect<unknown, BlobStoreError>) =>
  main.get(hash).pipe(Effect.catchTag("BlobNotFound", () => Effect.tap(uploads.get(hash), onUpload)))

const hasEither = (main: Store, uploads: Store, hash: string) =>
  Effect.flatMap(main.has(hash), (found) => (found ? Effect.succeed(true) : uploads.has(hash)))

/** A worker's store: puts go to the uploads, reads to the main store first. */
export const staged = (main: Store, uploads: Store): Store =>
  BlobStore.of({
    kind: main.kind,
    put: (bytes) => uploads.put(bytes),
    get: (hash) => readEither(main, uploads, hash, () => Effect.void),
    has: (hash) => hasEither(main, uploads, hash)
  })

/** The driver's store while it checks a record: a blob found only in the uploads is copied into the main store as it is read. */
export const promoting = (main: Store, uploads: Store): Store =>
  BlobStore.of({
    kind: main.kind,
    put: (bytes) => main.put(bytes),
    get: (hash) => readEither(main, uploads, hash, (bytes) => main.put(bytes)),
    has: (hash) => hasEither(main, uploads, hash)
  })
