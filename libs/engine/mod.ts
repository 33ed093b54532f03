/**
 * `@core/engine`: deciders, the services through which their nondeterminism enters, the
 * recorded layers that answer from a run's log, and decision replay (docs/architecture.md).
 *
 * @example
 * const report = yield* replayRun({ runId, registry: coreDeciders }) // needs EventStore and BlobStore
 * report.divergences.length === 0
 */
export { emitter } from "./Emitter.ts"
export type { Emitter } from "./Emitter.ts"
export { deciderStates, decision, defineDecider, makeDeciderRegistry, stamp, withDeciders } from "./Decider.ts"
export type { AnyDecider, Decider, DeciderRegistry, Decision, DecisionServices } from "./Decider.ts"
export { diffValues, formatDiff } from "./Diff.ts"
export { Randomness, prng, seedOf } from "./Prng.ts"
export {
  ActionMismatch,
  BlobAltered,
  EnvironmentFailed,
  ModelCallFailed,
  ModelCallNotRecorded,
  ModelRequestMismatch,
  Models,
  ObservationNotRecorded,
  Observations,
  requestDigest
} from "./Services.ts"
export type { ModelAnswer, ModelRequest, Observed } from "./Services.ts"
export { recordedModels, recordedObservations } from "./Recorded.ts"
export { PublishedPolicies, PublishedPolicyNotRecorded, PublishedPolicyRefused, recordedPublished, resumePublished } from "./Published.ts"
export type { PublishedAnswer, PublishedPoliciesShape, PublishedRequest, PublishedVersion } from "./Published.ts"
export { compareDecisions } from "./Compare.ts"
export type { Divergence, Rederived } from "./Compare.ts"
export { readRunLog, recordedServices, rederive, replayRun, RunNotFound } from "./Replay.ts"
export { isToken, readEvents, readLog, runExists, runLog, runsWith, UnknownRun, unknownRun } from "./RunLog.ts"
export type { ReplayReport } from "./Replay.ts"
export { coreDeciders } from "./Deciders.ts"
export { asStored, commitsOf, drive } from "./Driver.ts"
export type { DecideError, DriveOptions, RecordedInputs } from "./Driver.ts"
export { resumeLayers } from "./Resume.ts"
export { modelCallRecorder } from "./ModelCalls.ts"
export { noModels, noObservations } from "./Unconfigured.ts"
export { newRunId, RunConfigClash, startRun } from "./StartRun.ts"
export type { RecordedRunConfig, RunConfigCodec, RunIdentity, RunStartedEvent } from "./StartRun.ts"
export { demoBlob, demoJobs } from "./deciders/DemoJobs.ts"
