/**
 * Applies projector batches to SQLite through prepared statements, one per operation shape
 * (tag, table, column names), compiled once. The SQL is what Kysely compiles for the same
 * RowOp (Projector.ts `applyOp`), so rows and digests are the same; like Kysely, a column
 * whose value is `undefined` is left out.
 *
 * Imported on the main thread for in-memory databases; run as a worker (SqliteBatch.ts) it
 * owns a connection of its own and applies batches in the order they arrive, answering
 * each by id. Messages in: `{ open: path }`, then `{ id, names, expected, ops: <JSON> }` any
 * number of times, then `{ close: true }` (answered with id -1 once every earlier batch is
 * done and the connection is closed).
 */
import { Database } from "bun:sqlite"
import type { SQLQueryBindings, Statement } from "bun:sqlite"
import type { RowOp, Value } from "./RowOp.ts"

export interface Batch {
  /** Projections whose stored checkpoints must still be `expected` (position, index per name). */
  readonly names: ReadonlyArray<string>
  readonly expected: ReadonlyArray<number>
  /** The batch's rows, then its checkpoint upserts. */
  readonly ops: ReadonlyArray<RowOp>
}

export interface Reply {
  /** The projection whose checkpoint moved under us; nothing was written. */
  readonly conflict: string | null
  readonly error?: string
}

const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`

const present = (row: Readonly<Record<string, Value>>): Array<string> => {
  const out: Array<string> = []
  for (const c in row) if (row[c] !== undefined) out.push(c)
  return out
}

const sqlOf = (op: RowOp, keyCols: ReadonlyArray<string>, setCols: ReadonlyArray<string>): string => {
  const table = quote(op.table)
  if (op._tag === "Delete")
    return `delete from ${table}${keyCols.length === 0 ? "" : ` where ${keyCols.map((c) => `${quote(c)} = ?`).join(" and ")}`}`
  const cols = [...keyCols, ...setCols]
  const conflict = `on conflict (${keyCols.map(quote).join(", ")})`
  const action =
    op._tag === "Upsert" && setCols.length > 0
      ? `do update set ${setCols.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(", ")}`
      : "do nothing"
  return `insert into ${table} (${cols.map(quote).join(", ")}) values (${cols.map(() => "?").join(", ")}) ${conflict} ${action}`
}

/** Statements by shape, prepared on first use. */
export const statementCache = (db: Database) => {
  const statements = new Map<
    string,
    { readonly stmt: Statement; readonly keyCols: ReadonlyArray<string>; readonly setCols: ReadonlyArray<string> }
  >()
  return (op: RowOp) => {
    const keyCols = present(op.key)
    const setCols = op._tag === "Delete" ? [] : present(op.set)
    const shape = `${op._tag}\u0000${op.table}\u0000${keyCols.join("\u0000")}\u0001${setCols.join("\u0000")}`
    let entry = statements.get(shape)
    if (entry === undefined) {
      entry = { stmt: db.prepare(sqlOf(op, keyCols, setCols)), keyCols, setCols }
      statements.set(shape, entry)
    }
    return entry
  }
}

/** Runs one batch in one BEGIN IMMEDIATE transaction (another process's writer waits, busy_timeout); never throws. */
export const applyBatch = (db: Database, statements: ReturnType<typeof statementCache>, b: Batch): Reply => {
  try {
    const run = db.transaction((): string | null => {
      const stored = db
        .query(
          `select "name", "position", "event_index" from "projection_checkpoints" where "name" in (${b.names.map(() => "?").join(", ")})`
        )
        .all(...b.names) as Array<{ name: string; position: number | bigint; event_index: number | bigint }>
      for (const row of stored) {
        const i = b.names.indexOf(row.name)
        if (Number(row.position) !== b.expected[2 * i] || Number(row.event_index) !== b.expected[2 * i + 1]) return row.name
      }
      const params: Array<SQLQueryBindings> = []
      for (const op of b.ops) {
        const { stmt, keyCols, setCols } = statements(op)
        params.length = 0
        for (const c of keyCols) params.push(op.key[c] as SQLQueryBindings)
        if (op._tag !== "Delete") for (const c of setCols) params.push(op.set[c] as SQLQueryBindings)
        stmt.run(...params)
      }
      return null
    })
    return { conflict: run.immediate() }
  } catch (e) {
    return { conflict: null, error: e instanceof Error ? e.message : String(e) }
  }
}

if (!Bun.isMainThread) {
  // In a worker, the global scope is the port to the thread that started it.
  const port = globalThis as unknown as { onmessage: (e: MessageEvent) => void; postMessage: (m: unknown) => void }
  let db: Database | null = null
  let statements: ReturnType<typeof statementCache> | null = null
  port.onmessage = (e) => {
    const m = e.data as { open?: string; id?: number; names?: Array<string>; expected?: Array<number>; ops?: string; close?: true }
    if (m.open !== undefined) {
      db = new Database(m.open)
      // The same settings as the main connection (ReadModels.ts); they are per connection.
      db.run("PRAGMA busy_timeout = 10000")
      db.run("PRAGMA synchronous = NORMAL")
      db.run("PRAGMA cache_size = -65536")
      statements = statementCache(db)
    } else if (m.ops !== undefined) {
      const reply =
        db === null || statements === null
          ? { conflict: null, error: "SQLite worker has no open database" }
          : applyBatch(db, statements, { names: m.names!, expected: m.expected!, ops: JSON.parse(m.ops) as Array<RowOp> })
      port.postMessage({ id: m.id, ...reply })
    } else if (m.close) {
      db?.close()
      db = null
      port.postMessage({ id: -1, conflict: null })
    }
  }
}
