/**
 * Blobs in a JetStream Object Store bucket, one object per blob named by its sha256. The
 * object store chunks large blobs itself (128 KB chunks, under NATS's 1 MB message limit)
 * and records a SHA-256 digest of the whole object, which is what `put` compares against.
 * Uses only what nats-server 2.9 offers.
 */
import { createHash } from "node:crypto"
import { Objm, StorageType } from "@nats-io/obj"
import type { ObjectInfo, ObjectStore } from "@nats-io/obj"
import { connectNats, DEFAULT_OUTAGE_LIMIT_MS, displayNatsUrl, isTransientNatsError, throughOutages, watchLink } from "@core/eventstore"
import type { NatsCredentials } from "@core/eventstore"
import { Effect, Layer } from "effect"
import { BlobCorrupt, BlobNotFound, BlobStore, BlobStoreError, checkHash, describeCause } from "./BlobStore.ts"
import { sha256 } from "@core/events"

export interface JetStreamBlobStoreOptions {
  /** Default `nats://127.0.0.1:4222`. */
  readonly url?: string
  /** Object store bucket, created (file storage) if missing. Default `core-blobs`. */
  readonly bucket?: string
  readonly credentials?: NatsCredentials
  /** How long a put or get waits through an outage for the server to come back; default 10 minutes. */
  readonly outageLimitMs?: number
  /** How long the bucket keeps an object, when this creates it; default for good. */
  readonly ttlMs?: number
}

export const defaultUrl = "nats://127.0.0.1:4222"
export const defaultBucket = "core-blobs"

/** The object store's own digest format: `SHA-256=` + padded base64url of the raw hash. */
const objectDigest = (bytes: Uint8Array): string =>
  `SHA-256=${createHash("sha256").update(bytes).digest("base64").replace(/\+/g, "-").replace(/\//g, "_")}`

const present = (info: ObjectInfo | null): info is ObjectInfo => info !== null && !info.deleted

/** A backstop for a request the client never answers; its own request timeout (5 s) comes first. */
const ATTEMPT_TIMEOUT_MS = 30_000

const bounded = <A>(run: () => Promise<A>): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms (timeout)`)), ATTEMPT_TIMEOUT_MS)
    run()
      .then(resolve, reject)
      .finally(() => clearTimeout(timer))
  })

export const make = Effect.fnUntraced(function* (options: JetStreamBlobStoreOptions = {}) {
  const url = displayNatsUrl(options.url ?? defaultUrl)
  const bucket = options.bucket ?? defaultBucket
  const outageLimitMs = options.outageLimitMs ?? DEFAULT_OUTAGE_LIMIT_MS

  const nc = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () => connectNats(options.url ?? defaultUrl, options.credentials ?? {}, "core-blobstore"),
      catch: (cause) => new BlobStoreError({ reason: `cannot connect to NATS at ${url}: ${describeCause(cause)}` })
    }),
    (nc) => Effect.tryPromise(() => nc.close()).pipe(Effect.ignore)
  )
  const link = watchLink(nc)
  // A blob put or read during an outage waits for the server (the work pauses), and one that
  // timed out on a busy server is tried again: failing it would fail a whole episode or replay.
  const patiently = <A>(run: () => Promise<A>) =>
    throughOutages(Effect.tryPromise({ try: () => bounded(run), catch: (cause) => cause }), {
      link,
      outageLimitMs,
      transient: isTransientNatsError
    })

  const os: ObjectStore = yield* Effect.tryPromise({
    try: () =>
      new Objm(nc).create(bucket, {
        storage: StorageType.File,
        ...(options.ttlMs === undefined ? {} : { ttl: options.ttlMs * 1_000_000 })
      }),
    catch: (cause) => {
      const text = describeCause(cause)
      // Credentials that may only use the bucket (a worker's, docs/examples/nats-workers.conf) cannot make it.
      return new BlobStoreError({
        reason: /permissions violation for publish to "\$JS\.API\.STREAM\.CREATE\./i.test(text)
          ? `object store bucket ${JSON.stringify(bucket)} does not exist at ${url} and these NATS credentials may not create it: a driver's run (bun core run --store nats) creates it`
          : `cannot open object store bucket ${JSON.stringify(bucket)} at ${url}: ${text}`
      })
    }
  })

  const attempt = <A>(what: string, run: () => Promise<A>) =>
    patiently(run).pipe(
      Effect.mapError(
        (cause) => new BlobStoreError({ reason: `${what} in bucket ${JSON.stringify(bucket)} at ${url}: ${describeCause(cause)}` })
      )
    )

  const put = Effect.fn("JetStreamBlobStore.put")(function* (bytes: Uint8Array) {
    const hash = sha256(bytes)
    const digest = objectDigest(bytes)
    const existing = yield* attempt(`cannot look up blob ${hash}`, () => os.info(hash))
    // An object under this name whose digest differs is damage; it is replaced, not kept.
    if (present(existing) && existing.digest === digest && existing.size === bytes.byteLength) return hash
    yield* attempt(`cannot write blob ${hash}`, async () => {
      try {
        // Conditional on the revision just seen, so concurrent writers of one blob cannot
        // both land; the object store purges the loser's chunks.
        await os.putBlob({ name: hash }, bytes, { previousRevision: existing?.revision ?? 0 })
      } catch (cause) {
        const now = await os.info(hash)
        if (!(present(now) && now.digest === digest)) throw cause
      }
    })
    return hash
  })

  const get = Effect.fn("JetStreamBlobStore.get")(function* (hash: string) {
    yield* checkHash(hash)
    const bytes = yield* patiently(() => os.getBlob(hash)).pipe(
      Effect.mapError((cause) => {
        const text = describeCause(cause)
        // The object store checks the chunks against the object's digest while streaming.
        if (text.includes("digests do not match")) {
          return new BlobCorrupt({ hash, actual: /computed: SHA-256 ([0-9a-f]{64})/.exec(text)?.[1] ?? "unknown" })
        }
        return new BlobStoreError({
          reason: `cannot read blob ${hash} in bucket ${JSON.stringify(bucket)} at ${url}: ${text}`
        })
      })
    )
    if (bytes === null) return yield* new BlobNotFound({ hash })
    // The object digest only proves the chunks match the metadata; the name is checked too.
    const actual = sha256(bytes)
    if (actual !== hash) return yield* new BlobCorrupt({ hash, actual })
    return bytes
  })

  const has = Effect.fn("JetStreamBlobStore.has")(function* (hash: string) {
    yield* checkHash(hash)
    const info = yield* attempt(`cannot look up blob ${hash}`, () => os.info(hash))
    return present(info)
  })

  return BlobStore.of({ kind: "nats", put, get, has })
})

/** Holds one NATS connection for the layer's lifetime and closes it when the layer's scope ends. */
export const layer = (options: JetStreamBlobStoreOptions = {}): Layer.Layer<BlobStore, BlobStoreError> =>
  Layer.effect(BlobStore, make(options))
