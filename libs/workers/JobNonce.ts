/**
 * What proves a result answers a job this driver queued: every job carries a nonce, an
 * HMAC of its run and job id under a key only the driver's machine holds, and a result
 * must carry it back. Job ids are predictable (`r{round}-s{sample}-{task}`) and run ids
 * are logged, so without it anyone who can publish on the queue could file a result for a
 * job before it exists, or an older run's result under a new run id. Only the worker a job
 * was delivered to learns its nonce.
 *
 * The key lives in the data directory (`queue.key`, 0600), so `run --resume` on the same
 * data directory derives the same nonces and re-attaches to the jobs still queued. It is
 * never logged: a nonce in the event log would be readable by every worker.
 *
 * @example
 * const key = yield* queueKey(dataDir)
 * const nonce = jobNonce(key, runId, jobId) // 64 hex characters
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeSync, constants } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { QueueError } from "./QueueError.ts"

export const QUEUE_KEY_FILE = "queue.key"
const KEY_BYTES = 32

export const jobNonce = (key: Uint8Array, runId: string, jobId: string): string =>
  createHmac("sha256", key).update(`${runId}\n${jobId}`).digest("hex")

/** Constant-time: how much of a guessed nonce matched must not show in when it is dropped. */
export const sameNonce = (given: string, expected: string): boolean =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected))

const readKey = (file: string): Uint8Array => {
  // No following a link someone put in its place, and no reading a FIFO that never ends.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const st = fstatSync(fd)
    if (!st.isFile() || st.size !== KEY_BYTES)
      throw new Error(`${file} is not a queue key (${KEY_BYTES} bytes); remove it to make a new one`)
    if ((st.mode & 0o077) !== 0) throw new Error(`${file} is readable by others (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it`)
    const key = new Uint8Array(KEY_BYTES)
    readSync(fd, key, 0, KEY_BYTES, 0)
    return key
  } finally {
    closeSync(fd)
  }
}

const createKey = (file: string): Uint8Array => {
  const key = new Uint8Array(randomBytes(KEY_BYTES))
  // O_EXCL: two drivers starting at once must not each write a key and keep the other's nonces.
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  try {
    writeSync(fd, key)
  } finally {
    closeSync(fd)
  }
  return key
}

/**
 * The data directory's queue key, made on first use. Its randomness is not a decision's:
 * nothing the run decides depends on it, and it must stay out of the log.
 */
export const queueKey = (dataDir: string): Effect.Effect<Uint8Array, QueueError> =>
  Effect.try({
    try: () => {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 })
      const file = join(dataDir, QUEUE_KEY_FILE)
      try {
        return readKey(file)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
      }
      try {
        return createKey(file)
      } catch (e) {
        // Another driver made it between the two calls: use theirs.
        if ((e as NodeJS.ErrnoException).code === "EEXIST") return readKey(file)
        throw e
      }
    },
    catch: (e) => new QueueError({ message: `work queue key: ${e instanceof Error ? e.message : String(e)}` })
  })
