/**
 * Figures a save moved (synthesis 12): a demo entered a transaction in a register whose
 * cells are editors with no name ("11/24/2026", Tab, the payee, Tab, Tab, "Health", Tab,
 * "18.40", "Add"). The LF of each fill can only say "typed into a field": which column a
 * value went to is a matter of where the Tabs left the caret, and one Tab dropped or pressed
 * twice types the amount as a deposit, or the category into the notes. The app tells what
 * it kept elsewhere: the account's link read "Checking 3,783.90" before and
 * "Checking 3,765.50" after, a figure the save moved by −18.40.
 *
 * So where a form was filled by position, the press that saved it is also judged by the
 * figures it moved: from the first page that shows the figure's label to the last, it must
 * move by what it moved in the demo. Read as a difference, the check holds from any starting
 * balance; a save that went to another column, or was undone, moves it by something else.
 *
 * @example
 * movedFigures(demo, demo.steps[10]) // [{ role: "link", label: "Checking", by: -18.4 }]
 */
import type { LfElement, LfStep, LfTrajectory } from "./LfTrajectory.ts"

export interface MovedFigure {
  readonly role: string
  /** The element's name before its figure: "Checking" of "Checking 3,765.50". */
  readonly label: string
  /** How far the demo moved it, to the cent. */
  readonly by: number
}

/** A name that ends in an amount after a label with a letter: "Checking 3,765.50", "Credit Card -269.59", "Cart (2)". */
const FIGURE = /^(.*\p{L}.*?)\s+\(?([-−+]?)[$€£]?\s?(\d[\d,]*(?:\.\d+)?)\)?$/u

/** The label and the amount of a name that ends in one, else null. The LF API reads names the same way (`figureMoved`). */
export const figureOf = (name: string): { readonly label: string; readonly value: number } | null => {
  const m = FIGURE.exec(name.trim())
  if (m === null) return null
  const value = Number(m[3]!.replace(/,/g, ""))
  return { label: m[1]!, value: m[2] === "-" || m[2] === "−" ? -value : value }
}

const key = (role: string, label: string) => `${role}\u0000${label}`

/** The figures a page shows once each: a label two elements of one role share tells no one figure. */
const figuresOn = (elements: ReadonlyArray<LfElement> | null): Map<string, number> => {
  const seen = new Map<string, number | null>()
  for (const e of elements ?? []) {
    const f = figureOf(e.name)
    if (f === null) continue
    const k = key(e.role, f.label)
    seen.set(k, seen.has(k) ? null : f.value)
  }
  return new Map([...seen].filter((kv): kv is [string, number] => kv[1] !== null))
}

/** A value typed over a field with no name: told from the form's other fields only by where the caret was. */
const byPosition = (s: LfStep): boolean =>
  s.action.kind === "type" && s.action.mode !== "insert" && (s.action.name === null || s.action.name.trim() === "")

/** A press that can save a form: a control that is no link, Enter, or a text submitted with Enter. */
const saves = (s: LfStep): boolean => {
  const a = s.action
  return (
    (a.kind === "click" && a.role !== null && a.role !== "link") ||
    (a.kind === "key" && a.key === "Enter") ||
    (a.kind === "type" && a.submit)
  )
}

const cents = (n: number) => Math.round(n * 100) / 100

/**
 * The figures the demo's press at `s` moved, when a field on its page was filled by position
 * before it: shown before `s` as they were at the start, and at the end as something else,
 * with no other press between `s` and the first page that showed the change (a page may
 * show it a step late, never a press late). Empty when nothing says which figure the save moved.
 */
export const movedFigures = (t: LfTrajectory, s: LfStep): ReadonlyArray<MovedFigure> => {
  const at = t.steps.indexOf(s)
  if (at < 0 || !saves(s)) return []
  if (!t.steps.slice(0, at + 1).some((x) => byPosition(x) && x.urlBefore === s.urlBefore)) return []
  const pages = [t.initialElements, ...t.steps.map((x) => x.elements)].map(figuresOn)
  const before = pages.slice(0, at + 1)
  const end = [...pages].reverse()
  const out: Array<MovedFigure> = []
  for (const k of new Set(before.flatMap((p) => [...p.keys()]))) {
    const shown = before.filter((p) => p.has(k)).map((p) => p.get(k)!)
    const first = shown[0]!
    // Moved before the press: another step's doing.
    if (shown.some((v) => v !== first)) continue
    const last = end.find((p) => p.has(k))?.get(k)
    if (last === undefined || cents(last - first) === 0) continue
    // pages[i + 1] is the page after step i: no press from the step after s to the one whose page first showed the change.
    const changed = pages.findIndex((p, i) => i > at && p.has(k) && p.get(k) !== first)
    if (changed < 0 || t.steps.slice(at + 1, changed).some(saves)) continue
    const [role, label] = k.split("\u0000") as [string, string]
    out.push({ role, label, by: cents(last - first) })
  }
  return out
}

/** The condition an LF of the press is held to: every figure moved as the demo moved it. */
export const figuresCall = (figures: ReadonlyArray<MovedFigure>): string =>
  figures.map((f) => `figureMoved(t, ${JSON.stringify(f.role)}, ${JSON.stringify(f.label)}, ${f.by})`).join(" && ")

/** The note an LF held to moved figures carries. */
export const MOVED = "State evidence: the form was filled by position; the figures its save moved moved as in the demo."
