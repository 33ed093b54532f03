/**
 * Semantic code abstraction (docs/method.md, "Label functions"): step descriptions → key steps → one label
 * function per key step, each validated before use. Rejections are recorded as well, so
 * an audit can say why a key step has no node.
 */
import { Schema } from "effect"
import { sha256 } from "./Canonical.ts"
import { Sha256 } from "./Envelope.ts"
import { defineEvent } from "./Event.ts"
import { Count, SatisfiedAt, SourceRef, StepIndex } from "./Trajectory.ts"

/** Embedded: shipped with the demo or task; model: asked of a model (its calls are ModelCalled events). */
export const DerivationMethod = Schema.Literals(["embedded", "model"])

/** A label function's id is the sha256 of its code: the same code is the same LF, across tasks and runs. */
export const labelFunctionId = (code: string): string => sha256(code)

export const StepsDescribed = defineEvent(
  "StepsDescribed",
  1,
  Schema.Struct({
    source: SourceRef,
    /** Templated from the action (as in the reference) or written by a model. */
    method: Schema.Literals(["template", "model"]),
    descriptions: Schema.Array(Schema.Struct({ stepIndex: StepIndex, text: Schema.String })),
    modelCallIds: Schema.Array(Schema.String)
  })
)

export const KeyStep = Schema.Struct({
  stepIndex: StepIndex,
  description: Schema.String,
  /** Why it is key: "state-changing", "reaches-final-page", "final-answer", "final-status", or "model" (the model chose it). */
  reason: Schema.String
})
export type KeyStep = typeof KeyStep.Type

export const KeyStepsIdentified = defineEvent(
  "KeyStepsIdentified",
  1,
  Schema.Struct({
    source: SourceRef,
    taskId: Schema.String,
    keySteps: Schema.Array(KeyStep),
    method: DerivationMethod,
    modelCallIds: Schema.Array(Schema.String)
  })
)

export const LabelFunctionInferred = defineEvent(
  "LabelFunctionInferred",
  1,
  Schema.Struct({
    lfId: Sha256,
    taskId: Schema.String,
    source: SourceRef,
    keyStepIndex: StepIndex,
    description: Schema.String,
    /** JavaScript against the LF API; untrusted, so it runs only in the sandbox. */
    code: Schema.String,
    /** The LF API version the code was written against: helpers may change meaning between versions. */
    apiVersion: Schema.String,
    inference: Schema.Struct({
      method: DerivationMethod,
      /** What the code checks: "action+state", "action", "state" (embedded candidates), or "model". */
      evidence: Schema.String,
      attempts: Count,
      modelCallIds: Schema.Array(Schema.String)
    }),
    /** The evidence that let it in: held on its demo, not on the prefix before its key step, not on known failures. */
    validation: Schema.Struct({
      /** Where it held on the source (at or after the key step). */
      onDemoAtKeyStep: StepIndex,
      /** Whether it held on the prefix before the key step; an accepted LF has false. */
      onPrefix: Schema.Boolean,
      onFailures: Schema.Array(Schema.Struct({ trajectoryId: Schema.String, result: SatisfiedAt }))
    })
  })
)

export const LabelFunctionRejected = defineEvent(
  "LabelFunctionRejected",
  1,
  Schema.Struct({
    taskId: Schema.String,
    source: SourceRef,
    keyStepIndex: StepIndex,
    description: Schema.String,
    /** The last candidate tried; null when no attempt produced code at all. */
    candidateCode: Schema.NullOr(Schema.String),
    reason: Schema.String,
    attempts: Count,
    modelCallIds: Schema.Array(Schema.String)
  })
)
