/**
 * Why `core train` cannot train, in one line: the `core` command prints the message as it is.
 */
import { Schema } from "effect"

/** The run has no data to train on as asked: no dataset, no sealed round, or not the round asked for. */
export class NothingToTrain extends Schema.TaggedError<NothingToTrain>()("NothingToTrain", {
  runId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot train on run ${this.runId}: ${this.reason}`
  }
}

/** A follow trainer's state folder that cannot be read, or was made for another trainer. */
export class TrainerStateError extends Schema.TaggedError<TrainerStateError>()("TrainerStateError", {
  dir: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `trainer state ${this.dir}: ${this.reason}`
  }
}
