/**
 * Key-step identification, embedded (Semantic Code Abstraction step 2, docs/method.md): the
 * steps of a demo that a label function must see again in any trajectory that does the
 * task. No model and no site knowledge — only what the demo shows:
 *
 * - dropped: scrolls, waits, focus-only clicks (a click on a field that the next step —
 *   past any caret keys — types into or selects in), caret keys, repeats (the same click
 *   again on the same page; a field filled again later keeps only its last value, while an
 *   insert adds to what was there and stays), and plain navigation (link clicks, typed
 *   URLs, back): how one got somewhere is a path, not the task;
 * - kept: state-changing actions (typing, selecting, pressing buttons, checking boxes,
 *   any click that left the URL as it was), the step that reached the page the demo ended
 *   on (when it ended somewhere other than where it started), the last answer, the last
 *   status.
 *
 * With `inPageLinks` (synthesis 4), a link clicked that left the URL as it was and the page
 * showing the same elements is dropped too: an in-page anchor ("Skip to content") moved the
 * view, and a path that asked for it again would hold for no one who did not click it.
 *
 * With `editsByEffect` (synthesis 5), an edit is judged by what it made of the field, not
 * by the keys that made it: caret and selection keys (any modifiers with arrows, Home, End,
 * Page Up/Down; select-all) and keys pressed while editing a field that changed nothing
 * but fields' values (Backspace, Enter in a textarea) are no key steps and do not make the
 * click before them more than focus; and typing into a field that is typed into again
 * before the page changes is carried by the later edit, whose label function judges the
 * field's content since the page showed it.
 *
 * @example
 * identifyKeySteps(demo).map((k) => k.stepIndex) // [0, 2, 3, 6, 7, 8, 9, 10, 11, 12]
 */
import type { LfAction, LfElement, LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { describeStep } from "./StepDescriptions.ts"

export type KeyStepReason = "state-changing" | "reaches-final-page" | "final-answer" | "final-status"

export interface IdentifiedKeyStep {
  readonly stepIndex: number
  readonly description: string
  readonly reason: KeyStepReason
}

/** Roles whose click only moves focus, when typing or choosing follows. */
const FIELD_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton", "listbox"])

const NAVIGATION = new Set(["navigate", "back", "home"])

/** Keys that only move the caret or the selection in a field: where an insert goes, not a step of the task. */
const CARET_KEY = /^((Control\+)?(Shift\+)?(Control\+)?(Home|End|ArrowLeft|ArrowRight|ArrowUp|ArrowDown)|Control\+a)$/

const isCaretKey = (s: LfStep | undefined): boolean => s !== undefined && s.action.kind === "key" && CARET_KEY.test(s.action.key ?? "")

/** Caret and selection keys under any modifiers, and select-all (synthesis 5). */
const SELECTION_KEY =
  /^((Control|Meta|ControlOrMeta|Alt|Shift)\+)*(Home|End|PageUp|PageDown|ArrowLeft|ArrowRight|ArrowUp|ArrowDown)$|^(Control|Meta|ControlOrMeta)\+[aA]$/

/** What the page shows but for text fields' values: what a key pressed in a field should leave as it was. */
const shownButFields = (elements: ReadonlyArray<LfElement>): string =>
  JSON.stringify(elements.map((e) => [e.role, e.name, FIELD_ROLES.has(e.role) ? null : e.value, e.checked]))

/**
 * A key pressed while editing a field (the last step before it that was no key acted on a
 * text field) that left the URL as it was and changed nothing but fields' values.
 */
const isEditKey = (t: LfTrajectory, i: number): boolean => {
  const s = t.steps[i]!
  if (s.action.kind !== "key" || urlChanged(s)) return false
  const acted = t.steps.slice(0, i).findLast((p) => p.action.kind !== "key")
  if (acted === undefined || acted.action.role === null || !FIELD_ROLES.has(acted.action.role)) return false
  const before = i > 0 ? t.steps[i - 1]!.elements : t.initialElements
  return before !== null && s.elements !== null && shownButFields(before) === shownButFields(s.elements)
}

/** Keys that are part of an edit rather than steps of their own (synthesis 5: `editsByEffect`). */
const isPartOfEdit = (t: LfTrajectory, i: number, options: KeyStepOptions): boolean => {
  const s = t.steps[i]
  if (s === undefined || s.action.kind !== "key") return false
  if (options.editsByEffect !== true) return isCaretKey(s)
  return (SELECTION_KEY.test(s.action.key ?? "") && !urlChanged(s)) || isEditKey(t, i)
}

/**
 * Is step `stepIndex` part of an edit rather than a step of its own (`editsByEffect`): a
 * caret or selection key, or a key that only changed a field? Asked of a step a model chose,
 * which the embedded rules may not have kept; false without the option, as before it.
 */
export const partOfEdit = (t: LfTrajectory, stepIndex: number, options: KeyStepOptions): boolean => {
  const at = t.steps.findIndex((s) => s.index === stepIndex)
  return options.editsByEffect === true && at >= 0 && isPartOfEdit(t, at, options)
}

/** Typed into again, as an insert, before the page changed: the later edit's LF judges what both made. */
const carriedByLaterEdit = (t: LfTrajectory, i: number, options: KeyStepOptions): boolean => {
  const a = t.steps[i]!.action
  for (const later of t.steps.slice(i + 1)) {
    if (later.action.kind === "type" && later.action.mode === "insert" && sameField(later.action, a, options)) return true
    if (urlChanged(later)) return false
  }
  return false
}

const pathOf = (url: string | null): string | null => (url === null ? null : url.split("?")[0]!)

const sameTarget = (a: LfAction, b: LfAction): boolean => a.role === b.role && a.name === b.name

/** The same field, as far as a trajectory can tell: with `namelessApart`, two nameless fields are not. */
const sameField = (a: LfAction, b: LfAction, options: KeyStepOptions): boolean =>
  sameTarget(a, b) && !(options.namelessApart === true && (a.name ?? "").trim() === "")

const sameAction = (a: LfAction, b: LfAction): boolean => JSON.stringify(a) === JSON.stringify(b)

const urlChanged = (s: LfStep): boolean => s.urlAfter !== s.urlBefore

/** A click whose target is a link and that took the browser somewhere else: navigation. */
const isNavigationClick = (s: LfStep): boolean =>
  (s.action.kind === "click" || s.action.kind === "long_press") && s.action.role === "link" && urlChanged(s)

/** What the page shows, for telling whether a step changed it: each element's role, name, value and checked state. */
export const shown = (elements: ReadonlyArray<LfElement>): string =>
  JSON.stringify(elements.map((e) => [e.role, e.name, e.value, e.checked]))

/** A link clicked that neither left the page nor changed what it shows. */
const isInPageLink = (t: LfTrajectory, i: number): boolean => {
  const s = t.steps[i]!
  const before = i > 0 ? t.steps[i - 1]!.elements : t.initialElements
  return s.action.role === "link" && !urlChanged(s) && before !== null && s.elements !== null && shown(before) === shown(s.elements)
}

export interface KeyStepOptions {
  /** Drop links clicked that neither left the page nor changed it (synthesis 4); default false, as runs before it identified. */
  readonly inPageLinks?: boolean
  /** Keys that moved the caret or only changed a field, and typing a later insert carries, are part of an edit (synthesis 5). */
  readonly editsByEffect?: boolean
  /**
   * Fields without a name are told apart (synthesis 7): typing into one is never taken as
   * overwritten or carried by typing into another nameless field, since nothing says it is
   * the same (a table's cells edited one after another: date, category, amount).
   */
  readonly namelessApart?: boolean
}

export const identifyKeySteps = (t: LfTrajectory, options: KeyStepOptions = {}): ReadonlyArray<IdentifiedKeyStep> => {
  const steps = t.steps
  const reasons = new Map<number, KeyStepReason>()
  const lastOf = (kind: LfAction["kind"]) => steps.findLast((s) => s.action.kind === kind)

  steps.forEach((s, i) => {
    const a = s.action
    switch (a.kind) {
      case "scroll":
      case "wait":
      case "answer":
      case "status":
        return
      case "click":
      case "long_press": {
        if (isNavigationClick(s) || (options.inPageLinks === true && isInPageLink(t, i))) return
        let j = i + 1
        while (isPartOfEdit(t, j, options)) j++
        const typedNext = steps[j]
        const focusOnly =
          a.role !== null &&
          FIELD_ROLES.has(a.role) &&
          typedNext !== undefined &&
          (typedNext.action.kind === "type" || typedNext.action.kind === "select") &&
          sameTarget(a, typedNext.action)
        if (focusOnly) return
        const prev = steps[i - 1]
        if (prev !== undefined && sameAction(prev.action, a) && prev.urlAfter === s.urlBefore && !urlChanged(s)) return
        reasons.set(s.index, "state-changing")
        return
      }
      case "type":
      case "select": {
        // Overwritten later on the same page: only the last value is the one that counted.
        // An insert adds to what is there: it overwrites nothing.
        const overwritten = steps
          .slice(i + 1)
          .some(
            (later) =>
              later.action.kind === a.kind &&
              later.action.mode !== "insert" &&
              sameField(later.action, a, options) &&
              pathOf(later.urlBefore) === pathOf(s.urlBefore)
          )
        const carried = options.editsByEffect === true && carriedByLaterEdit(t, i, options)
        if (!overwritten && !carried) reasons.set(s.index, "state-changing")
        return
      }
      case "key":
        if (options.editsByEffect === true && isPartOfEdit(t, i, options)) return
        if (urlChanged(s) || norm(a.key) === "enter") reasons.set(s.index, "state-changing")
        return
      case "open_app":
        reasons.set(s.index, "state-changing")
        return
      default:
        if (NAVIGATION.has(a.kind)) return
    }
  })

  const finalUrl = steps.at(-1)?.urlAfter ?? null
  if (finalUrl !== null && pathOf(finalUrl) !== pathOf(t.startUrl)) {
    const reached = steps.findLast((s) => urlChanged(s) && s.action.kind !== "answer" && s.action.kind !== "status")
    if (reached !== undefined && !reasons.has(reached.index)) reasons.set(reached.index, "reaches-final-page")
  }
  const answer = lastOf("answer")
  if (answer !== undefined) reasons.set(answer.index, "final-answer")
  const status = lastOf("status")
  if (status !== undefined) reasons.set(status.index, "final-status")

  return steps
    .filter((s) => reasons.has(s.index))
    .map((s) => ({ stepIndex: s.index, description: describeStep(s.action), reason: reasons.get(s.index)! }))
}

const norm = (s: string | null): string => (s ?? "").trim().toLowerCase()
