/**
 * `@core/policy`: what acts in a rollout. Every policy has one shape (`Policy`: a name, a
 * version, and `act(view, draws)` → the next action), so the rollout builds the episode's
 * view once and asks whichever policy the run chose:
 *
 * - exploration/: the seeded exploration policy (no model), with its form filling, page
 *   reading and sort orders;
 * - retrieval/: the retrieval policy, which replays verified decisions in new situations
 *   from an index of the run's sft records, falling back to exploration;
 * - model/: a multimodal model on an OpenAI-compatible server (its calls through @core/models).
 *
 * The embedded two are pure and deterministic given the view and a seeded draws source,
 * and share one sampler (`softmaxDraw`).
 *
 * @example
 * const policy = explorationPolicy({ version: EXPLORATION.current })
 * const action = yield* policy.act(view, prng(seed))
 */
export type { Policy } from "./Policy.ts"
export { policyElement } from "./PolicyView.ts"
export type { Draws, EpisodeView, PolicyElement, PolicyHistoryStep, PolicyInput } from "./PolicyView.ts"
export { softmaxDraw } from "./Sampling.ts"
export { PRICE, WHOLE, anchorOf, atomsOf, countIn, neighbours, stem, stemsOf } from "./PageText.ts"
export type { Atom } from "./PageText.ts"

export { EXPLORATION_POLICY, explorationInput, explorationPolicy } from "./exploration/ExplorationAct.ts"
export type { ExplorationPolicyOptions } from "./exploration/ExplorationAct.ts"
export { explorationAction, instructionTerms, isQuestion, textToType } from "./exploration/ExplorationPolicy.ts"
export type { ExplorationOptions } from "./exploration/ExplorationPolicy.ts"
export { instructionOrder, optionOrder, sortOptionFor } from "./exploration/SortOrder.ts"
export type { SortOrder } from "./exploration/SortOrder.ts"
export {
  continuePlan,
  fieldKindOf,
  formPlans,
  lookupFormIds,
  pageForms,
  selectOptionsOf,
  selectValueFor,
  valueForField,
  withSelectOptions
} from "./exploration/FormFilling.ts"
export type { FieldKind, FormFill, FormPlan, PageForm, PlanOptions } from "./exploration/FormFilling.ts"
export { instructionValues } from "./exploration/InstructionValues.ts"
export type { InstructionValue, ValueKind, ValueOptions } from "./exploration/InstructionValues.ts"
export { answerFromPage, askedKindOf } from "./exploration/PageAnswer.ts"
export type { AskedKind, ReadingOptions } from "./exploration/PageAnswer.ts"
export { asksForChange, madeChange } from "./exploration/ChangeAsked.ts"

export { RETRIEVAL_POLICY, retrievalPolicy } from "./retrieval/RetrievalAct.ts"
export type { RetrievalPolicyOptions } from "./retrieval/RetrievalAct.ts"
export { trainRetrieval, describeAction, modelDigestInput, retrievalModelFromJson } from "./retrieval/RetrievalIndex.ts"
export type { RetrievalExample, RetrievalModel, RetrievalModelExample } from "./retrieval/RetrievalIndex.ts"
export { retrievalAction, rankRetrieval } from "./retrieval/RetrievalPolicy.ts"
export type { RetrievalCandidate, RetrievalOptions } from "./retrieval/RetrievalPolicy.ts"
export { alignInstructions } from "./retrieval/Alignment.ts"
export type { Alignment, Substitution } from "./retrieval/Alignment.ts"
export { readAnswer } from "./retrieval/Reading.ts"

export { modelPolicy } from "./model/ModelAct.ts"
export type { ModelPolicySpec } from "./model/ModelAct.ts"
export { modelPolicyAction, parsePolicyAnswer, PolicyAnswerInvalid } from "./model/ModelPolicy.ts"
export type { ModelPolicyInput, ModelPolicyOptions } from "./model/ModelPolicy.ts"
