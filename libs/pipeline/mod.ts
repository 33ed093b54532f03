/**
 * `@core/pipeline`: CORE's steps as deciders and the driver that runs them live —
 * Semantic Code Abstraction (label functions from demos), rollouts, verification against
 * the strategy graph, its expansion, and the rounds that chain them.
 *
 * @example
 * const { events } = yield* drive({ registry: pipelineDeciders, runId, prior, start: [runStarted] })
 */
export * from "./LabelInference.ts"
export * from "./deciders/LabelInference.ts"
export * from "./deciders/StrategyGraph.ts"
export * from "./deciders/Rollouts.ts"
export * from "./deciders/Rounds.ts"
export * from "./deciders/Extrapolation.ts"
export * from "./deciders/Datasets.ts"
export * from "./deciders/PolicyTraining.ts"
export * from "./Deciders.ts"
export * from "./Driver.ts"
export * from "./LiveObservations.ts"
export * from "./Rollout.ts"
export * from "./RunState.ts"
export * from "./RunConfig.ts"
export * from "./Services.ts"
export * from "./Trajectories.ts"
export * from "./Verification.ts"
export * from "./WhatIf.ts"
export * from "./Resume.ts"
export * from "./RunApp.ts"
export * from "./RunEngine.ts"
export * from "./PlatformEnvironment.ts"
export * from "./Registration.ts"
export * from "./ModelCalls.ts"
export * from "./Agreement.ts"
