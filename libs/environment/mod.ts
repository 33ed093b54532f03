/**
 * `@core/environment`: the platform-neutral `Environment` (its tasks, observations, policy
 * view and errors) and the one episode runner every platform's environment is an adapter of.
 */
export { endEpisode, Environment, InfraError, oneLine, targetOf } from "./Environment.ts"
export type {
  Box,
  ElementInfo,
  EnvironmentShape,
  EnvTask,
  EpisodeSource,
  FullObservation,
  PolicyView,
  Prelude,
  PreludePage,
  ScreenshotPolicy,
  Timings
} from "./Environment.ts"
export { defaultElementLimit, describeElement, marksOf, policyView, selectElements } from "./View.ts"
export type { Mark } from "./View.ts"
export { storeObservation } from "./Observation.ts"
export type { ObservationParts } from "./Observation.ts"
export { longPressMs, maxWaitMs, readEnvSecret, typedText } from "./Vocabulary.ts"
export type { ReadSecret } from "./Vocabulary.ts"
export { ActionTimeout, makeEnvironment } from "./Runner.ts"
export type { EnvironmentAdapter, EnvironmentOptions, RunnerSettings, ScreenRead, SiteEpisode } from "./Runner.ts"
