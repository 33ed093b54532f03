/**
 * The read-model database: SQLite through bun:sqlite (default) or PostgreSQL through `pg`,
 * chosen by the URL (`sqlite:<path>`, `sqlite::memory:`, `postgres://…`), and its
 * migrations (`migrations/` at the repository root).
 *
 * @example
 * const rm = yield* openReadModels("sqlite:.core/projections.db")   // scoped: closed with the scope
 * yield* migrate(rm)
 */
import { Database } from "bun:sqlite"
import { Effect, Schema } from "effect"
import type { Scope } from "effect"
import { Kysely, PostgresDialect, SqliteDialect } from "kysely"
import { Migrator } from "kysely/migration"
import pg from "pg"
import { chmodSync, existsSync, mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { migrationProvider } from "../../migrations/mod.ts"
import { bunSqliteDatabase } from "./BunSqlite.ts"

/** The read-model database failed or refused a statement. */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", {
  database: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `read-model database ${this.database}: ${this.reason}`
  }
}

export interface ReadModels {
  // `any`: tables grow by migration; rows are checked by the projections that write them.
  readonly db: Kysely<any>
  readonly dialect: "sqlite" | "postgres"
  /** The SQLite handle under `db`, for the projector's prepared-statement fast path (SqliteBatch.ts). */
  readonly sqlite?: Database
  /** Where the database is, for humans; a password in a URL is masked. */
  readonly location: string
}

export const maskUrl = (url: string): string => url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/, "$1***@")

export const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, "; ")

/** Wraps a database promise so every failure is one `DatabaseError` line. */
export const dbTry = <A>(rm: Pick<ReadModels, "location">, f: () => Promise<A>): Effect.Effect<A, DatabaseError> =>
  Effect.tryPromise({ try: f, catch: (e) => new DatabaseError({ database: rm.location, reason: reasonOf(e) }) })

// int8 (bigint) comes back from pg as a string by default; positions fit a double, so read them as numbers like SQLite does.
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
}

/** SQLite's header field for the application that owns a file: "CORE" in ASCII. */
const CORE_APPLICATION_ID = 0x434f5245

/**
 * Refuses a file that is another application's database, before anything is written to it,
 * and stamps CORE's in its header (`PRAGMA application_id`). A file without the stamp is
 * CORE's when it is empty or an older CORE's read models (its first migration applied).
 */
const claimReadModels = (d: Database, path: string): void => {
  const id = d.query<{ application_id: number }, []>("PRAGMA application_id").get()?.application_id ?? 0
  if (id === CORE_APPLICATION_ID) return
  const tables = d
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()
    .map((t) => t.name)
  const older =
    tables.includes("kysely_migration") &&
    d.query<{ name: string }, []>("SELECT name FROM kysely_migration WHERE name = '0001_read_models'").get() !== null
  if (id !== 0 || (tables.length > 0 && !older)) {
    const shown = tables.slice(0, 5).join(", ") + (tables.length > 5 ? ", …" : "")
    throw new Error(
      `${path} is an SQLite database but not CORE's read models (${id !== 0 ? `application id ${id}` : `it has tables ${shown}`}); nothing was written to it — choose another database`
    )
  }
  d.run(`PRAGMA application_id = ${CORE_APPLICATION_ID}`)
}

const makeKysely = (url: string): Pick<ReadModels, "db" | "dialect" | "sqlite"> => {
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length)
    if (path === "") throw new Error("sqlite URL needs a path, e.g. sqlite:.core/projections.db")
    // Read models copy what the log holds (typed text included): the owner's alone, like the log.
    const created = path === ":memory:" ? undefined : mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    if (created !== undefined) chmodSync(dirname(path), 0o700)
    const fresh = path !== ":memory:" && !existsSync(path)
    const sqlite = new Database(path, { create: true })
    if (fresh) chmodSync(path, 0o600)
    sqlite.run("PRAGMA busy_timeout = 10000")
    try {
      if (path !== ":memory:") claimReadModels(sqlite, path)
    } catch (e) {
      sqlite.close()
      throw e
    }
    sqlite.run("PRAGMA journal_mode = WAL")
    // In WAL mode NORMAL never corrupts and loses nothing on a process crash; a power loss may
    // drop the last transactions, but each carries its rows *and* checkpoint, so the
    // projector simply re-applies them. FULL's fsync per commit bought nothing here.
    sqlite.run("PRAGMA synchronous = NORMAL")
    sqlite.run("PRAGMA cache_size = -65536")
    return { db: new Kysely<any>({ dialect: new SqliteDialect({ database: bunSqliteDatabase(sqlite) }) }), dialect: "sqlite", sqlite }
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({ connectionString: url, max: 4, types: pgTypes })
    return { db: new Kysely<any>({ dialect: new PostgresDialect({ pool }) }), dialect: "postgres" }
  }
  throw new Error("database URL must start with sqlite: or postgres://")
}

/** Opens (and on scope close, closes) the read-model database. It is not migrated here: see {@link migrate}. */
export const openReadModels = (url: string): Effect.Effect<ReadModels, DatabaseError, Scope.Scope> => {
  const location = maskUrl(url)
  return Effect.acquireRelease(
    Effect.gen(function* () {
      const made = yield* Effect.try({
        try: () => makeKysely(url),
        catch: (e) => new DatabaseError({ database: location, reason: reasonOf(e) })
      })
      const rm: ReadModels = { ...made, location }
      // Fail here, with the URL in the message, rather than at the first query somewhere deeper.
      yield* dbTry(rm, () => rm.db.selectNoFrom((eb) => eb.lit(1).as("one")).execute()).pipe(
        Effect.tapError(() => Effect.promise(() => rm.db.destroy()))
      )
      return rm
    }),
    (rm) => Effect.promise(() => rm.db.destroy())
  )
}

export interface MigrationState {
  readonly name: string
  /** ISO instant it was applied, or null when pending. */
  readonly appliedAt: string | null
}

const migrator = (rm: ReadModels) => new Migrator({ db: rm.db, provider: migrationProvider })

/** Every known migration, applied or pending, in order. */
export const migrationStatus = (rm: ReadModels): Effect.Effect<ReadonlyArray<MigrationState>, DatabaseError> =>
  dbTry(rm, () => migrator(rm).getMigrations()).pipe(
    Effect.map((ms) => ms.map((m) => ({ name: m.name, appliedAt: m.executedAt ? new Date(m.executedAt).toISOString() : null })))
  )

/** Applies pending migrations; returns the names it applied (empty when up to date). */
export const migrate = (rm: ReadModels): Effect.Effect<ReadonlyArray<string>, DatabaseError> =>
  dbTry(rm, async () => {
    const { error, results } = await migrator(rm).migrateToLatest()
    if (error) {
      const failed = results?.find((r) => r.status === "Error")?.migrationName
      throw new Error(`migration ${failed ?? "(unknown)"} failed: ${reasonOf(error)}`)
    }
    return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName)
  })
