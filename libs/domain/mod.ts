/**
 * CORE's pure domain: no I/O, no services. Each paper concept under its own name.
 */
export * from "./LfTrajectory.ts"
export * from "./LfApi.ts"
export * from "./StepDescriptions.ts"
export * from "./KeySteps.ts"
export * from "./Synthesizer.ts"
export * from "./Validation.ts"
export * from "./StrategyGraph.ts"
export * from "./ExplorationPolicy.ts"
export * from "./Expansion.ts"
export * from "./Contamination.ts"
export * from "./Extrapolation.ts"
export * from "./Relabel.ts"
export * from "./Datasets.ts"
export * from "./TargetResolution.ts"
