/**
 * Grounding: the recorded target (after substitution) on the current page. Element ids are
 * episode-local, so a target is found again by role and name — equal names first, then the
 * best token overlap, which must show every parameter the substitution brought in (a radio
 * "Standard shipping (free)" for a recorded "Express shipping ($12.00)" with express →
 * standard; never the "Express" one).
 */
import type { PolicyElement } from "../PolicyView.ts"
import { normalizeText } from "@core/domain"
import { terms } from "./Text.ts"

export interface TargetLabel {
  readonly role: string | null
  readonly name: string | null
  readonly text: string | null
}

export interface Grounded {
  readonly element: PolicyElement
  /** 1 for the same role and name; below 1 for a near name or a sibling role. */
  readonly quality: number
}

/** Below this weighted token overlap a name is another element's. */
export const FUZZY_THRESHOLD = 0.6
/** A near match scores FUZZY_BASE + FUZZY_SPAN × overlap: below any exact one, well above nothing. */
const FUZZY_BASE = 0.7
const FUZZY_SPAN = 0.25
/** Roles a field may change between while staying the field (a search box rendered as a text box). */
const TEXT_ENTRY = new Set(["textbox", "searchbox", "combobox", "spinbutton"])
const SIBLING_ROLE = 0.95

const roleFit = (recorded: string, current: string): number => {
  if (recorded === "" || recorded === current) return 1
  return TEXT_ENTRY.has(recorded) && TEXT_ENTRY.has(current) ? SIBLING_ROLE : 0
}

/** Bare numbers (prices, counts) say little about which element it is; a substituted parameter says most. */
const termWeight = (t: string, introduced: ReadonlySet<string>): number => (introduced.has(t) ? 2 : /^\p{N}+$/u.test(t) ? 0.5 : 1)

const weightedDice = (x: ReadonlyArray<string>, y: ReadonlyArray<string>, introduced: ReadonlySet<string>): number => {
  const a = new Set(x)
  const b = new Set(y)
  let shared = 0
  let total = 0
  for (const t of a) {
    total += termWeight(t, introduced)
    if (b.has(t)) shared += termWeight(t, introduced)
  }
  for (const t of b) total += termWeight(t, introduced)
  return total === 0 ? 0 : (2 * shared) / total
}

/** Below an exact name: the field was found by being the only one of its kind, not by what it says. */
const UNNAMED_QUALITY = 0.9

/**
 * A field recorded without a name or text (a title input with no label) is the page's only
 * field of that role without one; with several, nothing says which, so none is.
 */
const unnamedField = (role: string, usable: ReadonlyArray<PolicyElement>, editable: boolean): Grounded | null => {
  if (!editable || role === "") return null
  const unnamed = usable.filter((e) => normalizeText(e.role) === role && normalizeText(e.name) === "" && normalizeText(e.text) === "")
  return unnamed.length === 1 ? { element: unnamed[0]!, quality: UNNAMED_QUALITY } : null
}

/**
 * The visible, enabled element the label names, or null. `editable` restricts to fields
 * (a recorded type or select); `introduced` are the terms a match must contain.
 */
export const ground = (
  label: TargetLabel,
  elements: ReadonlyArray<PolicyElement>,
  options: { readonly editable: boolean; readonly introduced: ReadonlyArray<string> }
): Grounded | null => {
  const role = normalizeText(label.role ?? "")
  const name = normalizeText(label.name ?? "")
  const text = normalizeText(label.text ?? "")
  const wanted = name !== "" ? name : text
  const usable = elements.filter((e) => e.visible && e.enabled && (!options.editable || e.editable))
  if (wanted === "") return unnamedField(role, usable, options.editable)
  const introduced = new Set(options.introduced)
  let best: Grounded | null = null
  for (const e of usable) {
    const fit = roleFit(role, normalizeText(e.role))
    if (fit === 0) continue
    const eName = normalizeText(e.name)
    const eText = normalizeText(e.text)
    const exact = name !== "" ? eName === name : eText === text || eName === text
    if (exact) {
      // an equal text as well breaks a tie between two equally named elements
      const quality = fit * (name === "" || text === "" || eText === text ? 1 : 0.99)
      if (best === null || quality > best.quality) best = { element: e, quality }
      continue
    }
    const want = terms(wanted)
    const have = terms(eName !== "" ? eName : eText)
    const haveAll = new Set([...have, ...terms(eText)])
    if (!options.introduced.every((t) => haveAll.has(t))) continue
    const overlap = Math.max(weightedDice(want, have, introduced), eText === "" ? 0 : weightedDice(want, terms(eText), introduced))
    if (overlap < FUZZY_THRESHOLD) continue
    const quality = fit * (FUZZY_BASE + FUZZY_SPAN * overlap)
    if (best === null || quality > best.quality) best = { element: e, quality }
  }
  return best
}
