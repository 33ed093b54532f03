/**
 * Trajectory-guided extrapolation (METHOD-NOTES): new tasks born from what a policy
 * actually did. Their lineage is recorded so an audit can trace any such task, and the
 * data it produced, back to the trajectories and the prompt that made it.
 */
import { Schema } from "effect"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"

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
      promptDigest: Schema.NullOr(Sha256)
    }),
    /** The trajectory that serves as the new task's demo. */
    pseudoDemoTrajectoryId: Schema.String
  })
)
