/**
 * Why an evaluation could not run, in one line. `EvalInputError` is the caller's request
 * naming what is not there (a task, a site, a split), which the `core` command reports as a
 * usage error; `EvalError` is everything else.
 */
import { Schema } from "effect"

export class EvalError extends Schema.TaggedError<EvalError>()("EvalError", {
  message: Schema.String
}) {}

export class EvalInputError extends Schema.TaggedError<EvalInputError>()("EvalInputError", {
  message: Schema.String
}) {}

/** The label evaluation set could not be built (its suites, its browser, its rollouts): the step leads the line. */
export class EvalSetNotBuilt extends Schema.TaggedError<EvalSetNotBuilt>()("EvalSetNotBuilt", {
  reason: Schema.String
}) {
  override get message() {
    return `building the evaluation set: ${this.reason}`
  }
}
