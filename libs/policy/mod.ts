/**
 * Embedded policies: pure, JSON-serialisable, deterministic given their input and a
 * seeded draws source. The retrieval policy replays verified decisions in new situations.
 */
export { trainRetrieval, describeAction, modelDigestInput, retrievalModelFromJson } from "./Model.ts"
export type { RetrievalExample, RetrievalModel, RetrievalModelExample } from "./Model.ts"
export { retrievalAction, rankRetrieval } from "./RetrievalPolicy.ts"
export type { RetrievalCandidate, RetrievalOptions } from "./RetrievalPolicy.ts"
export { alignInstructions } from "./Alignment.ts"
export type { Alignment, Substitution } from "./Alignment.ts"
export { readAnswer } from "./Reading.ts"
