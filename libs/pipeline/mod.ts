/**
 * `@core/pipeline`: CORE's steps as deciders and the driver that runs them live —
 * Semantic Code Abstraction (label functions from demos), rollouts, verification against
 * the strategy graph, its expansion, and the rounds that chain them.
 *
 * @example
 * const { events } = yield* drive({ registry: pipelineDeciders, runId, prior, start: [runStarted] })
 */
export { inferLabelFunctions } from "./LabelInference.ts"
export { labelInference } from "./deciders/LabelInference.ts"
export { datasets } from "./deciders/Datasets.ts"
export { learnedModelOf, retrievalModelOf } from "./deciders/PolicyTraining.ts"
export { pipelineDeciders } from "./Deciders.ts"
export { EndCheck } from "./EpisodeEnd.ts"
export { liveObservations } from "./LiveObservations.ts"
export type { EpisodeEnd } from "./LiveObservations.ts"
export {
  infraErrorTrajectory,
  isExplorerId,
  playEpisode,
  policyName,
  RemoteEpisodes,
  rollout,
  taskOfTrajectoryId,
  trajectoryIdOf
} from "./Rollout.ts"
export type { PolicySpec, RolloutInput } from "./Rollout.ts"
export { evolveRun, GraphUnfoldable, graphsOf, initialRunState } from "./RunState.ts"
export type { Learning, LearningRecord, RunState, TrajectoryData } from "./RunState.ts"
export { Exploration, RUN_CONFIG_KEYS, RUN_DEFAULTS, RunPolicy, encodeRunConfig, runConfigOf } from "./RunConfig.ts"
export { learnerOf, RUN_FIELDS } from "./RunConfig.ts"
export type { RunFlag, RunFlagField } from "./RunConfig.ts"
export type { RunConfig } from "./RunConfig.ts"
export { labelSandbox } from "./LabelSandbox.ts"
export { ElementsUnreadable, elementsLookup } from "./Trajectories.ts"
export { verdictRules, verifyTrajectory } from "./Verification.ts"
export { finalVerdicts } from "./Verdicts.ts"
export type { FinalVerdict } from "./Verdicts.ts"
export { LabelFunctionNotInRun, whatIf } from "./WhatIf.ts"
export { DemoRejected, RunAppError } from "./RunApp.ts"
export type { EpisodeJudgement, RunApp, RunTask, TaskRegistration } from "./RunApp.ts"
export { defaultRunConfig, modelSources, newRunConfig, runConfigCodec } from "./RunStart.ts"
export type { NewRunPlan } from "./RunStart.ts"
export { registerTasks } from "./Registration.ts"
export { agreementOf, confusionFigures } from "./Agreement.ts"
export type { AgreementScores, Confusion, ConfusionFigures } from "./Agreement.ts"
export { actionText, auditTrajectoryOf } from "./TrajectoryAudit.ts"
export type { StepEvidence, TrajectoryAudit } from "./TrajectoryAudit.ts"
