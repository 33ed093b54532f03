/**
 * Dataset records as the files a trainer reads (apps/cli/DATASETS.md): one JSON line per
 * record and its images as PNG files in `images/` beside the JSONL, so the directory is
 * self-contained and can be copied anywhere. Shared by `dataset export` and `dataset follow`,
 * so that both write byte-identical lines for the same record.
 */
import { Effect } from "effect"
import { BlobStore, isBlobHash } from "@core/blobstore"
import type { CoreEvent, DatasetRecordEmitted, DataOf } from "@core/events"
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, truncateSync, writeSync } from "node:fs"
import { join } from "node:path"
import { CliError } from "./Cli.ts"

export type RecordData = DataOf<typeof DatasetRecordEmitted>

export const IMAGES_DIR = "images"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The PNG hashes a record body names in its top-level `images`; the rest of the body is opaque. */
export const imageHashes = (body: unknown): ReadonlyArray<string> =>
  isRecord(body) && Array.isArray(body.images) ? body.images.filter(isBlobHash) : []

/** Where an image sits relative to the JSONL file's directory. */
export const imagePath = (hash: string): string => `${IMAGES_DIR}/${hash}.png`

/**
 * The record's JSONL line (no newline). `images: "paths"` rewrites image hashes to
 * `images/<hash>.png`, for a file that has its images beside it; `"hashes"` keeps them, for
 * stdout, where there is no directory to put images in.
 */
export const recordLine = (runId: string, d: RecordData, images: "paths" | "hashes"): string => {
  const line: Record<string, unknown> = {
    record_id: d.recordId,
    run_id: runId,
    round: d.round,
    format: d.format,
    task_id: d.taskId,
    trajectory_ids: d.trajectoryIds
  }
  if (isRecord(d.body)) {
    for (const [k, v] of Object.entries(d.body)) {
      // The record's identity comes from the event; a body key of the same name must not replace it.
      if (k in line) continue
      line[k] = k === "images" && images === "paths" && Array.isArray(v) ? v.map((h) => (isBlobHash(h) ? imagePath(h) : h)) : v
    }
  } else line.body = d.body
  return JSON.stringify(line)
}

/** The run an event of a `run.<runId>.…` stream belongs to. */
export const runIdOf = (e: CoreEvent): string => e.runId ?? e.stream.split(".")[1] ?? ""

const fsError = (what: string) => (e: unknown) =>
  new CliError({ message: `${what}: ${e instanceof Error ? e.message : String(e)}`.replace(/\s*\n\s*/g, "; ") })

/** Makes a directory entry (a rename, a new file) survive a power loss, not just a crash. */
export const syncDir = (dir: string): void => {
  const fd = openSync(dir, "r")
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

const writeAll = (fd: number, data: Uint8Array | string): void => {
  const bytes = typeof data === "string" ? Buffer.from(data) : data
  let off = 0
  while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off)
}

/** Writes `path` through `<path>.tmp` and a rename, so no reader ever sees half of it. */
export const writeFileDurably = (path: string, chunks: Iterable<Uint8Array | string>): void => {
  const tmp = `${path}.tmp`
  const fd = openSync(tmp, "w")
  try {
    for (const c of chunks) writeAll(fd, c)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, path)
}

/**
 * The images directory beside a JSONL file. An image file exists only complete (written
 * through a rename), so "present" means "done" and a restart skips it.
 */
export const makeImageWriter = (dir: string) => {
  const imagesDir = join(dir, IMAGES_DIR)
  const known = new Set<string>()
  let written = 0
  let dirty = false
  const ensure = Effect.fnUntraced(function* (hashes: Iterable<string>, recordId: string) {
    const blobs = yield* BlobStore
    for (const hash of hashes) {
      if (known.has(hash)) continue
      const path = join(imagesDir, `${hash}.png`)
      if (!existsSync(path)) {
        const bytes = yield* blobs.get(hash).pipe(
          Effect.mapError((e) => new CliError({ message: `image ${hash} of record ${recordId}: ${e.message}` }))
        )
        yield* Effect.try({
          try: () => {
            mkdirSync(imagesDir, { recursive: true })
            writeFileDurably(path, [bytes])
          },
          catch: fsError(`cannot write ${path}`)
        })
        written++
        dirty = true
      }
      known.add(hash)
    }
  })
  /** Syncs the directory once for all images written since the last call. */
  const sync = Effect.try({
    try: () => {
      if (dirty) syncDir(imagesDir)
      dirty = false
    },
    catch: fsError(`cannot sync ${imagesDir}`)
  })
  return { ensure, sync, written: () => written, referenced: () => known.size }
}

/**
 * The record ids already in a JSONL file a follower appends to. A crash can leave only the
 * last line torn (lines are appended, and acknowledged only after an fsync), so a last line
 * without its newline is cut away: its record was never acknowledged and will come again.
 * Any other unreadable line means the file is not ours, and nothing is appended to it.
 */
export const readRecordIds = (path: string): Effect.Effect<{ ids: Set<string>; tornBytes: number }, CliError> =>
  Effect.try({
    try: () => {
      const ids = new Set<string>()
      if (!existsSync(path)) return { ids, tornBytes: 0 }
      // Whole-file read: simple, and a follower reads it once per start.
      const buf = readFileSync(path)
      const end = buf.lastIndexOf(0x0a) + 1
      const tornBytes = buf.byteLength - end
      if (tornBytes > 0) truncateSync(path, end)
      const lines = buf.subarray(0, end).toString("utf8").split("\n")
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i]!
        if (l === "") continue
        let id: unknown
        try {
          id = (JSON.parse(l) as { record_id?: unknown }).record_id
        } catch {
          id = undefined
        }
        if (typeof id !== "string") throw new Error(`line ${i + 1} is not a dataset record line; refusing to append to this file`)
        ids.add(id)
      }
      return { ids, tornBytes }
    },
    catch: fsError(path)
  })

/** An append-only JSONL file: each `append` is on disk before it returns. */
export const openAppendFile = (path: string) =>
  Effect.acquireRelease(
    Effect.try({ try: () => openSync(path, "a"), catch: fsError(`cannot open ${path}`) }),
    (fd) => Effect.sync(() => closeSync(fd))
  ).pipe(
    Effect.map((fd) => ({
      append: (text: string) =>
        Effect.try({
          try: () => {
            writeAll(fd, text)
            fsyncSync(fd)
          },
          catch: fsError(`cannot append to ${path}`)
        })
    }))
  )
