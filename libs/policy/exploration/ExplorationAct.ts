/**
 * The exploration policy as a `Policy`: how its version reads the episode's view (select
 * options and the page's snapshot from version 2, answers read off the page from version
 * 3) and its seeded action. The retrieval policy reads the view the same way, since it
 * falls back to this policy where it has no confident match.
 *
 * @example
 * const action = yield* explorationPolicy({ version: "13" }).act(view, prng(seed))
 */
import { Effect } from "effect"
import type { Policy } from "../Policy.ts"
import { policyElement } from "../PolicyView.ts"
import type { EpisodeView, PolicyInput } from "../PolicyView.ts"
import { explorationAction } from "./ExplorationPolicy.ts"
import type { ExplorationOptions } from "./ExplorationPolicy.ts"
import { readsAnswers } from "./ExplorationVersions.ts"
import type { ExplorationVersion } from "./ExplorationVersions.ts"
import { withSelectOptions } from "./FormFilling.ts"

/** What trajectories explored by this policy record as their policy. */
export const EXPLORATION_POLICY = "exploration-v1"

/** The view as the exploration policy's version reads it. */
export const explorationInput = (view: EpisodeView, version: ExplorationVersion): PolicyInput => {
  const aria = version === "1" ? null : view.page
  const elements = view.elements.map(policyElement)
  return {
    instruction: view.instruction,
    url: view.url,
    elements: version === "1" ? elements : withSelectOptions(elements, aria),
    history: view.history,
    stepBudget: view.stepBudget,
    // Versions 3 and later read answers off the page; earlier versions never saw it.
    ...(readsAnswers(version) ? { page: aria } : {})
  }
}

/** The seeded exploration policy; `version` defaults to "1" (no form filling), as runs before versions played. */
export const explorationPolicy = (options: ExplorationOptions = {}): Policy => {
  const version = options.version ?? "1"
  return {
    name: EXPLORATION_POLICY,
    version,
    act: (view, draws) => Effect.sync(() => explorationAction(explorationInput(view, version), draws, { ...options, version }))
  }
}
