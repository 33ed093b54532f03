/**
 * App packs: people's own apps as CORE environments. The pack format and its loader, the
 * instances a pack's commands start and stop, and the `App` service that leases them.
 * Format and rules: docs/app-packs.md.
 */
export { AppCheckFailed, Isolation, PackError } from "./Format.ts"
export type { PackTask } from "./Format.ts"
export { DEFAULT_READY_TIMEOUT_MS, loadPack } from "./Pack.ts"
export { isRuntimeFile, packDigest } from "./PackDigest.ts"
export type { Pack } from "./Pack.ts"
export { placeholdersOf } from "./Argv.ts"
export type { CommandKind, Placeholder } from "./Argv.ts"
export {
  evaluateEpisode,
  InstanceError,
  liveInstances,
  loopbackUrl,
  resetInstance,
  startInstance,
  stopAllInstances,
  stopInstance,
  taskUrl
} from "./Instance.ts"
export type { EvaluationResult, Instance, InstanceRef } from "./Instance.ts"
export { makePool, MAX_FAILED_STARTS, originsFor } from "./Pool.ts"
export type { Lease, Pool, PoolOptions } from "./Pool.ts"
export { App } from "./App.ts"
export type { AppShape } from "./App.ts"
export * as CommandApp from "./CommandApp.ts"
export { androidTaskStart, clearsAppData, startActivity } from "./Android.ts"
export { packPageOptions, packRegistration, packRunApp, packRunTask } from "./PackRun.ts"
export { authOf, loadAuth, loadLogin, packSecretReader, secretRefusal } from "./Auth.ts"
export { judgeDemo, lastAnswer } from "./DemoJudge.ts"
export type { PackAuth, PackLogin, SecretRule } from "./Auth.ts"
export { coreVariable, secretRule } from "./SecretGrants.ts"
export { packTarget } from "./RecordTarget.ts"
