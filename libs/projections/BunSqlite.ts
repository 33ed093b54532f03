/**
 * bun:sqlite behind the interface Kysely's `SqliteDialect` expects (better-sqlite3's):
 * statements with `reader`, `all(params)`, `run(params)` and `iterate(params)`.
 *
 * @example
 * const db = new Kysely<any>({ dialect: new SqliteDialect({ database: bunSqliteDatabase(new Database("x.db")) }) })
 */
import type { Database, SQLQueryBindings } from "bun:sqlite"
import type { SqliteDatabase, SqliteStatement } from "kysely"

// bun:sqlite binds no booleans or undefined portably; Kysely may hand it either.
const bindable = (params: ReadonlyArray<unknown>): Array<SQLQueryBindings> =>
  params.map((p) => (p === undefined ? null : typeof p === "boolean" ? (p ? 1 : 0) : (p as SQLQueryBindings)))

export const bunSqliteDatabase = (db: Database): SqliteDatabase => ({
  close: () => db.close(),
  prepare: (sql: string): SqliteStatement => {
    // `query` caches by SQL text, and Kysely compiles one shape of query to one text.
    const stmt = db.query(sql)
    return {
      // Anything with result columns (SELECT, RETURNING, PRAGMA) is read with `all`.
      reader: stmt.columnNames.length > 0,
      all: (params) => stmt.all(...bindable(params)) as Array<unknown>,
      run: (params) => {
        const { changes, lastInsertRowid } = stmt.run(...bindable(params))
        return { changes, lastInsertRowid }
      },
      iterate: (params) => stmt.iterate(...bindable(params))
    }
  }
})
