/**
 * Workspace facts: tasks and expert demos. They outlive runs (streams `ws.task.<id>`,
 * `ws.demo.<id>`), and runs refer to them by id and content digest, so a demo edited
 * after a run is a new demo rather than a silent change to that run's inputs.
 */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"
import { Action, StepIndex } from "./Trajectory.ts"

export const Platform = Schema.Literals(["web", "android", "mobile-web"])
export type Platform = typeof Platform.Type

/** Tasks instantiated from a template keep it, so variants of one template can be grouped and held out together. */
export const TaskTemplate = Schema.Struct({
  id: Schema.String,
  parameters: Schema.Record(Schema.String, Schema.Json)
})

/**
 * Version 1, as first written: web only, with the start page as `url`. Kept so stored
 * v1 events still decode (through the upcaster in Catalog.ts) and tests can write them.
 */
export const TaskRegisteredV1 = defineEvent(
  "TaskRegistered",
  1,
  Schema.Struct({
    taskId: Schema.String,
    site: Schema.String,
    suite: Schema.String,
    template: Schema.NullOr(TaskTemplate),
    instruction: Schema.String,
    siteSeed: Schema.NullOr(Schema.Int),
    checker: Schema.NullOr(Schema.String),
    url: Schema.String
  })
)

export const TaskRegistered = defineEvent(
  "TaskRegistered",
  2,
  Schema.Struct({
    taskId: Schema.String,
    site: Schema.String,
    suite: Schema.String,
    template: Schema.NullOr(TaskTemplate),
    /** All a policy or label function may know of the task: ground truth is for evaluation code only. */
    instruction: Schema.String,
    /** Seeds the site's generated state, so every rollout of the task starts from the same world. */
    siteSeed: Schema.NullOr(Schema.Int),
    /** Ground-truth checker, by name. Only `eval` may resolve it; CORE's labels never depend on it. */
    checker: Schema.NullOr(Schema.String),
    platform: Platform,
    /** Where a web task starts (null on Android). */
    startUrl: Schema.NullOr(Schema.String),
    /** The app an Android task starts in (null when it starts at the home screen or on the web). */
    app: Schema.NullOr(Schema.String)
  })
)

/** Where a demo came from: a file (with its path) or the interactive recorder (with its session). */
export const DemoSource = Schema.Struct({
  kind: Schema.Literals(["file", "recorder"]),
  ref: Schema.String
})
export type DemoSource = typeof DemoSource.Type

/** What a demo saw of the screen, as blob hashes: `aria` holds the UiAutomator hierarchy on Android. */
export const DemoObservation = Schema.Struct({
  screenshot: Schema.NullOr(Sha256),
  elements: Schema.NullOr(Sha256),
  aria: Schema.NullOr(Sha256)
})
export type DemoObservation = typeof DemoObservation.Type

/** Demos are recorded without a policy, so each step carries the state on both sides of the action. */
export const DemoStep = Schema.Struct({
  action: Action,
  observation: DemoObservation,
  urlBefore: Schema.NullOr(Schema.String),
  urlAfter: Schema.NullOr(Schema.String),
  appBefore: Schema.NullOr(Schema.String),
  appAfter: Schema.NullOr(Schema.String)
})
export type DemoStep = typeof DemoStep.Type

export const DemoIngested = defineEvent(
  "DemoIngested",
  1,
  Schema.Struct({
    demoId: Schema.String,
    taskId: Schema.String,
    source: DemoSource,
    steps: Schema.Array(DemoStep),
    /**
     * `digest({ taskId, steps })`, or with `platform` and `initial` too when the demo has them:
     * re-ingesting the same demo is recognisably the same.
     */
    contentDigest: Sha256,
    /**
     * Absent: web. Both fields came with demo format version 2 and are absent for a version 1
     * file, so events written before them, and demos still in version 1, decode, encode and
     * digest as they always did.
     */
    platform: Schema.optionalKey(Platform),
    /** The screen before the first step (its url / app are the first step's `urlBefore` / `appBefore`); absent: not recorded. */
    initial: Schema.optionalKey(DemoObservation)
  })
)

/** A demo that could not be ingested is a fact too: the user sees which file, line and why. */
export const DemoRejected = defineEvent(
  "DemoRejected",
  1,
  Schema.Struct({
    /** Null when the input was too broken to name itself. */
    demoId: Schema.NullOr(Schema.String),
    source: DemoSource,
    reason: Schema.String,
    line: Schema.NullOr(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
    stepIndex: Schema.NullOr(StepIndex)
  })
)
