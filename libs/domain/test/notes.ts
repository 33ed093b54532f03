/**
 * A record created under the name its form typed, as a wiki's demo made it and as another way
 * does: "new tiddler", the title and the text typed, "Confirm" (which leads to the record's
 * page, named by the title); or the record's missing page opened, "Edit" pressed (the title
 * already filled), the text typed, "Confirm". Shared by the NamedSave tests and the
 * synthesis and data rules' cases.
 */
import type { LfElement } from "../LfTrajectory.ts"
import { act, el, trajectory } from "./fixtures.ts"

const form = (title: string, text: string): ReadonlyArray<LfElement> => [
  el("textbox", "", { value: title }),
  el("textbox", "Type the text for this tiddler", { value: text }),
  el("button", "Confirm changes to this tiddler")
]
const page = (title: string) => `/#${encodeURIComponent(title)}`
const save = (title: string) => ({
  action: act("click", { role: "button", name: "Confirm changes to this tiddler" }),
  urlAfter: page(title),
  elements: [el("button", "Edit this tiddler")]
})
const TEXT = "First visitor: harbour inspector"

/** The demo: "new tiddler", "Visitor Log" typed as the title, the text, "Confirm", complete. Key steps 0 to 4. */
export const notesDemo = trajectory("/#Welcome", [
  {
    action: act("click", { role: "button", name: "new tiddler" }),
    urlAfter: "/#Draft%20of%20'New%20Tiddler'",
    elements: form("New Tiddler", "")
  },
  { action: act("type", { role: "textbox", name: "", typed: "Visitor Log" }), elements: form("Visitor Log", "") },
  { action: act("type", { role: "textbox", name: "Type the text for this tiddler", typed: TEXT }), elements: form("Visitor Log", TEXT) },
  save("Visitor Log"),
  { action: act("status", { status: "complete" }) }
])

/** Another way: the missing page of `title` opened, "Edit" (the title filled), the text typed unless `text` is false, "Confirm". */
export const notesByMissingPage = (options: { readonly title?: string; readonly text?: boolean } = {}) => {
  const title = options.title ?? "Visitor Log"
  const draft = `/#Draft%20of%20'${encodeURIComponent(title)}'`
  return trajectory("/#Welcome", [
    { action: act("navigate", { url: page(title) }), urlAfter: page(title), elements: [el("button", "Edit this tiddler")] },
    { action: act("click", { role: "button", name: "Edit this tiddler" }), urlAfter: draft, elements: form(title, "") },
    ...(options.text === false
      ? []
      : [{ action: act("type", { role: "textbox", name: "Type the text for this tiddler", typed: TEXT }), elements: form(title, TEXT) }]),
    save(title),
    { action: act("status", { status: "complete" }) }
  ])
}
