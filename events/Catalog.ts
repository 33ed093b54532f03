/**
 * The one event catalog: every event type CORE writes, and the upcasters that read old
 * versions. New data is added to these definitions rather than reshaping them.
 *
 * Only current versions go in `definitions`; an old version lives on only as the `from`
 * of an upcaster, so nothing can write it any more.
 */
import { makeRegistry, upcaster } from "./Registry.ts"
import type { EventOf } from "./Event.ts"
import { DatasetRecordEmitted, DatasetSealed } from "./Dataset.ts"
import { NodeExpanded, PathAdded, PathRefused, TrajectoryPromoted } from "./Graph.ts"
import { JobCompleted, JobQueued } from "./Job.ts"
import { KeyStepsIdentified, LabelFunctionInferred, LabelFunctionRejected, StepsDescribed } from "./Labeling.ts"
import { ModelCalled } from "./Models.ts"
import { PolicyTrained, RoundCompleted, RoundStarted, RunStarted } from "./Run.ts"
import { RoundExtrapolated, TaskExtrapolated, TaskExtrapolationRejected } from "./Task.ts"
import { TrajectoryRecorded, TrajectoryVerified } from "./Trajectory.ts"
import { DemoIngested, DemoRejected, TaskRegistered, TaskRegisteredV1 } from "./Workspace.ts"

export const definitions = [
  RunStarted,
  RoundStarted,
  RoundCompleted,
  PolicyTrained,
  JobQueued,
  JobCompleted,
  TaskRegistered,
  DemoIngested,
  DemoRejected,
  StepsDescribed,
  KeyStepsIdentified,
  LabelFunctionInferred,
  LabelFunctionRejected,
  ModelCalled,
  TrajectoryRecorded,
  TrajectoryVerified,
  NodeExpanded,
  PathAdded,
  PathRefused,
  TrajectoryPromoted,
  TaskExtrapolated,
  TaskExtrapolationRejected,
  RoundExtrapolated,
  DatasetRecordEmitted,
  DatasetSealed
] as const

export const upcasters = [
  // v1 tasks were all web tasks, and named their start page `url`.
  upcaster(TaskRegisteredV1, TaskRegistered, ({ url, ...rest }) => ({
    ...rest,
    platform: "web" as const,
    startUrl: url,
    app: null
  }))
] as const

export const catalog = makeRegistry(definitions, upcasters)

/** Any event of the catalog, decoded to its current version. */
export type CoreEvent = EventOf<(typeof definitions)[number]>
export type CoreEventType = CoreEvent["type"]
