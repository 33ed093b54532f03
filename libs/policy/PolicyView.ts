/**
 * What a policy sees of an episode: the instruction, the page's elements, the steps so far
 * and the budget, plus the seeded draws it samples with. `EpisodeView` is the whole of it,
 * as the rollout builds it once per step for whichever policy acts; `PolicyInput` is the
 * embedded policies' reading of it. The exploration policy, form filling and menu reading
 * all read these shapes; keeping them apart from the policies themselves is what lets
 * those helpers import them without importing a policy back.
 *
 * @example
 * const input: PolicyInput = { instruction, url, elements: view.elements.map(policyElement), history: [], stepBudget: 10 }
 */
import type { ElementInfo } from "@core/environment"
import type { Action } from "@core/events"

export interface PolicyElement {
  readonly id: string
  readonly role: string
  readonly name: string
  readonly text: string
  readonly value: string | null
  readonly visible: boolean
  readonly enabled: boolean
  readonly editable: boolean
  readonly checked: boolean | null
  /**
   * A select's option labels in page order, when the observation shows them (its aria
   * snapshot does: `withSelectOptions`); absent when unknown. Read by form filling only.
   */
  readonly options?: ReadonlyArray<string>
  /** Its link or form leads off the app's origins (ElementInfo's `offsite`); absent means false. Version 5 never acts on it. */
  readonly offsite?: boolean
  /** A click would not reach it: outside an open modal, or covered (ElementInfo's `covered`). Version 10 never acts on it. */
  readonly covered?: boolean
}

export interface PolicyHistoryStep {
  readonly action: Action
  /** The URL the action led to, and the environment's complaint about it, if any. */
  readonly url: string | null
  readonly error: string | null
}

export interface PolicyInput {
  readonly instruction: string
  readonly url: string | null
  /** The current observation's element list. */
  readonly elements: ReadonlyArray<PolicyElement>
  /** Earlier actions in this episode, oldest first. */
  readonly history: ReadonlyArray<PolicyHistoryStep>
  /** The episode's step limit (the caller stops at it). */
  readonly stepBudget: number
  /** The current observation's accessibility snapshot, when recorded: version 3 reads answers off it. */
  readonly page?: string | null
}

/** Uniform in [0, 1): the caller passes a seeded PRNG (never Math.random). */
export interface Draws {
  float(): number
}

/**
 * One step's view of the episode: the observation the policy acts on and the steps before
 * it. Only what the environment showed — never the site's state or a checker — so replay,
 * which re-reads the same observations, builds the same view.
 */
export interface EpisodeView {
  readonly instruction: string
  readonly url: string | null
  readonly title: string | null
  readonly app: string | null
  /** The environment's complaint about the last action, if any. */
  readonly error: string | null
  /** The elements the policy may act on: the observation's, less those the episode holds back (the known way on, off the app, covered). */
  readonly elements: ReadonlyArray<ElementInfo>
  /** Earlier actions in this episode, oldest first. */
  readonly history: ReadonlyArray<PolicyHistoryStep>
  /** The episode's step limit (the caller stops at it). */
  readonly stepBudget: number
  /** The index in the trajectory of the step being decided. */
  readonly step: number
  /** The observation's accessibility snapshot as text; null when not recorded. */
  readonly page: string | null
  /** sha256 of the screenshot's PNG blob; null without one. */
  readonly screenshot: string | null
  /** sha256 of the set-of-marks PNG (each element's id drawn on its box); null without one. */
  readonly marks: string | null
}

/** An environment's element as the embedded policies read it: the fields they score, and the two marks some versions never act on. */
export const policyElement = (e: ElementInfo): PolicyElement => ({
  id: e.id,
  role: e.role,
  name: e.name,
  text: e.text,
  value: e.value,
  visible: e.visible,
  enabled: e.enabled,
  editable: e.editable,
  checked: e.checked,
  ...(e.offsite === true ? { offsite: true } : {}),
  ...(e.covered === true ? { covered: true } : {})
})
