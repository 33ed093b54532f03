/**
 * `@core/models`: the live model client (an OpenAI-compatible server, every call recorded
 * as `ModelCalled`), versioned prompts, the two model-driven steps of Semantic Code
 * Abstraction — key-step identification and label-function synthesis — and `chat`, the
 * recorded call the model policy in @core/policy asks its next action with.
 *
 * @example
 * const server = modelOptionsFromConfig(config)
 * const models = server ? ModelClient.layer({ ...server, runId, record }) : embeddedModels // the caller's own backends
 * const { keySteps } = yield* modelKeySteps({ runId, causationId, callIndex: 0, model, instruction, descriptions })
 */
export * as ModelClient from "./ModelClient.ts"
export { modelCallStream, modelOptionsFromConfig, ModelRecordFailed } from "./ModelClient.ts"
export type { ModelCalledEvent, ModelClientOptions, ModelServer } from "./ModelClient.ts"
export { PROMPTS_DIR, loadPrompt, promptRef, promptVariables, PromptNotFound, PromptVariableMissing, renderPrompt } from "./Prompts.ts"
export { extractCode } from "./Code.ts"
export { chat, modelCallId } from "./Calls.ts"
export type { ChatMessage, ModelError } from "./Calls.ts"
export { modelKeySteps, snapKeySteps } from "./KeySteps.ts"
export type { StepDescription } from "./KeySteps.ts"
export { NO_CODE, modelSynthesize } from "./Synthesis.ts"
export type { ModelSynthesizeInput, Verdict } from "./Synthesis.ts"
export { imageRef } from "./Images.ts"
export type { ResolveImage } from "./Images.ts"
export { modelRelabel } from "./Relabel.ts"
export type { ModelRelabelInput } from "./Relabel.ts"
