/**
 * A canonical digest of every read-model table, the same on SQLite and PostgreSQL for the
 * same rows: rows sorted by primary key in code (database collations differ), values
 * normalised (bigint and numeric strings of integer columns to numbers, booleans to 0/1),
 * each row as canonical JSON. Checkpoints and migration bookkeeping are left out.
 *
 * @example
 * const { digest, tables } = yield* tableDigest(rm)                 // whole database
 * const run = yield* tableDigest(rm, { runId: "r-20260301" })      // one run + the workspace
 */
import { Effect } from "effect"
import { sql } from "kysely"
import { canonicalJson, digest as digestOf, sha256 } from "@core/events"
import { dbTry } from "./ReadModels.ts"
import type { DatabaseError, ReadModels } from "./ReadModels.ts"

/** Tables that describe the projector, not the read models. */
export const INTERNAL_TABLES: ReadonlySet<string> = new Set(["projection_checkpoints"])

export interface TableDigest {
  readonly rows: number
  readonly digest: string
}

export interface Digest {
  /** sha256 over every table's digest, by table name. */
  readonly digest: string
  readonly tables: Readonly<Record<string, TableDigest>>
}

export interface DigestOptions {
  /** Only rows of this run in tables that have a `run_id` column; workspace tables whole. */
  readonly runId?: string
}

type Cell = string | number | null

const normalise = (v: unknown): Cell => {
  if (v === null || v === undefined) return null
  if (typeof v === "bigint") return Number(v)
  if (typeof v === "boolean") return v ? 1 : 0
  if (typeof v === "number" || typeof v === "string") return v
  if (v instanceof Date) return v.toISOString()
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex")
  return canonicalJson(v)
}

const INTEGER_TYPE = /^(int|integer|bigint|int2|int4|int8|smallint)$/i

const compareCells = (a: Cell, b: Cell): number => {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  if (typeof a === "number" && typeof b === "number") return a - b
  const [x, y] = [String(a), String(b)]
  return x < y ? -1 : x > y ? 1 : 0
}

const primaryKey = (rm: ReadModels, table: string): Effect.Effect<ReadonlyArray<string>, DatabaseError> =>
  dbTry(rm, async () => {
    if (rm.dialect === "sqlite") {
      const r = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table}) WHERE pk > 0 ORDER BY pk`.execute(rm.db)
      return r.rows.map((x) => x.name)
    }
    const r = await sql<{ name: string }>`
      SELECT k.column_name AS name FROM information_schema.table_constraints t
      JOIN information_schema.key_column_usage k
        ON k.constraint_name = t.constraint_name AND k.table_schema = t.table_schema AND k.table_name = t.table_name
      WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = current_schema() AND t.table_name = ${table}
      ORDER BY k.ordinal_position`.execute(rm.db)
    return r.rows.map((x) => x.name)
  })

export const tableDigest = (rm: ReadModels, options: DigestOptions = {}): Effect.Effect<Digest, DatabaseError> =>
  Effect.gen(function* () {
    const all = yield* dbTry(rm, () => rm.db.introspection.getTables())
    // PostgreSQL introspection spans every schema; the read models are the ones in the search path's first.
    const schema =
      rm.dialect === "postgres"
        ? (yield* dbTry(rm, () => sql<{ s: string }>`SELECT current_schema() AS s`.execute(rm.db))).rows[0]?.s
        : undefined
    const tables = all
      .filter((t) => !t.isView && !INTERNAL_TABLES.has(t.name) && (schema === undefined || t.schema === schema))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const result: Record<string, TableDigest> = {}
    for (const t of tables) {
      const key = yield* primaryKey(rm, t.name)
      const columns = t.columns.map((c) => c.name).sort()
      const integer = new Set(t.columns.filter((c) => INTEGER_TYPE.test(c.dataType)).map((c) => c.name))
      const scoped = options.runId !== undefined && columns.includes("run_id")
      const raw = yield* dbTry(rm, () => {
        let q = rm.db.selectFrom(t.name).selectAll()
        if (scoped) q = q.where("run_id", "=", options.runId!)
        return q.execute()
      })
      const rows = raw.map((r) => {
        const out: Record<string, Cell> = {}
        for (const c of columns) {
          const v = normalise((r as Record<string, unknown>)[c])
          out[c] = integer.has(c) && typeof v === "string" ? Number(v) : v
        }
        return out
      })
      const order = key.length > 0 ? key : columns
      rows.sort((a, b) => {
        for (const c of order) {
          const d = compareCells(a[c]!, b[c]!)
          if (d !== 0) return d
        }
        return 0
      })
      result[t.name] = { rows: rows.length, digest: sha256(rows.map((r) => canonicalJson(r)).join("\n")) }
    }
    return { digest: digestOf(Object.fromEntries(Object.entries(result).map(([k, v]) => [k, v.digest]))), tables: result }
  })
