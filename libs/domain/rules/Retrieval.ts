/**
 * The retrieval policy's versions (`run.retrieval`): a run keeps the one it recorded, so its
 * episodes replay with the same actions. 1 copies a recorded answer (with the instruction's
 * values put in); 2 reads a recorded price or count off the current page (libs/policy
 * Reading.ts `readAnswer`). Draws are the same.
 *
 * @example
 * const rules = retrievalRulesAt(config["run.retrieval"]) // version 1's for runs before versions
 * rankRetrieval(model, input, { rules, page })
 */
import { axis, rulesAt, type RuleSet, type VersionOf } from "./Versioned.ts"

export const RETRIEVAL = axis("retrieval", "run.retrieval", ["1", "2"], "2", {
  /** A recorded answer's price or count is read off the current page, in the recorded wording. */
  readsPage: "2"
})

export type RetrievalVersion = VersionOf<typeof RETRIEVAL>
export type RetrievalRules = RuleSet<typeof RETRIEVAL>

/** The retrieval rules of a recorded version (anything else, a run from before versions, is version 1). */
export const retrievalRulesAt = (recorded: unknown): RetrievalRules => rulesAt(RETRIEVAL, recorded)
