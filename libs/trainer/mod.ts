/**
 * @core/trainer — the learned policy (@core/learner) trained outside a run, on CORE's dataset
 * stream (docs/datasets.md, "A trainer on the stream"): once from a run's sealed round
 * (`trainRun`), or continuously through a durable consumer (`followTrainer`), each model's
 * weights put in the blob store and named by a PolicyTrained on the trainer's own stream.
 * The `core train` command is flags and printing over this.
 *
 * @example
 * const summary = yield* trainRun({ run: "run-1", round: undefined }) // needs EventStore, BlobStore
 */
export { HELD_APART_SHARE, holdApart } from "./HeldApart.ts"
export type { Countable } from "./HeldApart.ts"
export { followTrainer } from "./TrainFollow.ts"
export type { TrainFollowOptions } from "./TrainFollow.ts"
export { byDelivery, openTrainerState } from "./TrainerState.ts"
export type { HeldRecord } from "./TrainerState.ts"
export { NothingToTrain, TrainerStateError } from "./TrainerError.ts"
export { latestPublished, publishedPolicies } from "./Published.ts"
export { appendTrained, putWeights, readTrained, trainedStream, trainerStream } from "./TrainerStream.ts"
export type { TrainedData } from "./TrainerStream.ts"
export { heldApartScore, trainRun } from "./TrainRun.ts"
export type { HeldApartScore, TrainRunOptions, TrainRunSummary } from "./TrainRun.ts"
