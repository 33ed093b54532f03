/**
 * A tag added to a record in an edit form, as a demo added it and as other ways do: "Urgent"
 * typed into "tag name" and its "add" pressed (the field empties), or a suggestion picked
 * ("Urg", ArrowDown, Enter). Shared by the Committed tests and the synthesis rules' cases.
 */
import type { LfElement } from "../LfTrajectory.ts"
import { act, el, trajectory } from "./fixtures.ts"

const DRAFT = "/#Draft%20of%20'Water%20Pump'"
const form = (tag: string): ReadonlyArray<LfElement> => [
  el("textbox", "tag name", { value: tag }),
  el("button", "add"),
  el("button", "Confirm changes to this tiddler")
]
const confirm = [
  { action: act("click", { role: "button", name: "Confirm changes to this tiddler" }), urlAfter: "/#Water%20Pump", elements: [] },
  { action: act("status", { status: "complete" }) }
]

/** The demo: "Urgent" typed, "add" pressed, the change confirmed. Key steps 0, 1, 2, 3. */
export const tagDemo = trajectory(
  DRAFT,
  [
    { action: act("type", { role: "textbox", name: "tag name", typed: "Urgent" }), elements: form("Urgent") },
    { action: act("click", { role: "button", name: "add", text: "add" }), elements: form("") },
    ...confirm
  ],
  form("")
)

/**
 * Another way: "Urg" typed, the suggestion taken with ArrowDown (the field reads `picked`),
 * then Enter, which empties the field unless `taken` is false (the key went elsewhere).
 */
export const tagBySuggestion = (options: { readonly picked?: string; readonly taken?: boolean } = {}) =>
  trajectory(
    DRAFT,
    [
      { action: act("type", { role: "textbox", name: "tag name", typed: "Urg" }), elements: form("Urg") },
      { action: act("key", { key: "ArrowDown" }), elements: form(options.picked ?? "Urgent") },
      { action: act("key", { key: "Enter" }), elements: form(options.taken === false ? (options.picked ?? "Urgent") : "") },
      ...confirm
    ],
    form("")
  )
