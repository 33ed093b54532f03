/**
 * Dataset records as the files a trainer reads (docs/datasets.md): one JSON line per
 * record and its images as PNG files in `images/` beside the JSONL, so the directory is
 * self-contained and can be copied anywhere. Shared by `dataset export` and `dataset follow`,
 * so that both write byte-identical lines for the same record.
 */
import { Effect } from "effect"
import { BlobStore, isBlobHash } from "@core/blobstore"
import { runOfStream } from "@core/events"
import type { CoreEvent, DatasetRecordEmitted, DataOf } from "@core/events"
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeSync
} from "node:fs"
import { basename, dirname, join } from "node:path"
import { DatasetError } from "./DatasetError.ts"

export type RecordData = DataOf<typeof DatasetRecordEmitted>

export const IMAGES_DIR = "images"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The PNG hashes a record body names in its top-level `images`; the rest of the body is opaque. */
export const imageHashes = (body: unknown): ReadonlyArray<string> =>
  isRecord(body) && Array.isArray(body.images) ? body.images.filter(isBlobHash) : []

/**
 * A record as an export that asks for the set-of-marks images reads it: `images` are the
 * marked ones where the episode took them (`marked_images`, the plain screenshot where it
 * did not). With "plain", or a body without marks, the record is as emitted.
 */
export const withImages = (data: RecordData, images: "plain" | "marked"): RecordData => {
  const body = data.body as unknown
  if (images === "plain" || !isRecord(body) || !Array.isArray(body.marked_images)) return data
  const { marked_images, ...rest } = body
  return { ...data, body: { ...rest, images: marked_images } as RecordData["body"] }
}

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
export const runIdOf = (e: CoreEvent): string => e.runId ?? runOfStream(e.stream) ?? ""

const fsError = (what: string) => (e: unknown) =>
  new DatasetError({ message: `${what}: ${e instanceof Error ? e.message : String(e)}`.replace(/\s*\n\s*/g, "; ") })

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

/**
 * Creates `dir` for its owner only when missing (an existing directory keeps its mode):
 * exported records hold what the agent saw and typed.
 */
export const mkdirPrivate = (dir: string): void => {
  // mkdir's mode passes through the umask; chmod makes 0700 exact whatever it is.
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700)
}

/** Writes `path` (mode 0600) through `<path>.tmp` and a rename, so no reader ever sees half of it. */
export const writeFileDurably = (path: string, chunks: Iterable<Uint8Array | string>): void => {
  const tmp = `${path}.tmp`
  const fd = openSync(tmp, "w", 0o600)
  try {
    fchmodSync(fd, 0o600)
    for (const c of chunks) writeAll(fd, c)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, path)
}

/**
 * The images directory beside a JSONL file. An image file exists only complete (written
 * through a rename), so "present" means "done" and a restart skips it — also when present
 * beside `alreadyIn`, the final place a staged export will move its images to.
 */
export const makeImageWriter = (dir: string, alreadyIn?: string) => {
  const imagesDir = join(dir, IMAGES_DIR)
  const known = new Set<string>()
  let written = 0
  let dirty = false
  const ensure = Effect.fnUntraced(function* (hashes: Iterable<string>, recordId: string) {
    const blobs = yield* BlobStore
    for (const hash of hashes) {
      if (known.has(hash)) continue
      const path = join(imagesDir, `${hash}.png`)
      if (!existsSync(path) && (alreadyIn === undefined || !existsSync(join(alreadyIn, IMAGES_DIR, `${hash}.png`)))) {
        const bytes = yield* blobs
          .get(hash)
          .pipe(Effect.mapError((e) => new DatasetError({ message: `image ${hash} of record ${recordId}: ${e.message}` })))
        yield* Effect.try({
          try: () => {
            mkdirPrivate(imagesDir)
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
 * The lines of a JSONL file a follower appends to, each read by `read` (which throws on a
 * line that is not its kind). A crash can leave only the last line torn (lines are appended,
 * and acknowledged only after an fsync), so a last line without its newline is cut away: what
 * it held was never acknowledged and will come again. Any other unreadable line means the
 * file is not ours, and nothing is appended to it.
 */
export const readAppendedLines = <A>(
  path: string,
  read: (line: unknown) => A
): Effect.Effect<{ lines: Array<A>; tornBytes: number }, DatasetError> =>
  Effect.try({
    try: () => {
      const out: Array<A> = []
      if (!existsSync(path)) return { lines: out, tornBytes: 0 }
      // Whole-file read: simple, and a follower reads it once per start.
      const buf = readFileSync(path)
      const end = buf.lastIndexOf(0x0a) + 1
      const tornBytes = buf.byteLength - end
      if (tornBytes > 0) truncateSync(path, end)
      const lines = buf.subarray(0, end).toString("utf8").split("\n")
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i]!
        if (l === "") continue
        let value: A
        try {
          value = read(JSON.parse(l))
        } catch (e) {
          const why = e instanceof SyntaxError ? "is not JSON" : e instanceof Error ? e.message : String(e)
          throw new Error(`line ${i + 1} ${why}; refusing to append to this file`)
        }
        out.push(value)
      }
      return { lines: out, tornBytes }
    },
    catch: fsError(path)
  })

const recordIdOf = (line: unknown): string => {
  const id = (line as { record_id?: unknown } | null)?.record_id
  if (typeof id !== "string") throw new Error("is not a dataset record line")
  return id
}

/** The record ids already in a JSONL file `dataset follow` appends to (see readAppendedLines). */
export const readRecordIds = (path: string): Effect.Effect<{ ids: Set<string>; tornBytes: number }, DatasetError> =>
  Effect.map(readAppendedLines(path, recordIdOf), ({ lines, tornBytes }) => ({ ids: new Set(lines), tornBytes }))

/** An append-only JSONL file: each `append` is on disk before it returns. */
export const openAppendFile = (path: string) =>
  Effect.acquireRelease(Effect.try({ try: () => openSync(path, "a", 0o600), catch: fsError(`cannot open ${path}`) }), (fd) =>
    Effect.sync(() => closeSync(fd))
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

/** Moves a finished staging directory's images and JSONL into place beside `out`. */
const publish = (staging: string, out: string): void => {
  const dir = dirname(out)
  const staged = join(staging, IMAGES_DIR)
  const images = join(dir, IMAGES_DIR)
  if (existsSync(staged)) {
    if (!existsSync(images)) renameSync(staged, images)
    // Content-addressed names: replacing an existing image replaces it with the same bytes.
    else for (const name of readdirSync(staged)) renameSync(join(staged, name), join(images, name))
    syncDir(images)
  }
  renameSync(join(staging, basename(out)), out)
  syncDir(dir)
}

/**
 * Runs `write` against a staging directory beside `out` (same file system, so moving is a
 * rename) and moves what it wrote into place only when it succeeds: a failed export leaves
 * neither a partial JSONL nor a half-filled `images/`. The staging directory goes either way.
 */
export const writeStaged = <A, E, R>(
  out: string,
  write: (staging: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | DatasetError, R> =>
  Effect.acquireUseRelease(
    Effect.try({
      try: () => {
        mkdirPrivate(dirname(out))
        return mkdtempSync(join(dirname(out), `.${basename(out)}.staging-`))
      },
      catch: fsError(`cannot create ${dirname(out)}`)
    }),
    (staging) => Effect.tap(write(staging), () => Effect.try({ try: () => publish(staging, out), catch: fsError(`cannot write ${out}`) })),
    (staging) => Effect.sync(() => rmSync(staging, { recursive: true, force: true }))
  )
