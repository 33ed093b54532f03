/**
 * @core/datasets — a run's dataset records as files a trainer reads (docs/datasets.md):
 * reading them from the log, exporting them as JSON lines with their images or in a
 * trainer's own layout (TRL, LLaMA-Factory, verl), following them as they are emitted
 * through a durable NATS consumer (which a trainer on the stream shares), and checking them. The `core dataset` commands are flags
 * and printing over this; a trainer can import it directly.
 *
 * @example
 * const dataset = yield* readRunDataset(run) // needs EventStore
 * const selected = selectRecords(dataset.records, "sft", undefined)
 * yield* writeRecords(selected, "sft", "/data/sft.jsonl", "trl") // needs BlobStore
 */
export { DatasetError } from "./DatasetError.ts"
export {
  IMAGES_DIR,
  imageHashes,
  imagePath,
  makeImageWriter,
  mkdirPrivate,
  openAppendFile,
  readAppendedLines,
  recordLine,
  runIdOf,
  syncDir,
  withImages,
  writeFileDurably,
  writeStaged
} from "./DatasetFiles.ts"
export type { RecordData } from "./DatasetFiles.ts"
export { readDatasetToCheck, readRunDataset, sealMismatches, selectRecords } from "./DatasetLog.ts"
export type { DatasetRecord, RunDataset } from "./DatasetLog.ts"
export { writeRecords } from "./DatasetExport.ts"
export { DATASET_INFO, trainerUsageError, verlSchema, writeTrainerFiles } from "./TrainerFiles.ts"
export type { TrainerExport } from "./TrainerFiles.ts"
export { datasetSubject, followDataset } from "./DatasetFollow.ts"
export type { FollowOptions } from "./DatasetFollow.ts"
export { consumeDurably, STREAM_NAME, SUBJECT_PREFIX } from "./DurableConsumer.ts"
export type { Delivery, DeliveryHandler, DurableConsumerOptions } from "./DurableConsumer.ts"
export { CREDIT_RULE, checkDataset, dpoCredit, pseudoDemoProblems, screenView, sftScreenProblem, viewShows } from "./DatasetCheck.ts"
export type { CheckedRecord, DatasetCheck, Problem, ProblemRule, PseudoDemo, WarningRule } from "./DatasetCheck.ts"
