/**
 * CORE's pure domain: no I/O, no services. Each paper concept under its own name.
 */
export { collapse, fromDemoSteps, fromRecordedSteps, fromStep, lfAction, lfElements, prefixOf, sitePath } from "./LfTrajectory.ts"
export type { ElementsLookup, LfElement, LfStep, LfTrajectory } from "./LfTrajectory.ts"
export { LF_API_DOCS, LF_API_GUIDE_VERSION, LF_API_NAMES, LF_API_SOURCE, LF_API_VERSION, lfApiGuide, nativeLabelFunction } from "./LfApi.ts"
export { describeStep, describeSteps } from "./StepDescriptions.ts"
export type { StepDescription } from "./StepDescriptions.ts"
export { identifyKeySteps } from "./KeySteps.ts"
export type { IdentifiedKeyStep } from "./KeySteps.ts"
export { SYNTHESIS_VERSION, synthesisVersionOf, synthesizeCandidates, urlPattern } from "./Synthesizer.ts"
export type { SynthesisVersion } from "./Synthesizer.ts"
export { holdsInOrder, judgeCandidate } from "./Validation.ts"
export type { Judgement, LfVerdict } from "./Validation.ts"
export {
  addNode,
  addPath,
  distinctPaths,
  emptyGraph,
  graphVerdict,
  hasPath,
  lfIdsOf,
  nodeIdOf,
  normalizeKey,
  normalizeText,
  pathIdOf,
  queryKey,
  renderGraph,
  semanticKeyOf
} from "./StrategyGraph.ts"
export type { GraphFormat, GraphNode, GraphVerdict, LfQuery, LfResult, SemanticKey, StrategyGraph } from "./StrategyGraph.ts"
export { explorationAction, instructionTerms, isQuestion, textToType } from "./ExplorationPolicy.ts"
export type { Draws, PolicyElement, PolicyHistoryStep, PolicyInput } from "./ExplorationPolicy.ts"
export { expansionPath, reachedTerminal, terminalNodes, undoneAfterGoal } from "./Expansion.ts"
export { WORDING_THRESHOLD, contaminationOf, instructionJaccard } from "./Contamination.ts"
export type { HeldOutTask } from "./Contamination.ts"
export { extrapolate, extrapolatedTaskId, pageShape } from "./Extrapolation.ts"
export type { ExtrapolationStep, TemplateTask } from "./Extrapolation.ts"
export { MAX_INTENT_CHARS, parseIntent, relabelSteps, screenSummary } from "./Relabel.ts"
export type { IntentRule, Relabelled } from "./Relabel.ts"
export { divergence, dpoRecord, policyAnswer, rolloutRecord, sealOf, sftMeta, sftRecords, stepRewards } from "./Datasets.ts"
export type { DatasetRecord, RecordStep, RecordTrajectory } from "./Datasets.ts"
export { closestElements, describeTarget, nameSimilarity, resolveTarget } from "./TargetResolution.ts"
export type { ResolvableElement, TargetDescription } from "./TargetResolution.ts"
