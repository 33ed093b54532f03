/**
 * `@core/learner`: a policy that learns an app's procedures from CORE's verified data, on
 * CPU. It reads training states back from sft and dpo records (Records.ts), scores each
 * candidate action of a state with a linear ranker over features that transfer across tasks
 * and apps (Features.ts), trains with seeded AdaGrad (Train.ts), and acts through the
 * one policy seam (LearnedPolicy.ts). Pure: the trainers that feed it (a run's rounds,
 * `core train`) and the blob that holds its weights live elsewhere.
 *
 * @example
 * const model = trainOnRecords(records, learnerSeed(runSeed, round))
 * const policy = learnedPolicy({ model })
 */
import { digest } from "@core/events"
import { examplesOfRecord } from "./Records.ts"
import { trainLearner } from "./Train.ts"
import type { LearnedModel } from "./Model.ts"
import type { LearnerVersion } from "@core/domain"

export { examplesOfRecord, choiceOf } from "./Records.ts"
export type { Choice, ChoiceKind, LearnerExample } from "./Records.ts"
export { readElementLine, readView, screenElements } from "./Screen.ts"
export type { Screen, ScreenElement } from "./Screen.ts"
export { candidatesOf } from "./Candidates.ts"
export type { Candidate } from "./Candidates.ts"
export { stateFeatures } from "./Features.ts"
export { TRAINER_NAMES, TRAINER_VERSION, trainerName, learnedModelFromJson, learnedModelJson, nextActionAccuracy } from "./Model.ts"
export type { LearnedModel } from "./Model.ts"
export { DEFAULT_EPOCHS, prepare, trainLearner, trainPrepared, withoutDetours } from "./Train.ts"
export type { TrainOptions } from "./Train.ts"
export { chooseText, LEARNED_POLICY, learnedPolicy, screenOfView } from "./LearnedPolicy.ts"
export type { LearnedPolicyOptions } from "./LearnedPolicy.ts"

/** A dataset record as every trainer hands it over. */
export interface TrainingRecord {
  readonly recordId: string
  readonly format: string
  readonly body: unknown
}

/**
 * The model a list of dataset records (in log order) trains, with the learner's fixed
 * hyperparameters, at a learner version (default the current one; a run trains at the one it recorded).
 */
export const trainOnRecords = (records: ReadonlyArray<TrainingRecord>, seed: string, learner?: LearnerVersion): LearnedModel =>
  trainLearner(records.flatMap(examplesOfRecord), { seed, ...(learner === undefined ? {} : { learner }) })

/** The seed a run's learner trains with after `round`: a digest of the run's seed and the round. */
export const learnerSeed = (runSeed: string, round: number): string => digest(["learner", runSeed, round])
