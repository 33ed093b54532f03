/**
 * What a policy sees of an episode: the instruction, the page's elements, the steps so far
 * and the budget, plus the seeded draws it samples with. The exploration policy, form
 * filling and menu reading all read these shapes; keeping them apart from the policy
 * itself is what lets those helpers import them without importing the policy back.
 *
 * @example
 * const input: PolicyInput = { instruction, url, elements, history: [], stepBudget: 10 }
 */
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
