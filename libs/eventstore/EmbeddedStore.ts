/**
 * The EventStore in one bun:sqlite file (default `.core/events.db`): zero setup, same
 * semantics as JetStream. A commit is a row; its position is the row's rowid, so a
 * stream's revision is the position of its last commit exactly as with JetStream's last
 * subject sequence. Several processes may share the file (WAL, busy timeout); live
 * readers poll.
 *
 * @example
 * const layer = EmbeddedStore.layer({ path: ".core/events.db" })
 */
import { Database } from "bun:sqlite"
import { chmodSync, existsSync, mkdirSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { Effect, Layer, Result } from "effect"
import type { CoreEvent } from "@core/events"
import { collectBatches, decodeCommit, prepareCommit, streamOfBatches } from "./Commit.ts"
import { ConcurrencyError, EventStore, matchesFilter, StoreUnavailable, type UnreadableEvent } from "./EventStore.ts"
import type { AppendOptions, AppendResult, ReadAllOptions, RecordedEvent, SubscribeOptions } from "./EventStore.ts"

export interface EmbeddedStoreOptions {
  readonly path: string
  /** How often a live reader or subscriber looks for new commits; default 50 ms. */
  readonly pollMs?: number
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS commits (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream TEXT NOT NULL,
  commit_id TEXT NOT NULL UNIQUE,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS commits_stream ON commits (stream, position);
CREATE TABLE IF NOT EXISTS consumers (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('format', 'core-events/1');
`

const FORMAT = "core-events/1"

class ForeignDatabase extends Error {}

/**
 * Refuses, before anything is written, a database that holds tables but is not a CORE log:
 * pointed at someone else's file by mistake, the store would add its tables and switch it
 * to WAL. Reading `sqlite_master` writes nothing (and creates no `-wal` on a rollback-journal file).
 */
const refuseForeign = (d: Database): void => {
  const tables = d
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()
    .map((t) => t.name)
  if (tables.length === 0) return
  const format = tables.includes("meta")
    ? d.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'format'").get()?.value
    : undefined
  // Another version's log is still CORE's: the format check after this names its version.
  if (format?.startsWith("core-events/")) return
  const shown = tables.slice(0, 5).join(", ") + (tables.length > 5 ? ", …" : "")
  throw new ForeignDatabase(
    `it is an SQLite database but not a CORE event log (it has tables ${shown}); nothing was written to it — point dataDir elsewhere`
  )
}

/**
 * The log's directory (the data dir) and any missing parent, for the owner only: the log
 * holds everything the agent saw and typed. An existing directory keeps the mode its owner gave it.
 */
const mkdirPrivate = (dir: string): void => {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (created === undefined) return
  // mkdir's mode passes through the umask; chmod makes 0700 exact whatever it is.
  for (let d = resolve(dir); ; d = dirname(d)) {
    chmodSync(d, 0o700)
    if (d === resolve(created) || d === dirname(d)) break
  }
}

/** The literal part of a stream filter before its first wildcard, for an indexed range scan. */
const literalPrefix = (filter: string | undefined): string => {
  if (filter === undefined) return ""
  const tokens: Array<string> = []
  for (const t of filter.split(".")) {
    if (t === "*" || t === ">") return tokens.length ? `${tokens.join(".")}.` : ""
    tokens.push(t)
  }
  return filter
}

interface Row {
  readonly position: number
  readonly stream: string
  readonly commit_id: string
  readonly body: string
}

export const make = (options: EmbeddedStoreOptions) =>
  Effect.gen(function* () {
    const path = options.path
    const pollMs = options.pollMs ?? 50
    const unavailable = (e: unknown) => {
      const msg = e instanceof Error ? e.message : String(e)
      if (e instanceof ForeignDatabase) return new StoreUnavailable({ store: path, reason: msg })
      const hint = /not a database|malformed|corrupt/i.test(msg)
        ? " — the file is damaged; move it aside to start a new log (nothing was written to it)"
        : ""
      return new StoreUnavailable({ store: path, reason: `${msg}${hint}` })
    }
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          mkdirPrivate(dirname(path))
          const fresh = !existsSync(path)
          const d = new Database(path, { create: true, strict: true })
          try {
            // Before WAL mode is set: SQLite gives the -wal and -shm files the database file's mode.
            if (fresh) chmodSync(path, 0o600)
            d.run("PRAGMA busy_timeout = 10000")
            refuseForeign(d)
            d.run("PRAGMA journal_mode = WAL")
            d.run("PRAGMA synchronous = NORMAL")
            // One transaction: a crash half way must not leave tables without the stamp, which would read as foreign.
            d.transaction(() => d.run(SCHEMA))()
            const format = d.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'format'").get()
            if (format?.value !== FORMAT) throw new Error(`unknown log format ${format?.value ?? "(none)"}`)
            d.query("PRAGMA quick_check").all()
          } catch (e) {
            d.close()
            throw e
          }
          return d
        },
        catch: unavailable
      }),
      (d) => Effect.sync(() => d.close())
    )

    const lastOf = db.query<{ p: number | null }, [string]>("SELECT max(position) AS p FROM commits WHERE stream = ?")
    const byId = db.query<{ position: number; stream: string }, [string]>("SELECT position, stream FROM commits WHERE commit_id = ?")
    const firstAfter = db.query<{ position: number; commit_id: string }, [string, number]>(
      "SELECT position, commit_id FROM commits WHERE stream = ? AND position > ? ORDER BY position LIMIT 1"
    )
    const insert = db.query<{ position: number }, [string, string, string]>(
      "INSERT INTO commits (stream, commit_id, body) VALUES (?, ?, ?) RETURNING position"
    )
    const page = db.query<Row, [number, string, string, number]>(
      "SELECT position, stream, commit_id, body FROM commits WHERE position >= ? AND stream >= ? AND stream < ? ORDER BY position LIMIT ?"
    )
    const headQ = db.query<{ p: number | null }, []>("SELECT max(position) AS p FROM commits")

    type Outcome = { ok: AppendResult } | { conflict: number }
    const appendTx = db.transaction((stream: string, id: string, body: string, expected: number): Outcome => {
      const last = lastOf.get(stream)?.p ?? 0
      if (last !== expected) {
        const next = firstAfter.get(stream, expected)
        if (next && next.commit_id === id) return { ok: { revision: next.position, position: next.position } }
        return { conflict: last }
      }
      const existing = byId.get(id)
      if (existing) return { ok: { revision: existing.position, position: existing.position } }
      const { position } = insert.get(stream, id, body)!
      return { ok: { revision: position, position } }
    })

    const append = (stream: string, events: ReadonlyArray<CoreEvent>, opts: AppendOptions) =>
      Effect.gen(function* () {
        const prepared = prepareCommit(stream, events, opts)
        if (Result.isFailure(prepared)) return yield* Effect.fail(prepared.failure)
        const { id, body } = prepared.success
        const out = yield* Effect.try({ try: () => appendTx.immediate(stream, id, body, opts.expectedRevision), catch: unavailable })
        if ("conflict" in out) return yield* new ConcurrencyError({ stream, expected: opts.expectedRevision, actual: out.conflict })
        return out.ok
      })

    const range = (filter: string | undefined): [string, string] => {
      const p = literalPrefix(filter)
      // Every stream name is printable ASCII, so "\u{10FFFF}" closes any prefix range.
      return p === filter && p !== "" ? [p, `${p}\u0000`] : [p, `${p}\u{10FFFF}`]
    }

    /** Pages of commits from `from`; stops at the head as of the call unless live. */
    async function* batches(filter: string | undefined, from: number, live: boolean): AsyncGenerator<Array<RecordedEvent>> {
      const [lo, hi] = range(filter)
      const end = live ? Infinity : (headQ.get()?.p ?? 0)
      let next = Math.max(1, from)
      while (next <= end) {
        const rows = page.all(next, lo, hi, 512)
        const batch: Array<RecordedEvent> = []
        for (const row of rows) {
          if (row.position > end) break
          next = row.position + 1
          if (!matchesFilter(filter, row.stream)) continue
          const d = decodeCommit(row.body, row.position)
          if (Result.isFailure(d)) {
            // Hand over everything before the unreadable commit, then stop there.
            if (batch.length > 0) yield batch
            throw d.failure
          }
          for (const r of d.success) batch.push(r)
        }
        if (batch.length > 0) yield batch
        if (rows.length < 512) {
          if (!live) return
          await Bun.sleep(pollMs)
        }
      }
    }

    const readAll = (o: ReadAllOptions = {}) => streamOfBatches(() => batches(o.filter, o.from ?? 1, o.live ?? false), path)

    const readStream = (stream: string) => collectBatches(() => batches(stream, 1, false), unavailable)

    const head = () => Effect.try({ try: () => headQ.get()?.p ?? 0, catch: unavailable })

    const getCheckpoint = db.query<{ position: number }, [string]>("SELECT position FROM consumers WHERE name = ?")
    const setCheckpoint = db.query<unknown, [string, number]>(
      "INSERT INTO consumers (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position"
    )

    const subscribe = <E, R>(
      name: string,
      handler: (event: RecordedEvent) => Effect.Effect<void, E, R>,
      opts: SubscribeOptions = {}
    ): Effect.Effect<never, StoreUnavailable | UnreadableEvent | E, R> =>
      Effect.gen(function* () {
        let done = yield* Effect.try({ try: () => getCheckpoint.get(name)?.position ?? 0, catch: unavailable })
        const [lo, hi] = range(opts.filter)
        while (true) {
          const rows = yield* Effect.try({ try: () => page.all(done + 1, lo, hi, 256), catch: unavailable })
          for (const row of rows) {
            if (matchesFilter(opts.filter, row.stream)) {
              const d = decodeCommit(row.body, row.position)
              if (Result.isFailure(d)) return yield* Effect.fail(d.failure)
              for (const r of d.success) yield* handler(r)
            }
            done = row.position
            yield* Effect.try({ try: () => setCheckpoint.run(name, done), catch: unavailable })
          }
          if (rows.length === 0) yield* Effect.sleep(pollMs)
        }
      })

    return EventStore.of({ kind: "embedded", location: path, append, readStream, readAll, head, subscribe })
  })

export const EmbeddedStore = {
  make,
  layer: (options: EmbeddedStoreOptions) => Layer.effect(EventStore, make(options))
}
