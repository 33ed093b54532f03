/**
 * Blobs as files: `<dir>/<first 2 hex>/<sha256>`. The embedded default, needing no server.
 * A write goes through `<dir>/.tmp/` and a rename; what a crash strands there is swept when
 * a store is next opened. Directories are made 0700 and files 0600: blobs are screenshots
 * of whatever the agent saw, for their owner alone.
 */
import { randomUUID } from "node:crypto"
import { chmod, mkdir, open, readdir, readFile, rename, stat, unlink } from "node:fs/promises"
import { dirname, join, resolve } from "node:path"
import { Effect, Layer } from "effect"
import { BlobCorrupt, BlobNotFound, BlobStore, BlobStoreError, checkHash, describeCause } from "./BlobStore.ts"
import { sha256 } from "@core/events"

export interface DirectoryBlobStoreOptions {
  /** Root directory, created if missing; relative paths resolve against the cwd. Default `.core/blobs`. */
  readonly dir?: string
}

export const defaultDir = ".core/blobs"

/** Where writes stage their bytes; on the same file system as the blobs, so the rename is atomic. */
const TEMP_DIR = ".tmp"

/**
 * A temp file older than this is a crashed write's. Younger ones are left alone: another
 * process sharing the directory may be writing it right now.
 */
export const STALE_TEMP_MS = 60 * 60 * 1000

/** Creates `dir` and any missing parents for the owner only; an existing directory keeps its mode. */
const mkdirPrivate = async (dir: string): Promise<string | undefined> => {
  const created = await mkdir(dir, { recursive: true, mode: 0o700 })
  // mkdir's mode passes through the umask; the chmod makes 0700 exact whatever it is.
  if (created !== undefined) {
    for (let d = resolve(dir); ; d = dirname(d)) {
      await chmod(d, 0o700)
      if (d === resolve(created) || d === dirname(d)) break
    }
  }
  return created
}

/** Removes the stale temp files in `dir`; one that vanishes meanwhile was another sweeper's. */
const sweepTemps = async (dir: string, now: number): Promise<void> => {
  const names = await readdir(dir).catch((cause) => (isNotFound(cause) ? [] : Promise.reject(cause)))
  for (const name of names) {
    if (!name.startsWith(".tmp-")) continue
    const path = join(dir, name)
    const stats = await stat(path).catch(() => undefined)
    if (stats?.isFile() && now - stats.mtimeMs > STALE_TEMP_MS) await unlink(path).catch(() => undefined)
  }
}

const isNotFound = (cause: unknown): boolean => typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOENT"

/** Without fsyncing the directory, a crash can forget a rename that already returned. */
const syncDir = async (path: string): Promise<void> => {
  const handle = await open(path, "r")
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

const writeAtomically = async (path: string, bytes: Uint8Array, tempDir: string): Promise<void> => {
  const parent = dirname(path)
  const created = await mkdirPrivate(parent)
  // A dot-prefixed, non-hex name is never mistaken for a blob, even if a crash strands it.
  const temp = join(tempDir, `.tmp-${process.pid}-${randomUUID()}`)
  try {
    const handle = await open(temp, "wx", 0o600)
    try {
      await handle.chmod(0o600)
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

export const make = Effect.fnUntraced(function* (options: DirectoryBlobStoreOptions = {}) {
  const root = resolve(options.dir ?? defaultDir)
  const tempDir = join(root, TEMP_DIR)
  yield* Effect.tryPromise({
    try: async () => {
      await mkdirPrivate(tempDir)
      // Best effort: leftovers cost disk space, and must not keep the store from opening.
      await sweepTemps(tempDir, Date.now()).catch(() => undefined)
    },
    catch: (cause) => new BlobStoreError({ reason: `cannot create blob directory ${root}: ${describeCause(cause)}` })
  })

  const pathOf = (hash: string) => join(root, hash.slice(0, 2), hash)
  const failure = (what: string) => (cause: unknown) => new BlobStoreError({ reason: `${what} in ${root}: ${describeCause(cause)}` })

  const put = Effect.fn("DirectoryBlobStore.put")(function* (bytes: Uint8Array) {
    const hash = sha256(bytes)
    const path = pathOf(hash)
    yield* Effect.tryPromise({
      try: async () => {
        const existing = await stat(path).catch((cause) => (isNotFound(cause) ? undefined : Promise.reject(cause)))
        // Same size under a content address is taken as present; a file of the wrong size
        // can only be damage, so it is rewritten rather than left to fail every get.
        if (existing?.isFile() && existing.size === bytes.byteLength) return
        await writeAtomically(path, bytes, tempDir)
      },
      catch: failure(`cannot write blob ${hash}`)
    })
    return hash
  })

  const get = Effect.fn("DirectoryBlobStore.get")(function* (hash: string) {
    yield* checkHash(hash)
    const buffer = yield* Effect.tryPromise({
      try: () => readFile(pathOf(hash)),
      catch: (cause) => (isNotFound(cause) ? new BlobNotFound({ hash }) : failure(`cannot read blob ${hash}`)(cause))
    })
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    const actual = sha256(bytes)
    if (actual !== hash) return yield* new BlobCorrupt({ hash, actual })
    return bytes
  })

  const has = Effect.fn("DirectoryBlobStore.has")(function* (hash: string) {
    yield* checkHash(hash)
    return yield* Effect.tryPromise({
      try: () =>
        stat(pathOf(hash)).then(
          (stats) => stats.isFile(),
          (cause) => (isNotFound(cause) ? false : Promise.reject(cause))
        ),
      catch: failure(`cannot look up blob ${hash}`)
    })
  })

  return BlobStore.of({ kind: "directory", put, get, has })
})

export const layer = (options: DirectoryBlobStoreOptions = {}): Layer.Layer<BlobStore, BlobStoreError> =>
  Layer.effect(BlobStore, make(options))
