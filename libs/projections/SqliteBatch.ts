/**
 * The projector's SQLite fast path. Row operations are written through bun:sqlite prepared
 * statements, one per operation *shape* (tag, table, column names), compiled once: building
 * and compiling a Kysely query per row cost several times what SQLite spends storing it.
 * The SQL is what Kysely compiles for the same RowOp (Projector.ts `applyOp`, still used for
 * PostgreSQL), so rows and digests are the same (SqliteWorker.ts).
 *
 * For a database file the statements run on a worker thread with its own connection
 * (SqliteWorker.ts), so that storing batch k overlaps with reading, decoding and projecting
 * batch k+1 on the main thread — on two cores, the difference between SQLite's time adding
 * to the log's and hiding behind it. Each batch is still one `BEGIN IMMEDIATE` transaction
 * holding its checkpoint check, rows and checkpoint upserts.
 */
import type { Database } from "bun:sqlite"
import type { RowOp } from "./RowOp.ts"
import { applyBatch, statementCache } from "./SqliteWorker.ts"
import type { Reply } from "./SqliteWorker.ts"

export interface SqliteBatchWriter {
  /**
   * In one transaction: if every stored checkpoint of `names` still equals `expected`
   * (position, index per name), applies `ops` (the batch's rows, then its checkpoint
   * upserts). Resolves to the name of a checkpoint that moved under us (nothing written),
   * or null once committed. Never rejects: a failure is `{ error }`.
   */
  readonly write: (names: ReadonlyArray<string>, expected: ReadonlyArray<number>, ops: ReadonlyArray<RowOp>) => Promise<Reply>
  /** Waits for the batch in flight, then closes the connection. */
  readonly close: () => Promise<void>
}

/** On the calling thread: for an in-memory database, which another thread cannot open. */
const inThread = (db: Database): SqliteBatchWriter => {
  const statements = statementCache(db)
  return {
    write: async (names, expected, ops) => applyBatch(db, statements, { names, expected, ops }),
    close: async () => undefined
  }
}

const onWorker = (path: string): SqliteBatchWriter => {
  const worker = new Worker(new URL("./SqliteWorker.ts", import.meta.url).href)
  const waiting = new Map<number, (r: Reply) => void>()
  let next = 0
  let closed: (() => void) | null = null
  let failed: string | null = null
  worker.onmessage = (e: MessageEvent<Reply & { readonly id: number }>) => {
    if (e.data.id === -1) return closed?.()
    waiting.get(e.data.id)?.(e.data)
    waiting.delete(e.data.id)
  }
  worker.onerror = (e) => {
    failed = `SQLite worker failed: ${e.message}`
    for (const resolve of waiting.values()) resolve({ conflict: null, error: failed })
    waiting.clear()
    closed?.()
  }
  worker.postMessage({ open: path })
  return {
    write: (names, expected, ops) =>
      new Promise((resolve) => {
        if (failed !== null) return resolve({ conflict: null, error: failed })
        const id = next++
        waiting.set(id, resolve)
        // One JSON string crosses threads far cheaper than a structured clone of every operation;
        // row values are strings, finite numbers and nulls, which JSON carries exactly, and
        // it drops `undefined` columns just as Kysely does.
        worker.postMessage({ id, names, expected, ops: JSON.stringify(ops) })
      }),
    close: () =>
      new Promise<void>((resolve) => {
        // The close queues behind at most one batch, which takes well under a second: a worker
        // silent for ten is stuck, and waiting on it would leave the process unable to stop.
        const stuck = setTimeout(() => closed?.(), 10_000)
        closed = () => {
          clearTimeout(stuck)
          worker.terminate()
          resolve()
        }
        if (failed !== null) closed()
        else worker.postMessage({ close: true })
      })
  }
}

export const sqliteBatchWriter = (db: Database): SqliteBatchWriter =>
  db.filename === "" || db.filename === ":memory:" ? inThread(db) : onWorker(db.filename)
