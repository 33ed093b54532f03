/**
 * A run's rules on every axis, resolved once from the versions its RunStarted recorded: the
 * run state holds them, and deciders, the rollout, policies and domain functions read named
 * booleans (`rules.data.sftOrigin`) instead of comparing version strings.
 *
 * @example
 * const rules = resolveRules({ data: "7", exploration: "13", synthesis: "7", retrieval: "2", lfGuide: "2", learner: "2" })
 * rules.exploration.avoidsOffsite // true
 */
import { DATA_RULES, type DataRuleSet, dataRulesAt } from "./DataRules.ts"
import { EXPLORATION, type ExplorationRules, explorationRulesAt } from "./Exploration.ts"
import { LEARNER, type LearnerRules, learnerRulesAt } from "./Learner.ts"
import { LF_GUIDE, type LfGuideRules, lfGuideRulesAt } from "./LfGuide.ts"
import { RETRIEVAL, type RetrievalRules, retrievalRulesAt } from "./Retrieval.ts"
import { SYNTHESIS, type SynthesisRules, synthesisRulesAt } from "./Synthesis.ts"
import type { Axis } from "./Versioned.ts"

export interface Rules {
  readonly data: DataRuleSet
  readonly exploration: ExplorationRules
  readonly synthesis: SynthesisRules
  readonly retrieval: RetrievalRules
  readonly lfGuide: LfGuideRules
  readonly learner: LearnerRules
}

/** The versions a run recorded, one per axis (anything unknown reads as the axis's first). */
export type RecordedVersions = { readonly [K in keyof Rules]: unknown }

/** Every axis, by its place in {@link Rules}: what the table of versions and the specs walk. */
export const AXES = {
  data: DATA_RULES,
  exploration: EXPLORATION,
  synthesis: SYNTHESIS,
  retrieval: RETRIEVAL,
  lfGuide: LF_GUIDE,
  learner: LEARNER
} as const satisfies { readonly [K in keyof Rules]: Axis }

export const resolveRules = (recorded: RecordedVersions): Rules => ({
  data: dataRulesAt(recorded.data),
  exploration: explorationRulesAt(recorded.exploration),
  synthesis: synthesisRulesAt(recorded.synthesis),
  retrieval: retrievalRulesAt(recorded.retrieval),
  lfGuide: lfGuideRulesAt(recorded.lfGuide),
  learner: learnerRulesAt(recorded.learner)
})
