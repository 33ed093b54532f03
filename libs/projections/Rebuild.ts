/**
 * Projection replay (replay level 1, docs/architecture.md): rebuild every read model from the log into a
 * fresh database and compare its digest with the live one's.
 *
 * @example
 * const live = yield* openReadModels(config.values["database.url"])
 * const report = yield* compareWithRebuild(live, { runId })   // needs EventStore
 * if (!report.equal) console.error(`differs in ${report.differingTables.join(", ")}`)
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { EventStore, ReadError } from "@core/eventstore"
import { tableDigest } from "./Digest.ts"
import type { Digest, DigestOptions } from "./Digest.ts"
import { readCheckpoints, runProjector } from "./Projector.ts"
import type { Checkpoint, ProjectorConflict, ProjectorOptions } from "./Projector.ts"
import { migrate, openReadModels } from "./ReadModels.ts"
import type { DatabaseError, ReadModels } from "./ReadModels.ts"
import { projections as allProjections } from "./projections/mod.ts"

export interface RebuildOptions extends DigestOptions {
  /** The fresh database to rebuild into; default a temporary SQLite file, removed afterwards. Must be empty. */
  readonly databaseUrl?: string
  /** Stop after this event; default the log's end. */
  readonly until?: Checkpoint
  readonly onProgress?: ProjectorOptions["onProgress"]
}

export interface RebuildResult extends Digest {
  /** How far the rebuild read. */
  readonly checkpoint: Checkpoint
  readonly events: number
}

export type RebuildError = DatabaseError | ProjectorConflict | ReadError

/** Migrates a fresh database, projects the log into it (up to `until`) and digests it. */
export const rebuildAndDigest = (options: RebuildOptions = {}): Effect.Effect<RebuildResult, RebuildError, EventStore> =>
  Effect.scoped(
    Effect.gen(function* () {
      const url = options.databaseUrl ?? (yield* tempSqlite)
      const rm = yield* openReadModels(url)
      yield* migrate(rm)
      const run = yield* runProjector(rm, {
        batchSize: 2000,
        ...(options.until ? { until: options.until } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {})
      })
      const digest = yield* tableDigest(rm, options.runId === undefined ? {} : { runId: options.runId })
      return { ...digest, checkpoint: run.checkpoint, events: run.events }
    })
  )

const tempSqlite: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "core-rebuild-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir) => `sqlite:${join(dir, "projections.db")}`))

export interface ComparisonReport {
  readonly equal: boolean
  /** Where the live projections stand; the rebuild reads exactly that far. */
  readonly checkpoint: Checkpoint
  /** False when live projections stand at different places (e.g. one added since): the comparison then uses the least advanced. */
  readonly settled: boolean
  readonly live: Digest
  readonly rebuilt: RebuildResult
  /** Tables whose digests differ, with row counts live/rebuilt. */
  readonly differingTables: ReadonlyArray<{ readonly table: string; readonly liveRows: number; readonly rebuiltRows: number }>
}

/** Digests the live read models, rebuilds from the log to the same checkpoint, and compares. The live database is only read. */
export const compareWithRebuild = (
  live: ReadModels,
  options: Omit<RebuildOptions, "until"> = {}
): Effect.Effect<ComparisonReport, RebuildError, EventStore> =>
  Effect.gen(function* () {
    const stored = yield* readCheckpoints(live)
    const cps = allProjections.map((p) => stored.get(p.name) ?? { position: 0, index: 0 })
    const least = cps.reduce((a, b) => (b.position < a.position || (b.position === a.position && b.index < a.index) ? b : a))
    const settled = cps.every((c) => c.position === least.position && c.index === least.index)
    const liveDigest = yield* tableDigest(live, options.runId === undefined ? {} : { runId: options.runId })
    const rebuilt = yield* rebuildAndDigest({ ...options, until: least })
    const names = [...new Set([...Object.keys(liveDigest.tables), ...Object.keys(rebuilt.tables)])].sort()
    const differingTables = names
      .filter((t) => liveDigest.tables[t]?.digest !== rebuilt.tables[t]?.digest)
      .map((t) => ({ table: t, liveRows: liveDigest.tables[t]?.rows ?? 0, rebuiltRows: rebuilt.tables[t]?.rows ?? 0 }))
    return { equal: liveDigest.digest === rebuilt.digest, checkpoint: least, settled, live: liveDigest, rebuilt, differingTables }
  })
