/**
 * What the learner chooses among in a state: each element × the action kinds its role
 * allows, plus the actions on no element (answer, complete, infeasible, back, scroll). The
 * texts a type, a select or an answer carries are not chosen here: the policy fills them
 * from the instruction or the page once a candidate wins (LearnedPolicy.ts).
 *
 * @example
 * candidatesOf(screen) // [{ kind: "click", element: {...} }, …, { kind: "answer", element: null }, …]
 */
import type { ChoiceKind } from "./Records.ts"
import type { Screen, ScreenElement } from "./Screen.ts"

export interface Candidate {
  readonly kind: ChoiceKind
  /** Its index in the screen's elements; -1 for an action on no element. */
  readonly index: number
  readonly element: ScreenElement | null
}

const TEXT_ROLES = new Set(["textbox", "searchbox", "spinbutton"])
/** Roles nothing is done to: structure and text the page shows, not controls. */
const INERT_ROLES = new Set(["generic", "none", "presentation", "StaticText", "LineBreak", "paragraph", "separator"])

/** The kinds an element of this role may get. */
export const kindsOfRole = (role: string): ReadonlyArray<ChoiceKind> =>
  TEXT_ROLES.has(role)
    ? ["type", "type-submit", "click"]
    : role === "combobox"
      ? ["select", "type", "type-submit", "click"]
      : role === "listbox"
        ? ["select", "click"]
        : INERT_ROLES.has(role)
          ? []
          : ["click"]

export const GLOBAL_KINDS: ReadonlyArray<ChoiceKind> = ["answer", "complete", "infeasible", "back", "scroll"]
/** The kinds that end an episode: all the policy may do on its last step. */
export const FINAL_KINDS: ReadonlySet<ChoiceKind> = new Set(["answer", "complete", "infeasible"])

export const candidatesOf = (screen: Screen): ReadonlyArray<Candidate> => {
  const out: Array<Candidate> = []
  screen.elements.forEach((element, index) => {
    for (const kind of kindsOfRole(element.role)) out.push({ kind, index, element })
  })
  for (const kind of GLOBAL_KINDS) out.push({ kind, index: -1, element: null })
  return out
}

/** The candidate a recorded choice is, by kind and element id; -1 when the state offers none such. */
export const indexOfChoice = (
  candidates: ReadonlyArray<Candidate>,
  choice: { readonly kind: ChoiceKind; readonly elementId: string | null }
): number =>
  candidates.findIndex(
    (c) => c.kind === choice.kind && (c.element === null ? choice.elementId === null : c.element.id === choice.elementId)
  )
