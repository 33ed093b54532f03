/**
 * Strategy graphs (docs/method.md, "The strategy graph"): per task, a DAG of key steps, each a node with a label
 * function. Nodes are merged by what the step means (its semantic key), not by the text
 * of its description, so one node can serve several paths and several tasks.
 */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"
import { ActionKind, SourceRef, StepIndex } from "./Trajectory.ts"

/** What makes two key steps the same step: action semantics and target, never element ids. */
export const SemanticKey = Schema.Struct({
  actionKind: ActionKind,
  role: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  /** What was typed, selected, pressed, answered or declared (normalised): typing "laptop" and "phone" into one box are different steps. */
  value: Schema.NullOr(Schema.String),
  /** The page the step happens on, with volatile parts (ids, query values) generalised. */
  urlPattern: Schema.NullOr(Schema.String)
})
export type SemanticKey = typeof SemanticKey.Type

export const NodeExpanded = defineEvent(
  "NodeExpanded",
  1,
  Schema.Struct({
    taskId: Schema.String,
    nodeId: Schema.String,
    lfId: Sha256,
    description: Schema.String,
    semanticKey: SemanticKey,
    source: SourceRef,
    /** demo: from the expert demo; partial: from a partially passing run that solved the task; explorer: from exploration. */
    how: Schema.Literals(["demo", "partial", "explorer"])
  })
)

export const PathAdded = defineEvent(
  "PathAdded",
  1,
  Schema.Struct({
    taskId: Schema.String,
    pathId: Schema.String,
    /** Start to end, in the order their LFs must hold; the virtual start and end are implied. */
    nodeIds: Schema.Array(Schema.String).check(Schema.isMinLength(1)),
    source: SourceRef,
    /**
     * What the path means: its label functions in order, form fields on one page as a set
     * (`pathSignature`). Two paths with one signature verify identically. Absent in runs
     * before the data rules of version 2, whose paths were told apart by their nodes.
     */
    signature: Schema.optionalKey(Schema.String),
    /**
     * "goal-state": a path of only what the outcome rests on (the demo's changes, its goal and
     * claim, not the way it found them), each held on its page. Absent for a way's whole path,
     * and in every run before the data rules of version 9.
     */
    evidence: Schema.optionalKey(Schema.Literal("goal-state")),
    /**
     * A goal-state path's nodes held to another page than their own: node id → URL pattern
     * (a list without the filters the demo's choice survived). Absent where every node keeps
     * its own page, and in every run before the data rules of version 11.
     */
    anchors: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
  })
)

/**
 * A trajectory's path that expansion did not add, and why. `no-op` (data rules 5): every
 * key step it had beyond the paths it would join changed nothing — the same page, the same
 * fields and elements, no answer of its own — so it is an existing way with a detour.
 * `leaves-out` (data rules 7): the trajectory never entered a value the task's demo typed
 * or picked from the instruction, so its terminal steps ended the task on nothing.
 */
export const PathRefused = defineEvent(
  "PathRefused",
  1,
  Schema.Struct({
    taskId: Schema.String,
    /** The path as it would have been added. */
    nodeIds: Schema.Array(Schema.String).check(Schema.isMinLength(1)),
    source: SourceRef,
    reason: Schema.Literals(["no-op", "leaves-out"]),
    /** The trajectory's steps behind the refusal: for `no-op`, the extra key steps that changed nothing; none for `leaves-out`. */
    steps: Schema.Array(StepIndex),
    /** `leaves-out` (data rules 7): the values the task's demo entered from its instruction that the trajectory never entered. */
    values: Schema.optionalKey(Schema.Array(Schema.String))
  })
)

/**
 * A partial trajectory that solved its task by expansion's rule — its own claim after the
 * path's terminal key steps, in order, the goal not undone — and that a path the task's
 * graph gained during its round accepts: under the data rules 6 it counts as a pass. Its
 * verdict stays as verification gave it (the graph as the round started); this says which
 * path holds now, and at which steps, as a passing `TrajectoryVerified` would.
 */
export const TrajectoryPromoted = defineEvent(
  "TrajectoryPromoted",
  1,
  Schema.Struct({
    trajectoryId: Schema.String,
    taskId: Schema.String,
    /** The path that accepts it, start to end. */
    path: Schema.Array(Schema.String).check(Schema.isMinLength(1)),
    /** The steps at which that path's LFs held, in step order. */
    matched: Schema.Array(Schema.Struct({ nodeId: Schema.String, lfId: Schema.String, satisfiedAt: StepIndex }))
  })
)
