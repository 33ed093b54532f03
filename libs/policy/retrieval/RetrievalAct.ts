/**
 * The embedded policy as a `Policy`: the retrieval policy over the run's index, and the
 * seeded exploration policy wherever it finds no confident match (or there is no index
 * yet). Both read the view as the exploration version says; the retrieval version decides
 * whether a recorded answer is read off the page's snapshot (version 2).
 *
 * @example
 * const action = yield* retrievalPolicy({ index, version: "2", exploration: { version: "13" } }).act(view, prng(seed))
 */
import { Effect } from "effect"
import { explorationInput } from "../exploration/ExplorationAct.ts"
import { explorationAction } from "../exploration/ExplorationPolicy.ts"
import type { ExplorationOptions } from "../exploration/ExplorationPolicy.ts"
import type { Policy } from "../Policy.ts"
import type { EpisodeView } from "../PolicyView.ts"
import type { RetrievalVersion } from "./Reading.ts"
import type { RetrievalModel } from "./RetrievalIndex.ts"
import { retrievalAction } from "./RetrievalPolicy.ts"

/** What trajectories of the embedded policy record as their policy. */
export const RETRIEVAL_POLICY = "retrieval-v1"

export interface RetrievalPolicyOptions {
  /** The index trained on the run's sft records so far; null or absent: the policy explores. */
  readonly index?: RetrievalModel | null
  /** The retrieval rules the run recorded; absent: version 1. */
  readonly version?: RetrievalVersion
  /** The exploration policy it falls back to, and whose version reads the view. */
  readonly exploration?: ExplorationOptions
}

/** What the retrieval policy's version reads besides the elements: version 2, the page's accessibility snapshot (answers read off it). */
const retrievalReading = (version: RetrievalVersion | undefined, view: EpisodeView) =>
  version === "2" ? { version: "2" as const, page: view.page } : {}

/** The retrieval policy with its exploration fallback. */
export const retrievalPolicy = (options: RetrievalPolicyOptions): Policy => {
  const exploration = { ...options.exploration, version: options.exploration?.version ?? "1" }
  const index = options.index ?? null
  return {
    name: RETRIEVAL_POLICY,
    version: options.version ?? "1",
    act: (view, draws) =>
      Effect.sync(() => {
        const seen = explorationInput(view, exploration.version)
        return (
          (index === null ? null : retrievalAction(index, seen, draws, retrievalReading(options.version, view))) ??
          explorationAction(seen, draws, exploration)
        )
      })
  }
}
