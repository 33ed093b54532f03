/**
 * `@core/run`: the composition root of a live run — the pipeline's deciders driven on an
 * app's environments (web, mobile web, Android), its model client and workers, its demos
 * made where missing, and its ground truth handed to whoever keeps it. `@core/pipeline`
 * holds the deciders; this is where they meet Chromium, Appium and the loaded config.
 *
 * @example
 * const outcome = yield* executeRun(config, storeLayer, { ...plan, groundTruth: groundTruthFiles(dataDir) }, app, progress)
 */
export { executeRun, driveRun } from "./RunEngine.ts"
export { prepareRun } from "./Prepare.ts"
export type { PreparedRun } from "./Prepare.ts"
export { liveLayers, openEnvironments } from "./Live.ts"
export type { LiveInput, RunEnvironments } from "./Live.ts"
export type { GroundTruthSink, RemoteRun, RunOutcome, RunPlan } from "./RunPlan.ts"
export { GroundTruthUnreadable, groundTruthFile, groundTruthFiles, readGroundTruth } from "./GroundTruth.ts"
export { environmentsNamed, platformEnvironment } from "./PlatformEnvironment.ts"
export type { PlatformEnvironmentOptions } from "./PlatformEnvironment.ts"
export { RunError, scriptedDemoId } from "./RunDemos.ts"
export type { RunProgress } from "./RunProgress.ts"
export { packTasks, runOnPack, UnknownPackTask } from "./AppRun.ts"
export type { PackPlan } from "./AppRun.ts"
export { describeChoice, openStore } from "./Store.ts"
export type { OpenedStore } from "./Store.ts"
export { packWorkerApp, QueueUnavailable, queueConnection, queuedEpisodes, uploadsStore, workerEnvironment } from "./Queue.ts"
