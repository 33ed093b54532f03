/**
 * Read models (DESIGN §2, Projections): pure projections of the event log into SQL tables
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
export * from "./RowOp.ts"
export * from "./Projection.ts"
export * from "./ReadModels.ts"
export * from "./Projector.ts"
export * from "./Digest.ts"
export * from "./Rebuild.ts"
export { bunSqliteDatabase } from "./BunSqlite.ts"
export * from "./projections/mod.ts"
export { eventCount, generateCommits, generateLog, takeEvents } from "./synthetic/Generate.ts"
export type { Commit, LogShape } from "./synthetic/Generate.ts"
