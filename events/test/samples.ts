/**
 * One realistic event of every catalog type, shaped like what the pipeline writes for
 * one small web task (the data is `examples`). Keyed by type, so the compiler already insists on one per type;
 * Catalog.test.ts checks the same at run time against `definitions`.
 */
import { sha256 } from "../Canonical.ts"
import { examples } from "../Examples.ts"
import type { CoreEvent, CoreEventType } from "../Catalog.ts"
import { makeEvent } from "../Event.ts"
import type { EventDefinition, EventOf } from "../Event.ts"
import { DatasetRecordEmitted, DatasetSealed } from "../Dataset.ts"
import { NodeExpanded, PathAdded, PathRefused, TrajectoryPromoted } from "../Graph.ts"
import { JobCompleted, JobQueued } from "../Job.ts"
import { KeyStepsIdentified, LabelFunctionInferred, LabelFunctionRejected, StepsDescribed } from "../Labeling.ts"
import { ModelCalled } from "../Models.ts"
import { PolicyTrained, RoundCompleted, RoundStarted, RunStarted } from "../Run.ts"
import { RoundExtrapolated, TaskExtrapolated, TaskExtrapolationRejected } from "../Task.ts"
import { TrajectoryRecorded, TrajectoryVerified } from "../Trajectory.ts"
import { DemoIngested, DemoRejected, TaskRegistered } from "../Workspace.ts"

export const at = "2026-03-01T12:00:00.000Z"
const runId = "r-20260301"
const cause = sha256("cause")

const inRun = <D extends EventDefinition>(def: D, kind: string, id: string, data: D["data"]["Type"], ordinal = 0): EventOf<D> =>
  makeEvent(def, { stream: `run.${runId}.${kind}.${id}`, runId, causationId: cause, ordinal, recordedAt: at, data })

const inWorkspace = <D extends EventDefinition>(def: D, kind: string, id: string, data: D["data"]["Type"]): EventOf<D> =>
  makeEvent(def, { stream: `ws.${kind}.${id}`, runId: null, causationId: null, ordinal: 0, recordedAt: at, data })

type Samples = { readonly [K in CoreEventType]: Extract<CoreEvent, { readonly type: K }> }

export const samples: Samples = {
  RunStarted: inRun(RunStarted, "run", "main", examples.RunStarted),
  RoundStarted: inRun(RoundStarted, "round", "1", examples.RoundStarted),
  RoundCompleted: inRun(RoundCompleted, "round", "1", examples.RoundCompleted),
  PolicyTrained: inRun(PolicyTrained, "round", "1", examples.PolicyTrained),
  JobQueued: inRun(JobQueued, "job", "j7", examples.JobQueued),
  JobCompleted: inRun(JobCompleted, "job", "j7", examples.JobCompleted),
  TaskRegistered: inWorkspace(TaskRegistered, "task", "shop-wishlist-7", examples.TaskRegistered),
  DemoIngested: inWorkspace(DemoIngested, "demo", "demo-wishlist-1", examples.DemoIngested),
  DemoRejected: inWorkspace(DemoRejected, "demo", "rejected-3", examples.DemoRejected),
  StepsDescribed: inWorkspace(StepsDescribed, "demo", "demo-wishlist-1", examples.StepsDescribed),
  KeyStepsIdentified: inWorkspace(KeyStepsIdentified, "demo", "demo-wishlist-1", examples.KeyStepsIdentified),
  LabelFunctionInferred: inWorkspace(LabelFunctionInferred, "lf", examples.LabelFunctionInferred.lfId, examples.LabelFunctionInferred),
  LabelFunctionRejected: inWorkspace(LabelFunctionRejected, "lf", "rejected-shop-wishlist-7-0", examples.LabelFunctionRejected),
  ModelCalled: inRun(ModelCalled, "model", "c0", examples.ModelCalled),
  TrajectoryRecorded: inRun(TrajectoryRecorded, "traj", "traj-r1-t7-s0", examples.TrajectoryRecorded),
  TrajectoryVerified: inRun(TrajectoryVerified, "traj", "traj-r1-t7-s0", examples.TrajectoryVerified),
  NodeExpanded: inRun(NodeExpanded, "graph", "shop-wishlist-7", examples.NodeExpanded),
  PathAdded: inRun(PathAdded, "graph", "shop-wishlist-7", examples.PathAdded),
  PathRefused: inRun(PathRefused, "graph", "shop-wishlist-7", examples.PathRefused),
  TrajectoryPromoted: inRun(TrajectoryPromoted, "graph", "shop-wishlist-7", examples.TrajectoryPromoted),
  TaskExtrapolated: inRun(TaskExtrapolated, "task", "x-shop-sort-1", examples.TaskExtrapolated),
  TaskExtrapolationRejected: inRun(TaskExtrapolationRejected, "task", "rejected-1", examples.TaskExtrapolationRejected),
  RoundExtrapolated: inRun(RoundExtrapolated, "round", "1", examples.RoundExtrapolated),
  DatasetRecordEmitted: inRun(DatasetRecordEmitted, "dataset", "1", examples.DatasetRecordEmitted),
  DatasetSealed: inRun(DatasetSealed, "dataset", "1", examples.DatasetSealed)
}
