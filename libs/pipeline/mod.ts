/**
 * `@core/pipeline`: CORE's steps as deciders and the driver that runs them live. Today:
 * Semantic Code Abstraction (label functions inferred from demos).
 *
 * @example
 * const { events } = yield* drive({ registry: pipelineDeciders, runId, prior, start: [runStarted] })
 */
export * from "./LabelInference.ts"
export * from "./deciders/LabelInference.ts"
export * from "./Deciders.ts"
export * from "./Driver.ts"
export * from "./Services.ts"
