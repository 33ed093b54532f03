/**
 * Finding the element a step file means on the live page. A step file names its targets the
 * way a Playwright or Selenium script does — role, accessible name, visible text — never by
 * the episode-local element id, so one file plays on every seed; the id is looked up here,
 * on each step's observation.
 *
 * Matching: `role` exactly (case-insensitive) when given; `name` and `text` by normalised
 * equality (white space collapsed, case-insensitive). With no exact match, a unique
 * "contains" match is taken: a name shortened in the script still finds its element, but
 * a fragment that fits several elements is refused rather than guessed. Among several exact
 * matches, visible and enabled ones come first, then document order; `nth` (from 0) picks.
 * `name: null` is the element that has no name: only elements (of the role) whose accessible
 * name is empty match, and when several do, `nth` must say which — a field with no name has
 * nothing else to tell it by, so the first is not taken on trust.
 *
 * When nothing fits, the problem lists the closest elements on the page (by `nameSimilarity`),
 * so a typo or a renamed button is fixed from the message alone.
 *
 * @example
 * resolveTarget({ role: "link", name: "Getting Started" }, elements)
 * // { problem: 'no element matches; closest on the page: link "GettingStarted", button "get started"' }
 */
import { collapse } from "./LfTrajectory.ts"

/** A target by description; at least one of role, name, text. */
export interface TargetDescription {
  readonly role?: string
  /** null: the element has no accessible name (a field with no label). */
  readonly name?: string | null
  readonly text?: string
  /** Which of several matches, from 0 in the preferred order (visible and enabled first, then document order). */
  readonly nth?: number
}

/** What resolution reads of an element (the web environment's `ElementInfo` has all of it). */
export interface ResolvableElement {
  readonly id: string
  readonly role: string
  readonly name: string
  readonly text: string
  readonly visible: boolean
  readonly enabled: boolean
}

export type Resolution<E> = { readonly element: E; readonly match: "exact" | "contains" } | { readonly problem: string }

/** How many closest elements a problem lists. */
export const CLOSEST_SHOWN = 5

const norm = (s: string): string => collapse(s).toLowerCase()

/** Quoted for a one-line message: white space (line separators included) collapsed, long names cut. */
const quote = (s: string): string => {
  const flat = collapse(s)
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 59)}…` : flat)
}

/** `link "Getting Started"`, `element with text "Add"`, `button "Save" nth 1`, `textbox with no name`. */
export const describeTarget = (t: TargetDescription): string =>
  [
    t.role ?? (typeof t.name === "string" ? "" : "element"),
    t.name === undefined ? "" : t.name === null ? "with no name" : quote(t.name),
    t.text === undefined ? "" : `with text ${quote(t.text)}`,
    t.nth === undefined ? "" : `nth ${t.nth}`
  ]
    .filter((p) => p !== "")
    .join(" ")

/** How a page element is named in a message: `role "name"` (its text when it has no name); null when it has neither. */
export const elementLabel = (e: ResolvableElement): string | null => {
  const shown = collapse(e.name) !== "" ? e.name : e.text
  return collapse(shown) === "" ? null : `${e.role} ${quote(shown)}`
}

const levenshtein = (a: string, b: string): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)))
    prev = row
  }
  return prev[b.length]!
}

/**
 * 0..1, on normalised strings: one minus the edit distance over the longer length, raised
 * for containment (0.5 + half the length ratio) — "Add" is closer to "Add to wish list" than
 * its edit distance says. Strings are cut at 100 characters: this ranks, it does not match.
 */
export const nameSimilarity = (a: string, b: string): number => {
  const x = norm(a).slice(0, 100)
  const y = norm(b).slice(0, 100)
  if (x === y) return 1
  const longer = Math.max(x.length, y.length)
  const edit = 1 - levenshtein(x, y) / longer
  const shorter = Math.min(x.length, y.length)
  const contains = shorter > 0 && (x.includes(y) || y.includes(x)) ? 0.5 + (0.5 * shorter) / longer : 0
  return Math.max(edit, contains)
}

/** The page's elements closest to `target`, best first, as labels (visible ones only, unless none is). */
export const closestElements = (
  target: TargetDescription,
  elements: ReadonlyArray<ResolvableElement>,
  max = CLOSEST_SHOWN
): ReadonlyArray<string> => {
  const visible = elements.filter((e) => e.visible)
  const pool = visible.length > 0 ? visible : elements
  // Beside a name or text the role counts a quarter: a script's "button" that the page calls
  // a link is a smaller slip than another name, and the name is what a person recognises.
  const roleWeight = target.name === undefined && target.text === undefined ? 1 : 0.25
  const scored = pool.flatMap((e, order) => {
    const label = elementLabel(e)
    if (label === null) return []
    let score = 0
    let weight = 0
    if (target.role !== undefined) {
      score += roleWeight * (norm(target.role) === norm(e.role) ? 1 : nameSimilarity(target.role, e.role))
      weight += roleWeight
    }
    if (target.name === null) {
      score += collapse(e.name) === "" ? 1 : 0
      weight += 1
    } else if (target.name !== undefined) {
      score += nameSimilarity(target.name, e.name)
      weight += 1
    }
    if (target.text !== undefined) {
      score += nameSimilarity(target.text, collapse(e.text) === "" ? e.name : e.text)
      weight += 1
    }
    return [{ label, score: score / weight, order }]
  })
  scored.sort((a, b) => b.score - a.score || a.order - b.order)
  return [...new Set(scored.map((s) => s.label))].slice(0, max)
}

const closestPart = (target: TargetDescription, elements: ReadonlyArray<ResolvableElement>): string => {
  const closest = closestElements(target, elements)
  return closest.length === 0 ? "the page has no named elements" : `closest on the page: ${closest.join(", ")}`
}

const fits = (target: TargetDescription, e: ResolvableElement, same: (want: string, have: string) => boolean): boolean =>
  (target.role === undefined || norm(target.role) === norm(e.role)) &&
  (target.name === undefined || (target.name === null ? norm(e.name) === "" : same(norm(target.name), norm(e.name)))) &&
  (target.text === undefined || same(norm(target.text), norm(e.text)))

const usable = (e: ResolvableElement): boolean => e.visible && e.enabled

/** Visible and enabled first, each group in document order (the sort is stable). */
const preferred = <E extends ResolvableElement>(found: ReadonlyArray<E>): ReadonlyArray<E> =>
  [...found].sort((a, b) => Number(usable(b)) - Number(usable(a)))

/** The element of `elements` (document order) that `target` describes, or why there is none. */
export const resolveTarget = <E extends ResolvableElement>(target: TargetDescription, elements: ReadonlyArray<E>): Resolution<E> => {
  const nth = target.nth ?? 0
  const exact = preferred(elements.filter((e) => fits(target, e, (want, have) => want === have)))
  if (target.name === null && exact.length > 1 && target.nth === undefined) {
    return {
      problem: `${exact.length} elements match ${describeTarget(target)}: say which with "nth" (from 0: visible and enabled first, then page order)`
    }
  }
  if (exact.length > 0) {
    const element = exact[nth]
    if (element !== undefined) return { element, match: "exact" }
    return {
      problem: `only ${exact.length} element${exact.length === 1 ? "" : "s"} match, nth ${nth} asks for one more (nth counts from 0)`
    }
  }
  const containing = elements.filter((e) => fits(target, e, (want, have) => have.includes(want)))
  // Among fragments, a hidden or disabled element does not make a visible one ambiguous.
  const live = containing.filter(usable)
  const candidates = live.length > 0 ? live : containing
  if (candidates.length === 1) {
    if (nth === 0) return { element: candidates[0]!, match: "contains" }
    return { problem: `no element matches exactly and only 1 contains it, nth ${nth} asks for more (nth counts from 0)` }
  }
  if (candidates.length > 1) {
    return {
      problem: `no element matches exactly and ${candidates.length} contain it (give the exact name); ${closestPart(target, elements)}`
    }
  }
  return { problem: `no element matches; ${closestPart(target, elements)}` }
}
