/**
 * The LF API guide's versions (`infer.lfGuide`): the guide is part of a recorded prompt, so a
 * run records the version it showed a model and replaying an older run rebuilds its prompts
 * from the guide it saw (LfApi.ts keeps one guide per version). Runs from before versions
 * were recorded saw version 1.
 *
 * @example
 * lfGuideRulesAt(config["infer.lfGuide"]).typesAtCursor // false for a run from before versions
 */
import { axis, rulesAt, type RuleSet, type VersionOf } from "./Versioned.ts"

export const LF_GUIDE = axis("LF guide", "infer.lfGuide", ["1", "2"], "2", {
  /** The guide documents typing at the cursor (`mode: "insert"`). */
  typesAtCursor: "2"
})

export type LfGuideVersion = VersionOf<typeof LF_GUIDE>
export type LfGuideRules = RuleSet<typeof LF_GUIDE>

/** The LF guide rules of a recorded version (anything else, a run from before versions, is version 1). */
export const lfGuideRulesAt = (recorded: unknown): LfGuideRules => rulesAt(LF_GUIDE, recorded)
