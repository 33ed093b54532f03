/**
 * `@core/sites/run`: runs on the bundled sites — the tasks a command's `--suite`, `--site`
 * and `--tasks` choose, a run that plays them with the sites as its app, and the app a
 * worker serves for such a run, and where `record` plays one of their tasks. Apart from `.` so that the sites themselves need no run.
 *
 * @example
 * const tasks = yield* chooseTasks({ site: "shop" })
 * const outcome = yield* runOnBundledSites(config, storeLayer, { ...plan, tasks }, progress)
 */
export { runOnBundledSites } from "./BundledRun.ts"
export type { BundledPlan } from "./BundledRun.ts"
export { chooseTasks, UnknownBundledTask } from "./BundledTasks.ts"
export type { TaskChoice } from "./BundledTasks.ts"
export { bundledWorkerApp } from "./BundledWorker.ts"
export { bundledTarget } from "./RecordTarget.ts"
