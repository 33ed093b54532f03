/**
 * `@core/replay`: deciders, the services through which their nondeterminism enters, the
 * recorded layers that answer from a run's log, and decision replay (docs/architecture.md).
 *
 * @example
 * const report = yield* replayRun({ runId, registry: coreDeciders }) // needs EventStore and BlobStore
 * report.divergences.length === 0
 */
export * from "./Decider.ts"
export * from "./Diff.ts"
export * from "./Prng.ts"
export * from "./Services.ts"
export * from "./Recorded.ts"
export * from "./Compare.ts"
export * from "./Replay.ts"
export * from "./Deciders.ts"
export * from "./deciders/DemoJobs.ts"
