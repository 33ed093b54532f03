/**
 * The exploration policy as a `Policy`: how its rules read the episode's view (select
 * options and the page's snapshot once it fills forms, answers read off the page once it
 * reads answers) and its seeded action. The retrieval policy reads the view the same way,
 * since it falls back to this policy where it has no confident match. The recorded version
 * is resolved into named rules once, when the policy is built.
 *
 * @example
 * const action = yield* explorationPolicy({ version: EXPLORATION.current }).act(view, prng(seed))
 */
import { Effect } from "effect"
import { EXPLORATION, explorationRulesAt, versionOf } from "@core/domain"
import type { ExplorationRules, ExplorationVersion } from "@core/domain"
import type { Policy } from "../Policy.ts"
import { policyElement } from "../PolicyView.ts"
import type { EpisodeView, PolicyInput } from "../PolicyView.ts"
import { explorationAction } from "./ExplorationPolicy.ts"
import type { ExplorationOptions } from "./ExplorationPolicy.ts"
import { withSelectOptions } from "./FormFilling.ts"

/** What trajectories explored by this policy record as their policy. */
export const EXPLORATION_POLICY = "exploration-v1"

/** The view as the exploration policy's rules read it. */
export const explorationInput = (view: EpisodeView, rules: ExplorationRules): PolicyInput => {
  const aria = rules.fillsForms ? view.page : null
  const elements = view.elements.map(policyElement)
  return {
    instruction: view.instruction,
    url: view.url,
    elements: rules.fillsForms ? withSelectOptions(elements, aria) : elements,
    history: view.history,
    stepBudget: view.stepBudget,
    // A version that reads answers sees the page; earlier versions never saw it.
    ...(rules.readsAnswers ? { page: aria } : {})
  }
}

/** How a run builds its exploration policy: the version it recorded (absent: the first, as runs before versions played) and the options it tunes. */
export type ExplorationPolicyOptions = Omit<ExplorationOptions, "rules"> & { readonly version?: ExplorationVersion }

/** The seeded exploration policy at the recorded version. */
export const explorationPolicy = (options: ExplorationPolicyOptions = {}): Policy => {
  const { version: recorded, ...tuning } = options
  const version = versionOf(EXPLORATION, recorded)
  const rules = explorationRulesAt(version)
  return {
    name: EXPLORATION_POLICY,
    version,
    act: (view, draws) => Effect.sync(() => explorationAction(explorationInput(view, rules), draws, { ...tuning, rules }))
  }
}
