/**
 * The embedded policy as a `Policy`: the retrieval policy over the run's index, and the
 * seeded exploration policy wherever it finds no confident match (or there is no index
 * yet). Both read the view as the exploration rules say; the retrieval rules decide whether
 * a recorded answer is read off the page's snapshot (`readsPage`). Recorded versions are
 * resolved into named rules once, when the policy is built.
 *
 * @example
 * const action = yield* retrievalPolicy({ index, version: RETRIEVAL.current, exploration: { version: EXPLORATION.current } }).act(view, prng(seed))
 */
import { Effect } from "effect"
import { RETRIEVAL, explorationRulesAt, retrievalRulesAt, versionOf } from "@core/domain"
import type { RetrievalRules, RetrievalVersion } from "@core/domain"
import { explorationInput } from "../exploration/ExplorationAct.ts"
import type { ExplorationPolicyOptions } from "../exploration/ExplorationAct.ts"
import { explorationAction } from "../exploration/ExplorationPolicy.ts"
import type { Policy } from "../Policy.ts"
import type { EpisodeView } from "../PolicyView.ts"
import type { RetrievalModel } from "./RetrievalIndex.ts"
import { retrievalAction } from "./RetrievalPolicy.ts"

/** What trajectories of the embedded policy record as their policy. */
export const RETRIEVAL_POLICY = "retrieval-v1"

export interface RetrievalPolicyOptions {
  /** The index trained on the run's sft records so far; null or absent: the policy explores. */
  readonly index?: RetrievalModel | null
  /** The retrieval version the run recorded; absent: the first. */
  readonly version?: RetrievalVersion
  /** The exploration policy it falls back to, and whose rules read the view. */
  readonly exploration?: ExplorationPolicyOptions
}

/** What the retrieval rules read besides the elements: from `readsPage` on, the page's accessibility snapshot (answers read off it). */
const retrievalReading = (rules: RetrievalRules, view: EpisodeView) => (rules.readsPage ? { rules, page: view.page } : {})

/** The retrieval policy with its exploration fallback. */
export const retrievalPolicy = (options: RetrievalPolicyOptions): Policy => {
  const { version: explorationVersion, ...tuning } = options.exploration ?? {}
  const exploration = { ...tuning, rules: explorationRulesAt(explorationVersion) }
  const version = versionOf(RETRIEVAL, options.version)
  const rules = retrievalRulesAt(version)
  const index = options.index ?? null
  return {
    name: RETRIEVAL_POLICY,
    version,
    act: (view, draws) =>
      Effect.sync(() => {
        const seen = explorationInput(view, exploration.rules)
        return (
          (index === null ? null : retrievalAction(index, seen, draws, retrievalReading(rules, view))) ??
          explorationAction(seen, draws, exploration)
        )
      })
  }
}
