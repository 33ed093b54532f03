/**
 * Blobs as files: `<dir>/<first 2 hex>/<sha256>`. The embedded default, needing no server.
 */
import { randomUUID } from "node:crypto"
import { mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { Effect, Layer } from "effect"
import { BlobCorrupt, BlobNotFound, BlobStore, BlobStoreError, checkHash, describeCause, sha256Hex } from "./BlobStore.ts"

export interface DirectoryBlobStoreOptions {
  /** Root directory, created if missing; relative paths resolve against the cwd. Default `.core/blobs`. */
  readonly dir?: string
}

export const defaultDir = ".core/blobs"

const isNotFound = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOENT"

/** Without fsyncing the directory, a crash can forget a rename that already returned. */
const syncDir = async (path: string): Promise<void> => {
  const handle = await open(path, "r")
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

const writeAtomically = async (path: string, bytes: Uint8Array): Promise<void> => {
  const parent = dirname(path)
  const created = await mkdir(parent, { recursive: true })
  // A dot-prefixed, non-hex name is never mistaken for a blob, even if a crash strands it.
  const temp = join(parent, `.tmp-${process.pid}-${randomUUID()}`)
  try {
    const handle = await open(temp, "wx")
    try {
      await handle.writeFile(bytes)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, path)
  } catch (cause) {
    await unlink(temp).catch(() => undefined)
    throw cause
  }
  await syncDir(parent)
  if (created !== undefined) await syncDir(dirname(parent))
}

export const make = Effect.fnUntraced(function*(options: DirectoryBlobStoreOptions = {}) {
  const root = resolve(options.dir ?? defaultDir)
  yield* Effect.tryPromise({
    try: () => mkdir(root, { recursive: true }),
    catch: (cause) => new BlobStoreError({ reason: `cannot create blob directory ${root}: ${describeCause(cause)}` })
  })

  const pathOf = (hash: string) => join(root, hash.slice(0, 2), hash)
  const failure = (what: string) => (cause: unknown) =>
    new BlobStoreError({ reason: `${what} in ${root}: ${describeCause(cause)}` })

  const put = Effect.fn("DirectoryBlobStore.put")(function*(bytes: Uint8Array) {
    const hash = sha256Hex(bytes)
    const path = pathOf(hash)
    yield* Effect.tryPromise({
      try: async () => {
        const existing = await stat(path).catch((cause) => isNotFound(cause) ? undefined : Promise.reject(cause))
        // Same size under a content address is taken as present; a file of the wrong size
        // can only be damage, so it is rewritten rather than left to fail every get.
        if (existing?.isFile() && existing.size === bytes.byteLength) return
        await writeAtomically(path, bytes)
      },
      catch: failure(`cannot write blob ${hash}`)
    })
    return hash
  })

  const get = Effect.fn("DirectoryBlobStore.get")(function*(hash: string) {
    yield* checkHash(hash)
    const buffer = yield* Effect.tryPromise({
      try: () => readFile(pathOf(hash)),
      catch: (cause) => isNotFound(cause) ? new BlobNotFound({ hash }) : failure(`cannot read blob ${hash}`)(cause)
    })
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    const actual = sha256Hex(bytes)
    if (actual !== hash) return yield* new BlobCorrupt({ hash, actual })
    return bytes
  })

  const has = Effect.fn("DirectoryBlobStore.has")(function*(hash: string) {
    yield* checkHash(hash)
    return yield* Effect.tryPromise({
      try: () =>
        stat(pathOf(hash)).then(
          (stats) => stats.isFile(),
          (cause) => isNotFound(cause) ? false : Promise.reject(cause)
        ),
      catch: failure(`cannot look up blob ${hash}`)
    })
  })

  return BlobStore.of({ kind: "directory", put, get, has })
})

export const layer = (options: DirectoryBlobStoreOptions = {}): Layer.Layer<BlobStore, BlobStoreError> =>
  Layer.effect(BlobStore, make(options))
