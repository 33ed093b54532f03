/**
 * How every failure reads on the command line: one table from a tagged error's `_tag` to its
 * one-line message and exit code. Commands let the libraries' typed errors through instead of
 * flattening them into strings, and `runCommand` renders whatever reaches it here — so the
 * wording and the exit code of each failure are decided in one place, and a new error class
 * gets its line by being added to the table (a test fails until it is).
 *
 * @example
 * renderFailure(new StoreUnavailable({ store: "nats", reason: "connection refused" }))
 * // { line: "event store nats is unavailable: connection refused", exit: 1 }
 */
import { Schema } from "effect"
import type { InstanceError, PackError } from "@core/apps"
import type { BlobCorrupt, BlobNotFound, BlobStoreError } from "@core/blobstore"
import type { BenchError } from "./bench/StoreBench.ts"
import type { ConfigError } from "@core/config"
import type { ConsoleError, QueryFailed } from "@core/console"
import type { DatasetError } from "@core/datasets"
import type { DemoFileError, DemoWriteError, RecordTargetFailed, StepFileError, StepPlayError, UnknownRecordTask } from "@core/demos"
import type { PageSourceError, XmlError } from "@core/env-android"
import type { EvalError, EvalInputError } from "@core/evaluation"
import type { ActionTimeout, InfraError } from "@core/environment"
import {
  type EventTooLarge,
  type InvalidEvent,
  joinLines,
  messageOf,
  oneLine,
  type UnknownEventType,
  type UnknownEventVersion
} from "@core/events"
import type { ConcurrencyError, InvalidAppend, NatsCredentialsError, StoreUnavailable, UnreadableEvent } from "@core/eventstore"
import type { ModelRecordFailed, PromptNotFound, PromptVariableMissing } from "@core/models"
import type { DemoRejected, ElementsUnreadable, LabelFunctionNotInRun, RunAppError } from "@core/pipeline"
import type { GroundTruthUnreadable, RunError, UnknownPackTask } from "@core/run"
import type { PolicyAnswerInvalid } from "@core/policy"
import type { DatabaseError, ProjectorConflict } from "@core/projections"
import type {
  ActionMismatch,
  BlobAltered,
  EnvironmentFailed,
  ModelCallFailed,
  ModelCallNotRecorded,
  ModelRequestMismatch,
  ObservationNotRecorded,
  RunConfigClash,
  RunNotFound,
  UnknownRun
} from "@core/engine"
import type { SandboxError } from "@core/sandbox"
import type { UnknownBundledTask } from "@core/sites/run"
import type { SuiteError } from "@core/sites/suites"
import type { QueueUnavailable } from "@core/run"
import type { QueueError } from "@core/workers"

/** Bad usage: unknown command or flag, missing or malformed value. Exit code 2. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {}

/**
 * A failure only the command line has (a bad combination of flags, a file it will not
 * overwrite, a check that failed): its message is the line. Exit code 1. A library's failure
 * is never wrapped in one — it reaches the table with its own tag.
 */
export class CliError extends Schema.TaggedError<CliError>()("CliError", {
  message: Schema.String
}) {}

/** A step file that did not play to its end, named with the step's failure. */
export class StepsNotPlayed extends Schema.TaggedError<StepsNotPlayed>()("StepsNotPlayed", {
  file: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${oneLine(this.file, 1000)}: ${this.reason}`
  }
}

/** The browser window a person records in could not be opened or driven. */
export class RecorderFailed extends Schema.TaggedError<RecorderFailed>()("RecorderFailed", {
  doing: Schema.Literals(["start", "record"]),
  reason: Schema.String
}) {
  override get message() {
    return this.doing === "start" ? `cannot start the recorder: ${this.reason}` : `cannot record: ${this.reason}`
  }
}

/** A finished recording that could not be written where it was asked to go. */
export class DemoNotWritten extends Schema.TaggedError<DemoNotWritten>()("DemoNotWritten", {
  out: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot write the demo to ${this.out}: ${this.reason}`
  }
}

/** A file a flag names that cannot be read. */
export class FlagFileUnreadable extends Schema.TaggedError<FlagFileUnreadable>()("FlagFileUnreadable", {
  flag: Schema.String,
  file: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `--${this.flag}: cannot read ${this.file} (${this.reason})`
  }
}

/** A server that could not take its address. */
export class ListenFailed extends Schema.TaggedError<ListenFailed>()("ListenFailed", {
  address: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot listen on ${this.address}: ${this.reason}`
  }
}

/** An app pack's check that failed: the app's name leads the line, so two packs' failures are told apart. */
export class AppCheckFailed extends Schema.TaggedError<AppCheckFailed>()("AppCheckFailed", {
  app: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `app ${this.app}: ${this.reason}`
  }
}

/** A task's strategy graph whose events do not fold into a graph: the log holds something this build cannot read. */
export class GraphUnfoldable extends Schema.TaggedError<GraphUnfoldable>()("GraphUnfoldable", {
  taskId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the log's strategy graph of ${this.taskId} does not fold: ${this.reason}`
  }
}

/** The label evaluation set could not be built (its suites, its browser, its rollouts): the step leads the line. */
export class EvalSetNotBuilt extends Schema.TaggedError<EvalSetNotBuilt>()("EvalSetNotBuilt", {
  reason: Schema.String
}) {
  override get message() {
    return `building the evaluation set: ${this.reason}`
  }
}

/** The workers' presence on the NATS server could not be read. */
export class PresenceUnreadable extends Schema.TaggedError<PresenceUnreadable>()("PresenceUnreadable", {
  reason: Schema.String
}) {
  override get message() {
    return `cannot read the workers' presence: ${this.reason}`
  }
}

/** Every failure the table renders: what a command's `run` may fail with. */
export type Failure =
  | UsageError
  | CliError
  | StepsNotPlayed
  | RecorderFailed
  | DemoNotWritten
  | FlagFileUnreadable
  | ListenFailed
  | AppCheckFailed
  | GraphUnfoldable
  | EvalSetNotBuilt
  | PresenceUnreadable
  | BenchError
  | InstanceError
  | PackError
  | BlobCorrupt
  | BlobNotFound
  | BlobStoreError
  | ConfigError
  | ConsoleError
  | QueryFailed
  | DemoFileError
  | DemoWriteError
  | StepFileError
  | StepPlayError
  | PageSourceError
  | XmlError
  | InfraError
  | ActionTimeout
  | EventTooLarge
  | InvalidEvent
  | UnknownEventType
  | UnknownEventVersion
  | ConcurrencyError
  | InvalidAppend
  | NatsCredentialsError
  | StoreUnavailable
  | UnreadableEvent
  | ModelRecordFailed
  | PromptNotFound
  | PromptVariableMissing
  | DemoRejected
  | ElementsUnreadable
  | GroundTruthUnreadable
  | LabelFunctionNotInRun
  | RunAppError
  | RunError
  | PolicyAnswerInvalid
  | DatabaseError
  | ProjectorConflict
  | ActionMismatch
  | BlobAltered
  | EnvironmentFailed
  | ModelCallFailed
  | ModelCallNotRecorded
  | ModelRequestMismatch
  | ObservationNotRecorded
  | RunNotFound
  | SandboxError
  | SuiteError
  | DatasetError
  | EvalError
  | EvalInputError
  | RunConfigClash
  | UnknownPackTask
  | UnknownBundledTask
  | QueueUnavailable
  | UnknownRun
  | UnknownRecordTask
  | RecordTargetFailed
  | QueueError

/** A failure's line (before it is folded onto one line) and the process's exit code. */
export interface Rendering<E> {
  readonly exit: number
  readonly line: (error: E) => string
}

/** The exit code of a command that failed for any reason but bad usage. */
export const EXIT_FAILURE = 1
/** The exit code of bad usage: the command line itself is wrong. */
export const EXIT_USAGE = 2

// Errors thrown from code that is not Effect (the NATS connection, an action's timer) are
// plain Error subclasses: the table knows them by their class name instead of a `_tag`.
interface Thrown {
  readonly NatsCredentialsError: NatsCredentialsError
  readonly ActionTimeout: ActionTimeout
}
type Tagged = Exclude<Failure, Thrown[keyof Thrown]>
export type FailureTag = Tagged["_tag"] | keyof Thrown
type Table = { readonly [K in Tagged["_tag"]]: Rendering<Extract<Tagged, { readonly _tag: K }>> } & {
  readonly [K in keyof Thrown]: Rendering<Thrown[K]>
}

// Most libraries already word their messages for a person; their line is the message itself.
const itsMessage = { exit: EXIT_FAILURE, line: (e: { readonly message: string }) => e.message }

export const failures: Table = {
  UsageError: { exit: EXIT_USAGE, line: (e) => e.message },
  CliError: itsMessage,
  StepsNotPlayed: itsMessage,
  RecorderFailed: itsMessage,
  DemoNotWritten: itsMessage,
  FlagFileUnreadable: itsMessage,
  ListenFailed: itsMessage,
  AppCheckFailed: itsMessage,
  GraphUnfoldable: itsMessage,
  EvalSetNotBuilt: itsMessage,
  PresenceUnreadable: itsMessage,
  BenchError: itsMessage,
  InstanceError: itsMessage,
  PackError: itsMessage,
  BlobCorrupt: itsMessage,
  BlobNotFound: itsMessage,
  BlobStoreError: itsMessage,
  ConfigError: itsMessage,
  ConsoleError: itsMessage,
  QueryFailed: itsMessage,
  DemoFileError: itsMessage,
  DemoWriteError: itsMessage,
  StepFileError: itsMessage,
  StepPlayError: itsMessage,
  PageSourceError: itsMessage,
  XmlError: itsMessage,
  InfraError: itsMessage,
  ActionTimeout: itsMessage,
  EventTooLarge: itsMessage,
  InvalidEvent: itsMessage,
  UnknownEventType: itsMessage,
  UnknownEventVersion: itsMessage,
  ConcurrencyError: itsMessage,
  InvalidAppend: itsMessage,
  NatsCredentialsError: itsMessage,
  StoreUnavailable: itsMessage,
  UnreadableEvent: itsMessage,
  ModelRecordFailed: itsMessage,
  PromptNotFound: itsMessage,
  PromptVariableMissing: itsMessage,
  DemoRejected: itsMessage,
  ElementsUnreadable: itsMessage,
  GroundTruthUnreadable: itsMessage,
  LabelFunctionNotInRun: itsMessage,
  RunAppError: itsMessage,
  RunError: itsMessage,
  PolicyAnswerInvalid: itsMessage,
  DatabaseError: itsMessage,
  ProjectorConflict: itsMessage,
  ActionMismatch: itsMessage,
  BlobAltered: itsMessage,
  EnvironmentFailed: itsMessage,
  ModelCallFailed: itsMessage,
  ModelCallNotRecorded: itsMessage,
  ModelRequestMismatch: itsMessage,
  ObservationNotRecorded: itsMessage,
  RunNotFound: itsMessage,
  SandboxError: itsMessage,
  SuiteError: itsMessage,
  DatasetError: itsMessage,
  EvalError: itsMessage,
  // A request naming a task, site or split that is not there: the command line is wrong.
  EvalInputError: { exit: EXIT_USAGE, line: (e) => e.message },
  RunConfigClash: itsMessage,
  // A --tasks entry the pack does not have: the command line is wrong.
  UnknownPackTask: { exit: EXIT_USAGE, line: (e) => e.message },
  // A --suite, --site or --tasks the bundled suites do not have: the command line is wrong.
  UnknownBundledTask: { exit: EXIT_USAGE, line: (e) => e.message },
  QueueUnavailable: itsMessage,
  UnknownRun: itsMessage,
  // A task the bundled suites or the pack do not have: the command line is wrong.
  UnknownRecordTask: { exit: EXIT_USAGE, line: (e) => e.message },
  RecordTargetFailed: itsMessage,
  QueueError: itsMessage
}

/** The table's key for a failure: its `_tag`, or for a thrown Error subclass its class's name. */
export const tagOf = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const tag = (error as { readonly _tag?: unknown })._tag
  if (typeof tag === "string") return tag
  return error instanceof Error && error.constructor !== Error ? error.constructor.name : undefined
}

/** One line and an exit code for any failure: the table's for a known tag, else its message and 1. */
export const renderFailure = (error: unknown): { readonly line: string; readonly exit: number } => {
  const tag = tagOf(error)
  const entry: Rendering<never> | undefined =
    tag !== undefined && Object.hasOwn(failures, tag) ? (failures[tag as FailureTag] as Rendering<never>) : undefined
  if (entry !== undefined) return { line: joinLines(entry.line(error as never)), exit: entry.exit }
  return { line: joinLines(messageOf(error)), exit: EXIT_FAILURE }
}
