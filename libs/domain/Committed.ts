/**
 * A value a button took from its field (synthesis 11): a demo typed "Urgent" into "tag name"
 * and pressed "add"; the tag was added and the field emptied. Enter pressed in that field
 * while it held "Urgent" does what the button did (a tag, a to-do, a chip, a recipient: the
 * field commits on Enter as on its button), so the button's key step also holds as that
 * Enter — the field held the value before it and was emptied by it, which is what says
 * the key went to the field and took its value. A suggestion picked with the arrows and
 * committed by Enter ("Urg", ArrowDown, Enter) is the same change.
 *
 * @example
 * committedBy(demo, clickAdd) // { role: "textbox", name: "tag name", value: "Urgent" }
 */
import type { LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { normalizeText } from "./StrategyGraph.ts"

export interface CommittedField {
  readonly role: string
  readonly name: string
  /** What the field held when the button took it. */
  readonly value: string
}

const valueOf = (s: LfStep, field: { role: string; name: string }) =>
  s.elements?.find((e) => e.role === field.role && e.name === field.name)?.value ?? null

/**
 * The field a button press at `s` took its value from: the step before it typed over the
 * field (not inserted, not submitted), the field held the text before the press and
 * was empty after it, and the press stayed on its page. Null otherwise.
 */
export const committedBy = (t: LfTrajectory, s: LfStep): CommittedField | null => {
  const a = s.action
  if (a.kind !== "click" || a.role === null || a.role === "link" || s.urlAfter === null || s.urlAfter !== s.urlBefore) return null
  const at = t.steps.indexOf(s)
  const fill = at > 0 ? t.steps[at - 1]! : null
  const f = fill?.action
  if (f === undefined || f.kind !== "type" || f.mode === "insert" || f.submit || f.role === null || f.name === null) return null
  if (f.name.trim() === "" || f.typed === null || f.typed.trim() === "") return null
  const field = { role: f.role, name: f.name }
  const held = valueOf(fill!, field)
  const left = valueOf(s, field)
  if (held === null || normalizeText(held) !== normalizeText(f.typed) || left === null || left.trim() !== "") return null
  return { ...field, value: held }
}

/** The LF call that holds where Enter, pressed on the button's page, took the value from the field as the button did. */
export const enterCall = (field: CommittedField, page: string | null): string => {
  const js = JSON.stringify
  const where = [
    "function (s, t) {",
    "      var b = previousStep(t, s)",
    `      return b !== null && hasElement(b, ${js(field.role)}, ${js(field.name)}, { value: ${js(field.value)} }) &&`,
    `        hasElement(s, ${js(field.role)}, ${js(field.name)}, { value: "" })`,
    "    }"
  ].join("\n")
  return `validateKey(t, "Enter", {${page === null ? "" : `\n    urlBefore: ${js(page)},`}
    where: ${where}
  })`
}

/** The note an LF with the Enter alternative carries. */
export const COMMITTED = "Or Enter in the field took the value, as the button did (the field held it, then emptied)."
