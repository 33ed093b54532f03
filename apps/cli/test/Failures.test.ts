/**
 * How failures read on the command line (Failures.ts): every entry of the table renders one
 * line even when the failure's text has several, an error the table does not know still gets
 * its message, and the table covers every tagged error class a library exports from its
 * mod.ts — so a new error class cannot reach a user without a line of its own.
 */
import { expect, test } from "bun:test"
import { Glob } from "bun"
import { Schema } from "effect"
import { join } from "node:path"
import { AppCheckFailed, InstanceError, PackError } from "@core/apps"
import { BlobCorrupt, BlobNotFound, BlobStoreError } from "@core/blobstore"
import { ConfigError } from "@core/config"
import { ConsoleError, QueryFailed } from "@core/console"
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
import { ActionTimeout, InfraError } from "@core/environment"
import { EventTooLarge, InvalidEvent, UnknownEventType, UnknownEventVersion } from "@core/events"
import { ConcurrencyError, InvalidAppend, NatsCredentialsError, StoreUnavailable, UnreadableEvent } from "@core/eventstore"
import { ModelRecordFailed, PromptNotFound, PromptVariableMissing } from "@core/models"
import { DemoRejected, ElementsUnreadable, GraphUnfoldable, LabelFunctionNotInRun, RunAppError } from "@core/pipeline"
import { GroundTruthUnreadable, RunError, UnknownPackTask } from "@core/run"
import { PolicyAnswerInvalid } from "@core/policy"
import { DatabaseError, ProjectorConflict } from "@core/projections"
import {
  ActionMismatch,
  BlobAltered,
  EnvironmentFailed,
  ModelCallFailed,
  ModelCallNotRecorded,
  PublishedPolicyNotRecorded,
  PublishedPolicyRefused,
  ModelRequestMismatch,
  ObservationNotRecorded,
  RunConfigClash,
  RunNotFound,
  UnknownRun
} from "@core/engine"
import { SandboxError } from "@core/sandbox"
import { DatasetError } from "@core/datasets"
import { EvalError, EvalInputError, EvalSetNotBuilt } from "@core/evaluation"
import { ListenFailed } from "@core/sites"
import { UnknownBundledTask } from "@core/sites/run"
import { SuiteError } from "@core/sites/suites"
import { PresenceUnreadable, QueueError } from "@core/workers"
import { QueueUnavailable } from "@core/run"
import { NothingToTrain, TrainerStateError } from "@core/trainer"
import { CliError, FlagFileUnreadable, failures, renderFailure, UsageError } from "../Failures.ts"
import type { FailureTag } from "../Failures.ts"
import { BenchError } from "../bench/StoreBench.ts"

const REPO = join(import.meta.dir, "..", "..", "..")

// Text of several lines, as a browser's or a driver's error often is: the line must fold it.
const TWO = "first line\n  second line"
const ID = "0123456789abcdef0123456789abcdef"

/** One failure of each tag the table names; the type makes a new table entry need a sample here. */
type Sample<K extends FailureTag> = InstanceType<(typeof failures)[K]["error"]>
const samples: { readonly [K in FailureTag]: Sample<K> } = {
  UsageError: new UsageError({ message: TWO }),
  CliError: new CliError({ message: TWO }),
  StepsNotPlayed: new StepsNotPlayed({ file: "steps.json", reason: TWO }),
  RecorderFailed: new RecorderFailed({ doing: "start", reason: TWO }),
  DemoNotWritten: new DemoNotWritten({ out: "demos/x", reason: TWO }),
  FlagFileUnreadable: new FlagFileUnreadable({ flag: "with-lf", file: "lf.js", reason: TWO }),
  ListenFailed: new ListenFailed({ address: "127.0.0.1:8080", reason: TWO }),
  AppCheckFailed: new AppCheckFailed({ app: "todo", reason: TWO }),
  GraphUnfoldable: new GraphUnfoldable({ taskId: "t1", reason: TWO }),
  EvalSetNotBuilt: new EvalSetNotBuilt({ reason: TWO }),
  PresenceUnreadable: new PresenceUnreadable({ reason: TWO }),
  BenchError: new BenchError({ message: TWO }),
  InstanceError: new InstanceError({ app: "todo", reason: TWO }),
  PackError: new PackError({ file: "core-app.json", path: "tasks[0]", problem: TWO }),
  BlobCorrupt: new BlobCorrupt({ hash: ID, actual: "unknown" }),
  BlobNotFound: new BlobNotFound({ hash: ID }),
  BlobStoreError: new BlobStoreError({ reason: TWO }),
  ConfigError: new ConfigError({ message: TWO }),
  ConsoleError: new ConsoleError({ message: TWO }),
  QueryFailed: new QueryFailed({ database: "core.db", reason: TWO }),
  DemoFileError: new DemoFileError({ file: "demo.json", demoId: null, path: "steps", problem: TWO, stepIndex: null }),
  DemoWriteError: new DemoWriteError({ message: TWO }),
  StepFileError: new StepFileError({ file: "steps.json", path: "steps[1]", problem: TWO }),
  StepPlayError: new StepPlayError({ message: TWO, step: 2 }),
  PageSourceError: new PageSourceError({ reason: TWO }),
  XmlError: new XmlError({ reason: TWO, line: 1, column: 2 }),
  InfraError: new InfraError({ reason: TWO }),
  ActionTimeout: new ActionTimeout("click", 30_000),
  EventTooLarge: new EventTooLarge({ type: "RunStarted", id: ID, bytes: 2_000_000, limit: 1_000_000 }),
  InvalidEvent: new InvalidEvent({ type: "RunStarted", version: 1, reason: TWO }),
  UnknownEventType: new UnknownEventType({ type: "Nope", version: 1 }),
  UnknownEventVersion: new UnknownEventVersion({ type: "RunStarted", version: 9, known: [1, 2] }),
  ConcurrencyError: new ConcurrencyError({ stream: "run.r1", expected: 1, actual: 2 }),
  InvalidAppend: new InvalidAppend({ stream: "run.r1", reason: TWO }),
  NatsCredentialsError: new NatsCredentialsError(TWO),
  StoreUnavailable: new StoreUnavailable({ store: "nats", reason: TWO }),
  UnreadableEvent: new UnreadableEvent({ position: 7, reason: TWO }),
  ModelRecordFailed: new ModelRecordFailed({ causationId: ID, callIndex: 0, cause: new Error(TWO) }),
  PromptNotFound: new PromptNotFound({ name: "infer", version: null, dir: "prompts", reason: TWO }),
  PromptVariableMissing: new PromptVariableMissing({ prompt: "infer", missing: ["task"] }),
  DemoRejected: new DemoRejected({ taskId: "t1", message: TWO }),
  ElementsUnreadable: new ElementsUnreadable({ hash: ID }),
  GroundTruthUnreadable: new GroundTruthUnreadable({ message: TWO }),
  LabelFunctionNotInRun: new LabelFunctionNotInRun({ runId: "r1", lfId: "abcdef", matches: 0 }),
  RunAppError: new RunAppError({ message: TWO }),
  RunError: new RunError({ message: TWO }),
  PolicyAnswerInvalid: new PolicyAnswerInvalid({ causationId: ID, callIndex: 1, reason: TWO }),
  DatabaseError: new DatabaseError({ database: "core.db", reason: TWO }),
  ProjectorConflict: new ProjectorConflict({ projection: "runs" }),
  ActionMismatch: new ActionMismatch({ eventId: ID, trajectoryId: "r1-s0-t1", step: 1, recorded: "a", requested: "b" }),
  BlobAltered: new BlobAltered({
    hash: ID,
    eventId: ID,
    trajectoryId: "r1-s0-t1",
    step: -1,
    field: "screenshot",
    actual: null,
    reason: TWO
  }),
  EnvironmentFailed: new EnvironmentFailed({ trajectoryId: "r1-s0-t1", attempt: 0, reason: TWO }),
  ModelCallFailed: new ModelCallFailed({ causationId: ID, callIndex: 0, reason: TWO }),
  ModelCallNotRecorded: new ModelCallNotRecorded({ causationId: ID, callIndex: 0 }),
  ModelRequestMismatch: new ModelRequestMismatch({ eventId: ID, causationId: ID, callIndex: 0, recorded: ID, requested: ID }),
  ObservationNotRecorded: new ObservationNotRecorded({ trajectoryId: "r1-s0-t1", step: 3 }),
  PublishedPolicyNotRecorded: new PublishedPolicyNotRecorded({ causationId: ID, trainer: "nightly" }),
  PublishedPolicyRefused: new PublishedPolicyRefused({ trainer: "nightly", reason: TWO }),
  RunNotFound: new RunNotFound({ runId: "r1" }),
  SandboxError: new SandboxError({ reason: TWO }),
  SuiteError: new SuiteError({ message: TWO }),
  DatasetError: new DatasetError({ message: TWO }),
  EvalError: new EvalError({ message: TWO }),
  EvalInputError: new EvalInputError({ message: TWO }),
  RunConfigClash: new RunConfigClash({ key: "run.tasks", message: TWO }),
  UnknownPackTask: new UnknownPackTask({ message: TWO }),
  UnknownBundledTask: new UnknownBundledTask({ message: TWO }),
  QueueUnavailable: new QueueUnavailable({ message: TWO }),
  UnknownRun: new UnknownRun({ runId: "r1" }),
  UnknownRecordTask: new UnknownRecordTask({ message: TWO }),
  RecordTargetFailed: new RecordTargetFailed({ message: TWO }),
  QueueError: new QueueError({ message: TWO }),
  NothingToTrain: new NothingToTrain({ runId: "r1", reason: TWO }),
  TrainerStateError: new TrainerStateError({ dir: ".core/trainer/nightly", reason: TWO })
}

test("each entry of the table renders its failure as one non-empty line, with the entry's exit code", () => {
  for (const [tag, sample] of Object.entries(samples)) {
    const { line, exit } = renderFailure(sample)
    expect({ tag, multiline: line.includes("\n") }).toEqual({ tag, multiline: false })
    expect(line.trim().length).toBeGreaterThan(0)
    expect(exit).toBe(failures[tag as FailureTag].exit)
  }
  expect(Object.keys(samples).sort()).toEqual(Object.keys(failures).sort())
})

test("each entry is filed under its class's tag, and its sample is of that class", () => {
  for (const [tag, entry] of Object.entries(failures)) {
    expect({ tag, filedAs: errorTagOf(entry.error) }).toEqual({ tag, filedAs: tag })
    expect(samples[tag as FailureTag]).toBeInstanceOf(entry.error)
  }
})

test("usage errors exit 2, every other failure 1; a library's message is its line", () => {
  expect(renderFailure(samples.UsageError).exit).toBe(2)
  expect(renderFailure(samples.StoreUnavailable)).toEqual({
    line: "event store nats is unavailable: first line; second line",
    exit: 1
  })
  expect(renderFailure(samples.StepsNotPlayed).line).toBe("steps.json: first line; second line")
  expect(renderFailure(samples.RecorderFailed).line).toBe("cannot start the recorder: first line; second line")
  expect(renderFailure(new RecorderFailed({ doing: "record", reason: "gone" })).line).toBe("cannot record: gone")
  expect(renderFailure(samples.FlagFileUnreadable).line).toBe("--with-lf: cannot read lf.js (first line; second line)")
  expect(renderFailure(samples.EvalSetNotBuilt).line).toBe("building the evaluation set: first line; second line")
  expect(renderFailure(samples.PresenceUnreadable).line).toBe("cannot read the workers' presence: first line; second line")
  expect(renderFailure(samples.ElementsUnreadable).line).toBe("elements blob 0123456789ab is not JSON")
})

test("a tagged error the table does not know still gets its message, on one line, exit 1", () => {
  class SomethingNew extends Schema.TaggedError<SomethingNew>()("SomethingNew", { message: Schema.String }) {}
  expect(renderFailure(new SomethingNew({ message: TWO }))).toEqual({ line: "first line; second line", exit: 1 })
  expect(renderFailure({ _tag: "Plain", message: "as an object" })).toEqual({ line: "as an object", exit: 1 })
  expect(renderFailure("a bare string")).toEqual({ line: "a bare string", exit: 1 })
  // A tag that happens to be an Object.prototype key is not an entry of the table.
  expect(renderFailure({ _tag: "toString", message: "not a table entry" })).toEqual({ line: "not a table entry", exit: 1 })
})

/** The tag of an exported error class: a Schema tagged error's `_tag`, else (a thrown Error subclass) its name. */
const errorTagOf = (value: unknown): string | undefined => {
  if (typeof value !== "function" || !(value.prototype instanceof Error)) return undefined
  const tag = (value as { readonly fields?: { readonly _tag?: { readonly ast?: { readonly literal?: unknown } } } }).fields?._tag?.ast
    ?.literal
  if (Schema.isSchema(value) && typeof tag === "string") return tag
  return value.name
}

/** Error classes exported by these modules that the table has no line for, as `module: tag`. */
const uncovered = (modules: ReadonlyArray<readonly [string, Record<string, unknown>]>, table: object): Array<string> =>
  modules.flatMap(([name, exports]) =>
    Object.values(exports)
      .map(errorTagOf)
      .filter((tag): tag is string => tag !== undefined && !Object.hasOwn(table, tag))
      .map((tag) => `${name}: ${tag}`)
  )

test("the table has a line for every error class a library exports from its mod.ts", async () => {
  const mods = [...new Glob("libs/*/mod.ts").scanSync({ cwd: REPO }), "events/mod.ts"].sort()
  expect(mods.length).toBeGreaterThan(10)
  const modules = await Promise.all(mods.map(async (path) => [path, (await import(join(REPO, path))) as Record<string, unknown>] as const))
  expect(uncovered(modules, failures)).toEqual([])
  // The check sees the classes at all: eventstore's are among them.
  const eventstore = modules.find(([path]) => path === "libs/eventstore/mod.ts")![1]
  expect(Object.values(eventstore).map(errorTagOf).filter(Boolean).sort()).toEqual([
    "ConcurrencyError",
    "InvalidAppend",
    "NatsCredentialsError",
    "StoreUnavailable",
    "UnreadableEvent"
  ])
})

test("the check can fail: a library exporting a new error class without a line is caught", () => {
  class BrandNew extends Schema.TaggedError<BrandNew>()("BrandNew", { reason: Schema.String }) {}
  class ThrownOne extends Error {
    override readonly name = "ThrownOne"
  }
  const lib = { BrandNew, ThrownOne, StoreUnavailable, helper: () => 1, CONSTANT: "x" }
  expect(uncovered([["libs/new/mod.ts", lib]], failures)).toEqual(["libs/new/mod.ts: BrandNew", "libs/new/mod.ts: ThrownOne"])
})
