/**
 * What a run needs of the app it runs on, and nothing more: the run's tasks as the log
 * registers them, where their episodes come from, a demo for a task that has none, and —
 * for measurement alone — the app's own judgement of an ended episode. The bundled sites
 * implement it, and so does any app pack; the run engine has one path for both.
 *
 * @example
 * const app: RunApp = yield* bundledApp()   // or an app pack's
 * yield* executeRun(config, layer, plan, app, progress)
 */
import type { Effect } from "effect"
import { Schema } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { EnvironmentShape, EnvTask, EpisodeSource } from "@core/environment"
import type { TaskRegistered } from "@core/events"
import type { EpisodeEnd } from "./LiveObservations.ts"

/** What `TaskRegistered` records of a task. */
export type TaskRegistration = typeof TaskRegistered.data.Type

/** A task of the app, as the engine sees it. */
export interface RunTask {
  readonly id: string
  readonly registration: TaskRegistration
  /** How an episode of it starts, without its task id: an app's `site` and `siteSeed`, or a `startUrl`. */
  readonly start: Omit<EnvTask, "taskId">
}

/** The app could not give what was asked (a demo, its held-out tasks): one line. */
export class RunAppError extends Schema.TaggedError<RunAppError>()("RunAppError", {
  message: Schema.String
}) {}

/**
 * A demo the app's own check says does not do its task: neither written nor ingested. The
 * message is one line naming the task and the verdict.
 */
export class DemoRejected extends Schema.TaggedError<DemoRejected>()("DemoRejected", {
  taskId: Schema.String,
  message: Schema.String
}) {}

/** The app's own check of an ended episode. Measurement only: no decision may read it. */
export interface EpisodeJudgement {
  readonly success: boolean
  readonly reason: string
}

export interface RunApp {
  /** Opens and ends the app's episodes for the environments (each with its own state). */
  readonly episodes: EpisodeSource
  /** Held-out tasks of the apps the run's tasks are on: registered, so extrapolation keeps away from them. */
  readonly heldOut: (tasks: ReadonlyArray<RunTask>) => Effect.Effect<ReadonlyArray<RunTask>, RunAppError>
  /**
   * A demo of `task` played in `env` and written under `dir` with `demoId` (its blobs read
   * from the BlobStore): the demo.json's path. `DemoRejected` when the app judged the played
   * demo and it does not do the task: nothing is written. Judging gates what the run takes
   * as input, before it starts; no decision reads the verdict.
   */
  readonly demo: (
    env: EnvironmentShape,
    task: RunTask,
    dir: string,
    demoId: string
  ) => Effect.Effect<string, RunAppError | DemoRejected, BlobStore>
  /** MEASUREMENT ONLY: the app's verdict on an ended episode, or null when it has none for this task. */
  readonly judge: (task: RunTask, end: EpisodeEnd) => Effect.Effect<EpisodeJudgement | null>
}
