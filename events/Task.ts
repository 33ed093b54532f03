/**
 * Trajectory-guided extrapolation (docs/method.md, "Extrapolation"): new tasks born from what a policy
 * actually did. Their lineage is recorded so an audit can trace any such task, and the
 * data it produced, back to the trajectories and the prompt that made it.
 */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"
import { Count } from "./Trajectory.ts"

export const TaskExtrapolated = defineEvent(
  "TaskExtrapolated",
  1,
  Schema.Struct({
    newTaskId: Schema.String,
    instruction: Schema.String,
    /** success-augmentation: a new task discovered while acting; failure-relabel: the intent a failed run did fulfil. */
    generator: Schema.Literals(["success-augmentation", "failure-relabel"]),
    /** Site, platform and start state are the parent task's. */
    lineage: Schema.Struct({
      parentTrajectoryIds: Schema.Array(Schema.String).check(Schema.isMinLength(1)),
      parentTaskId: Schema.String,
      generatorVersion: Schema.String,
      /** The prompt that inferred the intent; null for generators that use no model. */
      promptDigest: Schema.NullOr(Sha256),
      /** The ModelCalled events that inferred it (absent before model relabelling existed). */
      modelCallIds: Schema.optionalKey(Schema.Array(Schema.String))
    }),
    /** The trajectory that serves as the new task's demo. */
    pseudoDemoTrajectoryId: Schema.String,
    /** How many of its steps the pseudo-demo keeps: a sub-goal reached part-way is a prefix. */
    pseudoDemoSteps: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
    /**
     * The parent's steps the pseudo-demo keeps, by index (the data rules of version 2: loops
     * and detours the task does not need are dropped); absent for a prefix of
     * `pseudoDemoSteps` steps, as runs before those rules kept.
     */
    pseudoDemoStepIndices: Schema.optionalKey(Schema.Array(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))),
    /** The pseudo-demo ends with an added `status complete`: the parent walked on instead of closing there. */
    pseudoDemoAddsClosing: Schema.optionalKey(Schema.Boolean),
    /** The parent's template with the values the trajectory used, for the contamination guard and grouping. */
    template: Schema.NullOr(Schema.Struct({ id: Schema.String, parameters: Schema.Record(Schema.String, Schema.Json) }))
  })
)

/**
 * A generated task that was not kept: too close to a held-out task (the contamination
 * guard), a duplicate of a task the run already has, or a model's intent that broke the
 * reference's rules (marked INVALID, over 1000 characters, two words or fewer). Logged so
 * an audit can see what the generators proposed and why the pool did not take it.
 */
export const TaskExtrapolationRejected = defineEvent(
  "TaskExtrapolationRejected",
  1,
  Schema.Struct({
    instruction: Schema.String,
    generator: Schema.Literals(["success-augmentation", "failure-relabel"]),
    parentTaskId: Schema.String,
    parentTrajectoryIds: Schema.Array(Schema.String),
    rule: Schema.Literals(["template-parameters", "wording", "duplicate", "invalid", "too-long", "too-short"]),
    /** The held-out task (contamination) or the run's task (duplicate) it came too close to; null for a model's intent refused by rule. */
    closestTaskId: Schema.NullOr(Schema.String),
    similarity: Schema.Number,
    /** The ModelCalled event whose answer was refused (absent for the embedded generator). */
    modelCallIds: Schema.optionalKey(Schema.Array(Schema.String))
  })
)

/**
 * A round's extrapolation is done: the tasks it added (each a TaskExtrapolated before this)
 * and how many proposals it refused. The round's dataset is built after it, so the
 * pseudo-demos of the new tasks are in it.
 */
export const RoundExtrapolated = defineEvent(
  "RoundExtrapolated",
  1,
  Schema.Struct({
    round: Count,
    newTaskIds: Schema.Array(Schema.String),
    refused: Count
  })
)
