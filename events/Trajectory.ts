/**
 * Trajectories: what a policy did in an environment, and what the label functions said
 * about it.
 *
 * The action vocabulary is shared by web, mobile web and Android and by demos, so a label
 * function reads a demo and a rollout through one API. Observations carry blob hashes,
 * never the blobs: an event stays under 256 KB however large a screenshot is.
 */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"

/** A position in a trajectory's or demo's steps. */
export const StepIndex = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** The step at which a label function held, or -1: helpers return evidence, not a boolean, so order can be checked. */
export const SatisfiedAt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(-1))

/** A non-negative count. */
export const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** What key steps and label functions were derived from: an expert demo or a recorded trajectory. */
export const SourceRef = Schema.Struct({
  kind: Schema.Literals(["demo", "trajectory"]),
  id: Schema.String
})
export type SourceRef = typeof SourceRef.Type

/**
 * The element an action was aimed at. `elementId` is episode-local (set-of-marks index,
 * Android node index), so label functions must match on role, name and text instead
 * (an id means nothing in another episode); each field is null when the platform could not tell.
 */
export const Target = Schema.Struct({
  role: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  elementId: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String)
})
export type Target = typeof Target.Type

const target = Schema.NullOr(Target)

/** The name of an environment variable holding a secret (never the secret itself). */
export const SecretEnvName = Schema.String.check(Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/))

export const ScrollDirection = Schema.Literals(["up", "down", "left", "right"])

/**
 * How a `type` puts its text in the field. Absent is `fill`, so actions written before modes
 * existed decode, encode and digest unchanged.
 */
export const TypeMode = Schema.Literals(["fill", "insert"])
export type TypeMode = typeof TypeMode.Type

/**
 * One action of the shared vocabulary. A platform that cannot perform one (e.g. `home`
 * on the web) answers with an error observation rather than being unable to record it.
 */
export const Action = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("click"), target }),
  Schema.Struct({ kind: Schema.Literal("long_press"), target }),
  Schema.Struct({
    kind: Schema.Literal("type"),
    target,
    text: Schema.String,
    /** Press Enter after typing: the reference's separate `keyboard_enter` folded in. */
    submit: Schema.optionalKey(Schema.Boolean),
    /**
     * A secret typed by reference: `text` is "" and the environment types this variable's
     * value, so a password never sits in a log, a demo or a dataset in clear.
     */
    secretEnv: Schema.optionalKey(SecretEnvName),
    /**
     * `fill` (absent) replaces the field's whole content; `insert` types at the field's caret,
     * replacing its selection if any, and keeps the rest: an appended line is that line, not
     * the page re-typed. Caret and selection come from `key` steps (`Control+End`, `Shift+Home`).
     */
    mode: Schema.optionalKey(TypeMode)
  }),
  Schema.Struct({
    kind: Schema.Literal("select"),
    target,
    /** The option's value, or its label: the environment picks the first option whose value or label it is. */
    value: Schema.String,
    /**
     * Recorded only, never asked for: the label the policy named the option by, when the
     * environment recorded the select by the option's value instead (SelectRecording.ts).
     */
    label: Schema.optionalKey(Schema.String)
  }),
  Schema.Struct({ kind: Schema.Literal("scroll"), target, direction: ScrollDirection }),
  /**
   * A key or chord on whatever has focus, in Playwright's names: `Enter`, `Tab`, `Escape`,
   * `Backspace`, `Delete`, the arrows, `Home` / `End` (line), `Control+Home` / `Control+End`
   * (whole text), `Shift+…` to select, `Control+Shift+ArrowLeft` / `ArrowRight` (by word),
   * `Control+a`. Each platform says which it cannot press.
   */
  Schema.Struct({ kind: Schema.Literal("key"), key: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("navigate"), url: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("back") }),
  Schema.Struct({ kind: Schema.Literal("home") }),
  Schema.Struct({ kind: Schema.Literal("open_app"), app: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("answer"), text: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("status"), status: Schema.Literals(["complete", "infeasible"]) }),
  Schema.Struct({ kind: Schema.Literal("wait"), ms: Count })
]).pipe(Schema.toTaggedUnion("kind"))
export type Action = typeof Action.Type

/** The action kinds, in vocabulary order. */
export const ActionKind = Schema.Literals(Action.discriminants)
export type ActionKind = typeof ActionKind.Type

/**
 * What the environment showed after an action (or at reset). `url` is null on Android,
 * `app` null on the web. `truncated` says an element list or snapshot was cut to fit its
 * budget; `error` is the environment's own complaint (unsupported action, navigation
 * failure), which the policy sees and a label function may read.
 */
export const Observation = Schema.Struct({
  url: Schema.NullOr(Schema.String),
  app: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  screenshot: Schema.NullOr(Sha256),
  elements: Schema.NullOr(Sha256),
  aria: Schema.NullOr(Sha256),
  truncated: Schema.Boolean,
  error: Schema.NullOr(Schema.String),
  /**
   * The set-of-marks image: the screenshot with each element the policy view lists (and the
   * screen shows) boxed and labelled with its id. Absent when the environment was not asked
   * for marks — so observations recorded before marks existed, or without them, decode,
   * encode and digest as they always did; null when asked but this observation has no
   * screenshot.
   */
  marks: Schema.optionalKey(Schema.NullOr(Sha256))
})
export type Observation = typeof Observation.Type

export const TrajectoryStep = Schema.Struct({ action: Action, observation: Observation })
export type TrajectoryStep = typeof TrajectoryStep.Type

export const TrajectoryRecorded = defineEvent(
  "TrajectoryRecorded",
  1,
  Schema.Struct({
    trajectoryId: Schema.String,
    taskId: Schema.String,
    round: Count,
    sample: Count,
    /** Model name or checkpoint digest, as in RoundStarted. */
    policy: Schema.String,
    /** The observation at reset, before the first action: replay serves it as observation 0. */
    initial: Observation,
    steps: Schema.Array(TrajectoryStep),
    outcome: Schema.Literals(["completed", "budget-exhausted", "infra-error"]),
    infraError: Schema.NullOr(Schema.String),
    /**
     * Episodes it took: an infrastructure failure restarts the episode (never a failed
     * trajectory), and the steps recorded are the last attempt's. Replay fails the earlier
     * attempts the same way, so the policy's draws and model calls line up.
     */
    attempts: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
    /**
     * Why the episode ended with its last step, a `status complete` the policy did not choose:
     * after step `step − 1` the trajectory, with that status added, satisfied path `pathId` of
     * the task's graph as the round started (exploration 5). Absent for every other ending,
     * and in runs before it.
     */
    finished: Schema.optionalKey(Schema.Struct({ pathId: Schema.String, step: StepIndex }))
  })
)

/** One label function's finding on a trajectory; `error` marks a sandbox breach, not a verdict. */
export const LabelEvidence = Schema.Struct({
  lfId: Sha256,
  satisfiedAt: SatisfiedAt,
  error: Schema.NullOr(Schema.String)
})
export type LabelEvidence = typeof LabelEvidence.Type

export const TrajectoryVerified = defineEvent(
  "TrajectoryVerified",
  1,
  Schema.Struct({
    trajectoryId: Schema.String,
    taskId: Schema.String,
    verdict: Schema.Literals(["pass", "partial", "fail", "infra-error"]),
    evidence: Schema.Array(LabelEvidence),
    /** The strategy-graph path whose LFs held at strictly increasing steps; null unless `pass`. */
    path: Schema.NullOr(Schema.Array(Schema.String)),
    /**
     * Paths whose LFs all held but whose goal the trajectory undid before its claim (the
     * data rules of version 2); absent when none was, and in runs before those rules.
     */
    undone: Schema.optionalKey(Schema.Array(Schema.String)),
    /**
     * The steps at which the passing path's LFs held, in step order (the data rules of
     * version 2): the key steps a dataset credits. Absent unless `pass`, and before those rules.
     */
    matched: Schema.optionalKey(Schema.Array(Schema.Struct({ nodeId: Schema.String, lfId: Schema.String, satisfiedAt: Schema.Int })))
  })
)
