/**
 * What `record` plays a task on, whoever provides it (the bundled sites' `bundledTarget`,
 * an app pack's `packTarget`): the task, how it is named, where its demo goes, and the
 * scoped start of an episode — a start URL for a person, an environment for a step file,
 * and the app's own judgement of the played demo when it has one.
 *
 * @example
 * const target = yield* packTarget(dir, "notes-add", { flags, granted })
 * const opened = yield* target.open // in a scope: the instance stops with it
 */
import type { Effect, Scope } from "effect"
import { Schema } from "effect"
import type { BlobStore } from "@core/blobstore"
import type { EnvironmentShape, EnvTask, ReadSecret } from "@core/environment"
import type { Action, Platform } from "@core/events"

/** The task to record is not one the target has (a usage error on the command line). */
export class UnknownRecordTask extends Schema.TaggedError<UnknownRecordTask>()("UnknownRecordTask", {
  message: Schema.String
}) {}

/** The target could not start, open an episode, or judge the demo: one line. */
export class RecordTargetFailed extends Schema.TaggedError<RecordTargetFailed>()("RecordTargetFailed", {
  message: Schema.String
}) {}

export interface RecordTarget {
  readonly taskId: string
  /** How the task is named on stderr: `shop-x on shop (seed 1, train)`. */
  readonly label: string
  readonly instruction: string
  /** The demo folder when `--out` is not given. */
  readonly defaultOut: string
  /** The task ids a demo may name, as ingest will check it. */
  readonly tasks: ReadonlySet<string>
  /** Where the task plays: a person records only on the web; another platform plays step files. */
  readonly platform: Platform
  /** Starts what the episode runs on, for the scope: the episode's task, its start URL and, off the web, the environment to play it in. */
  readonly open: Effect.Effect<
    {
      readonly task: EnvTask
      readonly startUrl: string
      readonly environment?: Effect.Effect<EnvironmentShape, never, BlobStore | Scope.Scope>
      /** Where a played step's `secretEnv` finds its value: a pack's episodes type only what the user allowed it. */
      readonly readSecret?: ReadSecret
      /**
       * The app's own check of a played demo, on the instance it was played on (a pack with
       * `evaluate`): fails with one line when the demo does not do the task.
       */
      readonly judge?: (actions: ReadonlyArray<Action>) => Effect.Effect<void, RecordTargetFailed>
    },
    RecordTargetFailed,
    Scope.Scope
  >
}

/** A failure of `what`, as one line. */
export const targetFailed = (what: string) => (e: unknown) =>
  new RecordTargetFailed({ message: `${what}: ${e instanceof Error ? e.message : String(e)}` })
