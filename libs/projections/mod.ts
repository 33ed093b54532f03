/**
 * Read models (docs/architecture.md, "Projections and read models"): pure projections of the event log into SQL tables
 * (SQLite by default, PostgreSQL by URL), the projector that applies them with its
 * checkpoint in the same transaction, and the canonical digest that projection replay
 * compares.
 *
 * @example
 * Effect.scoped(Effect.gen(function* () {
 *   const rm = yield* openReadModels("sqlite:.core/projections.db")
 *   yield* migrate(rm)
 *   yield* runProjector(rm)
 *   const { digest } = yield* tableDigest(rm)
 * }))
 */
export { DatabaseError, migrate, migrationStatus, openReadModels } from "./ReadModels.ts"
export type { ReadModels } from "./ReadModels.ts"
export { ProjectorConflict, readCheckpoints, runProjector } from "./Projector.ts"
export { tableDigest } from "./Digest.ts"
export { compareWithRebuild, rebuildAndDigest } from "./Rebuild.ts"
export { bunSqliteDatabase } from "./BunSqlite.ts"
export { datasets, demos, graph, labelFunctions, lineage, projections, runs, tasks, trajectories } from "./projections/mod.ts"
export { eventCount, generateCommits, generateLog, takeEvents } from "./synthetic/Generate.ts"
export type { Commit, LogShape } from "./synthetic/Generate.ts"
