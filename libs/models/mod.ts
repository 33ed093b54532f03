/**
 * `@core/models`: the live model client (an OpenAI-compatible server, every call recorded
 * as `ModelCalled`), versioned prompts, the two model-driven steps of Semantic Code
 * Abstraction — key-step identification and label-function synthesis — and a multimodal
 * policy choosing the next action of a rollout.
 *
 * @example
 * const server = modelOptionsFromConfig(config)
 * const models = server ? ModelClient.layer({ ...server, runId, record }) : embeddedModels // the caller's own backends
 * const { keySteps } = yield* modelKeySteps({ runId, causationId, callIndex: 0, model, instruction, descriptions })
 */
export * as ModelClient from "./ModelClient.ts"
export { modelOptionsFromConfig, ModelRecordFailed } from "./ModelClient.ts"
export type { ModelCalledEvent, ModelClientOptions, ModelServer } from "./ModelClient.ts"
export * from "./Prompts.ts"
export * from "./Code.ts"
export * from "./Calls.ts"
export * from "./KeySteps.ts"
export * from "./Synthesis.ts"
export * from "./Images.ts"
export * from "./Policy.ts"
export * from "./Relabel.ts"
