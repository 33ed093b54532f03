/**
 * CORE's pure domain: the method alone, no I/O, no services. Each paper concept under its
 * own name; the policies that act in rollouts live in @core/policy, which imports this.
 *
 * @example
 * const keySteps = identifyKeySteps(fromDemoSteps(demo.steps, elements))
 */
export { collapse, fromDemoSteps, fromRecordedSteps, fromStep, lfAction, lfElements, prefixOf, sitePath } from "./LfTrajectory.ts"
export type { ElementsLookup, LfElement, LfStep, LfTrajectory } from "./LfTrajectory.ts"
export { BASE, instanceOrigin, recordedUrl, withBase } from "./RecordedUrl.ts"
export { LF_API_DOCS, LF_API_NAMES, LF_API_SOURCE, LF_API_VERSION, lfApiGuide, nativeLabelFunction } from "./LfApi.ts"
export { describeStep, describeSteps } from "./StepDescriptions.ts"
export type { StepDescription } from "./StepDescriptions.ts"
export { identifyKeySteps, partOfEdit } from "./KeySteps.ts"
export type { IdentifiedKeyStep, KeyStepOptions } from "./KeySteps.ts"
export { keyStepOptionsOf, synthesizeCandidates } from "./Synthesizer.ts"
export { typedUrlPattern, urlPattern } from "./UrlPattern.ts"
export { axis, rulesAt, versionOf } from "./rules/Versioned.ts"
export type { Axis, RuleSet, VersionOf } from "./rules/Versioned.ts"
export { DATA_RULES, dataRulesAt } from "./rules/DataRules.ts"
export type { DataRuleSet, DataRulesVersion } from "./rules/DataRules.ts"
export { EXPLORATION, explorationRulesAt } from "./rules/Exploration.ts"
export type { ExplorationRules, ExplorationVersion } from "./rules/Exploration.ts"
export { SYNTHESIS, synthesisRulesAt } from "./rules/Synthesis.ts"
export type { SynthesisRules, SynthesisVersion } from "./rules/Synthesis.ts"
export { RETRIEVAL, retrievalRulesAt } from "./rules/Retrieval.ts"
export type { RetrievalRules, RetrievalVersion } from "./rules/Retrieval.ts"
export { LF_GUIDE, lfGuideRulesAt } from "./rules/LfGuide.ts"
export type { LfGuideRules, LfGuideVersion } from "./rules/LfGuide.ts"
export { LEARNER, learnerRulesAt } from "./rules/Learner.ts"
export type { LearnerRules, LearnerVersion } from "./rules/Learner.ts"
export { AXES, resolveRules } from "./rules/Rules.ts"
export { TABLE_END, TABLE_START, versionsTable } from "./rules/Table.ts"
export type { RecordedVersions, Rules } from "./rules/Rules.ts"
export { holdsInOrder, judgeCandidate } from "./Validation.ts"
export type { Judgement, LfVerdict } from "./Validation.ts"
export {
  addNode,
  addPath,
  distinctPaths,
  emptyGraph,
  graphVerdict,
  hasPath,
  hasPathByMeaning,
  lfIdsOf,
  nodeByMeaning,
  nodeIdOf,
  normalizeKey,
  normalizeText,
  orderedGroups,
  pathIdOf,
  pathSignature,
  queryKey,
  semanticKeyOf
} from "./StrategyGraph.ts"
export type {
  GraphNode,
  GraphPath,
  GraphSource,
  GraphVerdict,
  LfQuery,
  LfResult,
  SemanticKey,
  StrategyGraph,
  VerdictRules
} from "./StrategyGraph.ts"
export { renderGraph } from "./GraphRendering.ts"
export type { GraphFormat } from "./GraphRendering.ts"
export { demoValues, valuesLeftOut } from "./DemoValues.ts"
export { changesNothing, expansionPath, noOpSteps, reachedTerminal, terminalNodes, undoneAfterGoal } from "./Expansion.ts"
export { acceptUnlessRedone, acceptUnlessUndone, goalRedoneElsewhere, goalUndone, pressedAgain, valuesOverwritten } from "./Undo.ts"
export { acceptOnTheirPages, goalStateAnchors, goalStateOf, goalStatePath, goalStateReadingOf, goalStateSteps } from "./GoalState.ts"
export { survivedPage } from "./SurvivedFilters.ts"
export { echoCall, echoOf, showsEchoOf } from "./Echo.ts"
export type { Echo } from "./Echo.ts"
export { WORDING_THRESHOLD, contaminationOf, instructionJaccard, recordInstruction, trainingRecords } from "./Contamination.ts"
export type { HeldOutTask, RecordContamination, TaskLike, TrainingRecordLike } from "./Contamination.ts"
export { extrapolate, extrapolatedTaskId, pageShape } from "./Extrapolation.ts"
export type { ExtrapolationStep, TemplateTask } from "./Extrapolation.ts"
export { isChain, prunePseudoDemo } from "./PseudoDemo.ts"
export type { PseudoDemoPlan } from "./PseudoDemo.ts"
export { MAX_INTENT_CHARS, parseIntent, relabelSteps, screenSummary } from "./Relabel.ts"
export type { IntentRule, Relabelled } from "./Relabel.ts"
export {
  creditedDpoRecords,
  divergence,
  dpoRecord,
  policyAnswer,
  rolloutRecord,
  sealOf,
  sftMeta,
  sftRecords,
  stepRewards
} from "./Datasets.ts"
export type { Credit, DatasetRecord, RecordStep, RecordTrajectory, SftOrigin } from "./Datasets.ts"
export {
  alternationError,
  chatOf,
  ESCAPED_IMAGE_TOKEN,
  IMAGE_TOKEN,
  llamaFactoryDatasetInfo,
  placeImages,
  PRM_STEP_SEPARATOR,
  TRAINER_FORMATS,
  TRAINERS,
  trainerRow,
  typedContent,
  VERL_ABILITY,
  verlDataSource,
  verlRow
} from "./TrainerFormats.ts"
export type { ContentPart, Converted, Message, Role, SourceRecord, Trainer, TypedMessage, VerlRow } from "./TrainerFormats.ts"
export { closestElements, describeTarget, nameSimilarity, resolveTarget } from "./TargetResolution.ts"
export type { ResolvableElement, TargetDescription } from "./TargetResolution.ts"
export * as Corruption from "./Corruption.ts"
