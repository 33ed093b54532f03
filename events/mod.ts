export { canonicalJson, digest, sha256 } from "./Canonical.ts"
export { eventId, runOfStream, runStream, workspaceStream } from "./Envelope.ts"
export { EventTooLarge, InvalidEvent, UnknownEventType, UnknownEventVersion } from "./Errors.ts"
export type { EventEncodeError } from "./Errors.ts"
export { makeEvent } from "./Event.ts"
export type { DataOf, EventDefinition, EventOf } from "./Event.ts"
export { catalog } from "./Catalog.ts"
export type { CoreEvent, CoreEventType } from "./Catalog.ts"
export { PolicyTrained, RoundCompleted, RoundStarted, RunStarted } from "./Run.ts"
export { ExploreParams, InferParams, JobCompleted, JobQueued, RolloutParams, decodeJobParams } from "./Job.ts"
export { DemoIngested, DemoObservation, DemoRejected, DemoStep, Platform, TaskRegistered } from "./Workspace.ts"
export { KeyStepsIdentified, LabelFunctionInferred, LabelFunctionRejected, StepsDescribed, labelFunctionId } from "./Labeling.ts"
export { ModelCalled } from "./Models.ts"
export {
  Action,
  ActionKind,
  Count,
  Observation,
  ScrollDirection,
  SecretEnvName,
  SourceRef,
  Target,
  TrajectoryRecorded,
  TrajectoryStep,
  TrajectoryVerified,
  TypeMode
} from "./Trajectory.ts"
export { defaultSecretEnv, dots, hideSecrets, matchesSealed, sealTyped } from "./SecretTyping.ts"
export { matchesResolvedSelect, resolvedSelect } from "./SelectRecording.ts"
export type { Secret } from "./SecretTyping.ts"
export { NodeExpanded, PathAdded, PathRefused, SemanticKey, TrajectoryPromoted } from "./Graph.ts"
export { RoundExtrapolated, TaskExtrapolated, TaskExtrapolationRejected } from "./Task.ts"
export { DatasetFormat, DatasetRecordEmitted, DatasetSealed } from "./Dataset.ts"
export { examples } from "./Examples.ts"
export { joinLines, messageOf, oneLine } from "./Text.ts"
