/**
 * A text field's edit as the page showed it (synthesis 5, docs/method.md): what the field
 * held when its page first showed it, what it held after the edit, and the change between
 * them — the text removed, the text inserted, and the text on either side that says where.
 * The label function written from it (`validateEdit` of the LF API) asks a trajectory's
 * field for the same change, whatever keys made it, so text typed beside the old value or
 * at the wrong line does not pass for the edit.
 *
 * @example
 * textChange("Line 1 Line 2", "Line 1 Line 2 Line 3") // { head: "Line 1 Line 2", removed: "", inserted: " Line 3", tail: "" }
 */
import { collapse } from "./LfTrajectory.ts"
import type { LfElement, LfStep, LfTrajectory } from "./LfTrajectory.ts"

export interface TextChange {
  /** The longest start both texts share. */
  readonly head: string
  readonly removed: string
  readonly inserted: string
  /** The longest end both texts share, after the head. */
  readonly tail: string
}

/** The same rule as lf-api.js `textChange`: the LF recomputes on its side what the synthesizer saw here. */
export const textChange = (before: string, after: string): TextChange => {
  let p = 0
  while (p < before.length && p < after.length && before[p] === after[p]) p++
  let q = 0
  while (q < before.length - p && q < after.length - p && before[before.length - 1 - q] === after[after.length - 1 - q]) q++
  return {
    head: before.slice(0, p),
    removed: before.slice(p, before.length - q),
    inserted: after.slice(p, after.length - q),
    tail: before.slice(before.length - q)
  }
}

/** How much of the text on either side an edit's LF asks for: enough to say where, not the whole field (it may differ elsewhere). */
export const EDIT_CONTEXT = 24

/** The expected edit, as `validateEdit` takes it: "" beside it is the field's very start or end. */
export interface EditEvidence {
  readonly before: string
  readonly removed: string
  readonly inserted: string
  readonly after: string
}

/** Where the last `EDIT_CONTEXT` characters of `s` start, moved back to the start of the word they cut (at most as far again). */
const contextStart = (s: string): number => {
  let i = Math.max(0, s.length - EDIT_CONTEXT)
  while (i > 0 && s[i - 1] !== " " && s.length - i < 2 * EDIT_CONTEXT) i--
  return i
}

const reversed = (s: string): string => [...s].reverse().join("")

export const editEvidenceOf = (c: TextChange): EditEvidence => ({
  before: c.head.slice(contextStart(c.head)),
  removed: c.removed,
  inserted: c.inserted,
  after: c.tail.slice(0, c.tail.length - contextStart(reversed(c.tail)))
})

/** What stands right after a field in its page's list: how `validateEdit`'s `next` tells same-named fields apart. */
export interface Neighbour {
  readonly role: string
  readonly name: string
}

const fieldIn = (
  elements: ReadonlyArray<LfElement> | null,
  role: string,
  name: string,
  next: Neighbour | null = null
): LfElement | undefined => elements?.find((e, i) => e.role === role && e.name === name && (next === null || sameAs(elements[i + 1], next)))

// As `validateEdit` compares them: white space collapsed, case blind.
const sameAs = (e: LfElement | undefined, n: Neighbour): boolean =>
  e !== undefined && e.role.toLowerCase() === n.role.toLowerCase() && collapse(e.name).toLowerCase() === collapse(n.name).toLowerCase()

/**
 * Synthesis 11: the element right after the field the step acted on, in the page before it
 * (the field first of its role and name there), when it has a name; null otherwise.
 */
export const neighbourOf = (t: LfTrajectory, s: LfStep, role: string, name: string): Neighbour | null => {
  const at = t.steps.indexOf(s)
  const page = at > 0 ? t.steps[at - 1]!.elements : t.initialElements
  const i = page?.findIndex((e) => e.role === role && e.name === name) ?? -1
  const next = i < 0 ? undefined : page![i + 1]
  return next === undefined || next.name.trim() === "" ? null : { role: next.role, name: next.name }
}

/**
 * The field's value before and after step `s`, as `validateEdit` reads it: before is what
 * the field held when the page `s` acted on first showed it (a step that moved the URL
 * starts a new page); null when either is unreadable — the field not shown before the edit,
 * or no value recorded.
 */
export const fieldValues = (
  t: LfTrajectory,
  s: LfStep,
  role: string,
  name: string,
  next: Neighbour | null = null
): { readonly before: string; readonly after: string } | null => {
  let origin = fieldIn(t.initialElements, role, name, next)?.value ?? null
  for (const x of t.steps) {
    if (x.urlAfter !== x.urlBefore) origin = null
    const value = fieldIn(x.elements, role, name, next)?.value ?? null
    if (x === s) return origin === null || value === null ? null : { before: origin, after: value }
    if (origin === null) origin = value
  }
  return null
}

/**
 * What a page that carries the edit shows, strongest first: the field's new text from two
 * words before the edit to two words after it (it went where the demo's went, the old text
 * gone), then the inserted text alone. Texts of fewer than three letters or digits are left
 * out: they show anywhere.
 */
export const shownTexts = (after: string, c: TextChange): ReadonlyArray<string> => {
  const end = c.head.length + c.inserted.length
  const left = /(?<!\S)(\S+\s+){0,2}\S*$/.exec(after.slice(0, c.head.length))?.[0] ?? ""
  const right = /^\S*(\s+\S+){0,2}/.exec(after.slice(end))?.[0] ?? ""
  const around = `${left}${c.inserted}${right}`.trim()
  return [around, c.inserted.trim()].filter((x, i, all) => x.replace(/[^\p{L}\p{N}]/gu, "").length >= 3 && all.indexOf(x) === i)
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")

/** A case-blind pattern for a text shown on a page, white space as it may wrap. */
const shownLiteral = (text: string): string => `/${escapeRe(text).replace(/ /g, "\\s+")}/i`

/**
 * The `validateEdit` call for an edit step `s` of the demo `t` (its target the field), with
 * what a later page of the demo showed of it, and with `once` (synthesis 9) the inserted text
 * not inserted again before the page moved on; null when the demo does not show the change
 * (the field unseen before the edit, or its value unrecorded or unchanged where the
 * observation shows it).
 */
export const editCall = (
  t: LfTrajectory,
  s: LfStep,
  once = false,
  next: Neighbour | null = null
): { readonly call: string; readonly notes: ReadonlyArray<string> } | null => {
  const { role, name } = s.action
  if (role === null || name === null) return null
  const values = fieldValues(t, s, role, name, next)
  if (values === null) return null
  const change = textChange(values.before, values.after)
  if (change.removed === "" && change.inserted === "") return null
  const e = editEvidenceOf(change)
  const later = t.steps.filter((x) => x.index > s.index)
  const showsIt = (text: string) => {
    const re = new RegExp(escapeRe(text).replace(/ /g, "\\s+"), "i")
    return later.some((x) =>
      (x.elements ?? []).some(
        (el) => !(el.role === role && el.name === name) && (re.test(el.text) || (el.value !== null && re.test(el.value)))
      )
    )
  }
  const shown = shownTexts(values.after, change).find(showsIt)
  const js = JSON.stringify
  const entries = [
    `before: ${js(e.before)}`,
    `removed: ${js(e.removed)}`,
    `inserted: ${js(e.inserted)}`,
    `after: ${js(e.after)}`,
    ...(shown === undefined ? [] : [`shown: ${shownLiteral(shown)}`]),
    ...(once && e.inserted !== "" ? ["once: true"] : []),
    ...(next === null ? [] : [`next: { role: ${js(next.role)}, name: ${js(next.name)} }`])
  ]
  const did =
    e.removed === ""
      ? `${js(e.inserted)} inserted`
      : e.inserted === ""
        ? `${js(e.removed)} removed`
        : `${js(e.removed)} replaced by ${js(e.inserted)}`
  const where = e.after === "" ? "at its end" : e.before === "" ? "at its start" : `after ${js(e.before)}`
  return {
    call: `validateEdit(t, ${js(role)}, ${js(name)}, {\n    ${entries.join(",\n    ")}\n  })`,
    notes: [
      `State evidence: what the edit made of the field, whatever keys made it — ${did} ${where}.`,
      ...(shown === undefined ? [] : [`State evidence: a later page shows ${js(shown)}.`]),
      ...(once && e.inserted !== "" ? ["State evidence: inserted once; the field keeps it that way until its page moves on."] : []),
      ...(next === null ? [] : [`State evidence: the field is the one listed right before ${js(next.name)} (${next.role}).`])
    ]
  }
}
