/**
 * How every failure reads on the command line: one table from a tagged error's `_tag` to its
 * one-line message and exit code. Commands let the libraries' typed errors through instead of
 * flattening them into strings, and `runCommand` renders whatever reaches it here — so the
 * wording and the exit code of each failure are decided in one place, and a new error class
 * gets its line by being added to the table (a test fails until it is). Each entry carries its
 * class, so the union of what a command may fail with is read off the table, not listed again.
 *
 * @example
 * renderFailure(new StoreUnavailable({ store: "nats", reason: "connection refused" }))
 * // { line: "event store nats is unavailable: connection refused", exit: 1 }
 */
import { Schema } from "effect"
import { AppCheckFailed, InstanceError, PackError } from "@core/apps"
import { BlobCorrupt, BlobNotFound, BlobStoreError } from "@core/blobstore"
import { BenchError } from "./bench/StoreBench.ts"
import { ConfigError } from "@core/config"
import { ConsoleError, QueryFailed } from "@core/console"
import { DatasetError } from "@core/datasets"
import {
  DemoFileError,
  DemoNotWritten,
  DemoWriteError,
  RecorderFailed,
  RecordTargetFailed,
  StepFileError,
  StepPlayError,
  StepsNotPlayed,
  UnknownRecordTask
} from "@core/demos"
import { PageSourceError, XmlError } from "@core/env-android"
import { EvalError, EvalInputError, EvalSetNotBuilt } from "@core/evaluation"
import { ActionTimeout, InfraError } from "@core/environment"
import { EventTooLarge, InvalidEvent, joinLines, messageOf, UnknownEventType, UnknownEventVersion } from "@core/events"
import { ConcurrencyError, InvalidAppend, NatsCredentialsError, StoreUnavailable, UnreadableEvent } from "@core/eventstore"
import { ModelRecordFailed, PromptNotFound, PromptVariableMissing } from "@core/models"
import { DemoRejected, ElementsUnreadable, GraphUnfoldable, LabelFunctionNotInRun, RunAppError } from "@core/pipeline"
import { GroundTruthUnreadable, QueueUnavailable, RunError, UnknownPackTask } from "@core/run"
import { PolicyAnswerInvalid } from "@core/policy"
import { DatabaseError, ProjectorConflict } from "@core/projections"
import {
  ActionMismatch,
  BlobAltered,
  EnvironmentFailed,
  ModelCallFailed,
  ModelCallNotRecorded,
  ModelRequestMismatch,
  ObservationNotRecorded,
  PublishedPolicyNotRecorded,
  PublishedPolicyRefused,
  RunConfigClash,
  RunNotFound,
  UnknownRun
} from "@core/engine"
import { SandboxError } from "@core/sandbox"
import { ListenFailed } from "@core/sites"
import { UnknownBundledTask } from "@core/sites/run"
import { SuiteError } from "@core/sites/suites"
import { NothingToTrain, TrainerStateError } from "@core/trainer"
import { PresenceUnreadable, QueueError } from "@core/workers"

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

/** The exit code of a command that failed for any reason but bad usage. */
export const EXIT_FAILURE = 1
/** The exit code of bad usage: the command line itself is wrong. */
export const EXIT_USAGE = 2

type ErrorClass = new (...args: never) => Error

/** A failure's class, its line (before it is folded onto one line) and the process's exit code. */
export interface Rendering<C extends ErrorClass> {
  readonly error: C
  readonly exit: number
  readonly line: (error: InstanceType<C>) => string
}

// Most libraries already word their messages for a person; their line is the message itself.
const said = <C extends ErrorClass>(error: C): Rendering<C> => ({ error, exit: EXIT_FAILURE, line: (e) => e.message })
const usage = <C extends ErrorClass>(error: C): Rendering<C> => ({ error, exit: EXIT_USAGE, line: (e) => e.message })

// Keyed by `_tag`; errors thrown from code that is not Effect (the NATS connection, an
// action's timer) are plain Error subclasses, keyed by their class name instead.
export const failures = {
  UsageError: usage(UsageError),
  CliError: said(CliError),
  StepsNotPlayed: said(StepsNotPlayed),
  RecorderFailed: said(RecorderFailed),
  DemoNotWritten: said(DemoNotWritten),
  FlagFileUnreadable: said(FlagFileUnreadable),
  ListenFailed: said(ListenFailed),
  AppCheckFailed: said(AppCheckFailed),
  GraphUnfoldable: said(GraphUnfoldable),
  EvalSetNotBuilt: said(EvalSetNotBuilt),
  PresenceUnreadable: said(PresenceUnreadable),
  BenchError: said(BenchError),
  InstanceError: said(InstanceError),
  PackError: said(PackError),
  BlobCorrupt: said(BlobCorrupt),
  BlobNotFound: said(BlobNotFound),
  BlobStoreError: said(BlobStoreError),
  ConfigError: said(ConfigError),
  ConsoleError: said(ConsoleError),
  QueryFailed: said(QueryFailed),
  DemoFileError: said(DemoFileError),
  DemoWriteError: said(DemoWriteError),
  StepFileError: said(StepFileError),
  StepPlayError: said(StepPlayError),
  PageSourceError: said(PageSourceError),
  XmlError: said(XmlError),
  InfraError: said(InfraError),
  ActionTimeout: said(ActionTimeout),
  EventTooLarge: said(EventTooLarge),
  InvalidEvent: said(InvalidEvent),
  UnknownEventType: said(UnknownEventType),
  UnknownEventVersion: said(UnknownEventVersion),
  ConcurrencyError: said(ConcurrencyError),
  InvalidAppend: said(InvalidAppend),
  NatsCredentialsError: said(NatsCredentialsError),
  StoreUnavailable: said(StoreUnavailable),
  UnreadableEvent: said(UnreadableEvent),
  ModelRecordFailed: said(ModelRecordFailed),
  PromptNotFound: said(PromptNotFound),
  PromptVariableMissing: said(PromptVariableMissing),
  DemoRejected: said(DemoRejected),
  ElementsUnreadable: said(ElementsUnreadable),
  GroundTruthUnreadable: said(GroundTruthUnreadable),
  LabelFunctionNotInRun: said(LabelFunctionNotInRun),
  RunAppError: said(RunAppError),
  RunError: said(RunError),
  PolicyAnswerInvalid: said(PolicyAnswerInvalid),
  DatabaseError: said(DatabaseError),
  ProjectorConflict: said(ProjectorConflict),
  ActionMismatch: said(ActionMismatch),
  BlobAltered: said(BlobAltered),
  EnvironmentFailed: said(EnvironmentFailed),
  ModelCallFailed: said(ModelCallFailed),
  ModelCallNotRecorded: said(ModelCallNotRecorded),
  ModelRequestMismatch: said(ModelRequestMismatch),
  ObservationNotRecorded: said(ObservationNotRecorded),
  PublishedPolicyNotRecorded: said(PublishedPolicyNotRecorded),
  PublishedPolicyRefused: said(PublishedPolicyRefused),
  RunNotFound: said(RunNotFound),
  SandboxError: said(SandboxError),
  SuiteError: said(SuiteError),
  DatasetError: said(DatasetError),
  EvalError: said(EvalError),
  // A request naming a task, site or split that is not there: the command line is wrong.
  EvalInputError: usage(EvalInputError),
  RunConfigClash: said(RunConfigClash),
  // A --tasks entry the pack does not have: the command line is wrong.
  UnknownPackTask: usage(UnknownPackTask),
  // A --suite, --site or --tasks the bundled suites do not have: the command line is wrong.
  UnknownBundledTask: usage(UnknownBundledTask),
  QueueUnavailable: said(QueueUnavailable),
  UnknownRun: said(UnknownRun),
  // A task the bundled suites or the pack do not have: the command line is wrong.
  UnknownRecordTask: usage(UnknownRecordTask),
  RecordTargetFailed: said(RecordTargetFailed),
  QueueError: said(QueueError),
  NothingToTrain: said(NothingToTrain),
  TrainerStateError: said(TrainerStateError)
}

type Failures = typeof failures
export type FailureTag = keyof Failures
/** Every failure the table renders: what a command's `run` may fail with. */
export type Failure = InstanceType<Failures[FailureTag]["error"]>

// A tagged entry under another key than its class's `_tag` would never be found: this fails to compile then.
type Misfiled = {
  [K in FailureTag]: InstanceType<Failures[K]["error"]> extends { readonly _tag: infer T } ? (T extends K ? never : K) : never
}[FailureTag]
const misfiled: [Misfiled] extends [never] ? "none" : Misfiled = "none"
void misfiled

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
  const entry: Rendering<ErrorClass> | undefined =
    tag !== undefined && Object.hasOwn(failures, tag) ? (failures[tag as FailureTag] as unknown as Rendering<ErrorClass>) : undefined
  if (entry !== undefined) return { line: joinLines(entry.line(error as never)), exit: entry.exit }
  return { line: joinLines(messageOf(error)), exit: EXIT_FAILURE }
}
