/**
 * How the recorder writes a person's edit of a textarea, from its value when they started
 * editing (at focus, or at its last recorded commit) and the value they committed:
 *
 * - text added at the end of a value that was not empty, nothing removed: a click on the
 *   field, `Control+End`, and `type` with `mode: "insert"` and the added text only;
 * - text added at the start, likewise with `Control+Home`;
 * - anything else (an empty field typed into, text removed, a selection replaced, text added
 *   in the middle): `type` filling the whole new value, as before modes existed.
 *
 * Single-line inputs are always filled: their whole value is what a label function should
 * match (a search box still holding the last query, extended to a product's full name, is
 * a search for that name, not an insert of its tail). The click is there because a key
 * acts on whatever has focus, and replay may find focus elsewhere; the caret key then
 * undoes wherever the click put the caret. A replaced selection stays a fill: keys cannot
 * name an arbitrary span, and `Shift+Home` stops at a wrapped line's start, which moves
 * with the field's width.
 *
 * @example
 * textEdit("Line 1", "Line 1\nLine 2") // { kind: "insert", at: "end", text: "\nLine 2" }
 */
import type { Action, Target } from "@core/events"

export type TextEdit = { readonly kind: "fill" } | { readonly kind: "insert"; readonly at: "start" | "end"; readonly text: string }

/** The edit from `previous` (null when unknown) to `value`. */
export const textEdit = (previous: string | null, value: string): TextEdit => {
  if (previous === null || previous === "" || value.length <= previous.length) return { kind: "fill" }
  // When both fit ("aa" → "aaa") the append wins: either types the same value.
  if (value.startsWith(previous)) return { kind: "insert", at: "end", text: value.slice(previous.length) }
  if (value.endsWith(previous)) return { kind: "insert", at: "start", text: value.slice(0, value.length - previous.length) }
  return { kind: "fill" }
}

/**
 * The steps a committed text field records (never a password field's: those are filled by
 * reference). `previous` is the textarea's value before the edit; null for an input.
 */
export const editActions = (
  target: Target | null,
  typed: { readonly previous: string | null; readonly text: string; readonly submit: boolean }
): ReadonlyArray<Action> => {
  const edit = textEdit(typed.previous, typed.text)
  if (edit.kind === "fill") return [{ kind: "type", target, text: typed.text, submit: typed.submit }]
  return [
    { kind: "click", target },
    { kind: "key", key: edit.at === "end" ? "Control+End" : "Control+Home" },
    { kind: "type", target, text: edit.text, submit: typed.submit, mode: "insert" }
  ]
}
