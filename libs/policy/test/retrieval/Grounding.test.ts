/** Grounding a recorded target on a new page, table-driven: given the label and the page's elements, then the element found. */
import { describe, expect, test } from "bun:test"
import type { PolicyElement } from "@core/policy"
import { ground } from "../../retrieval/Grounding.ts"

const el = (id: string, role: string, name: string, more: Partial<PolicyElement> = {}): PolicyElement => ({
  id,
  role,
  name,
  text: "",
  value: null,
  visible: true,
  enabled: true,
  editable: role === "textbox",
  checked: null,
  ...more
})

const editor = [
  el("e1", "textbox", ""),
  el("e2", "textbox", "Type the text for this tiddler"),
  el("e3", "textbox", "tag name"),
  el("e4", "button", "add")
]

describe("a field recorded without a name", () => {
  const cases: ReadonlyArray<[string, ReadonlyArray<PolicyElement>, boolean, string | null]> = [
    ["the page's only unnamed text box is it", editor, true, "e1"],
    ["two unnamed text boxes: nothing says which", [...editor, el("e5", "textbox", "")], true, null],
    ["an unnamed one that is hidden does not count", [...editor, el("e5", "textbox", "", { visible: false })], true, "e1"],
    ["a click is never grounded on a nameless element", editor, false, null],
    ["no unnamed text box on the page", editor.slice(1), true, null]
  ]
  for (const [what, elements, editable, expected] of cases) {
    test(what, () => {
      const found = ground({ role: "textbox", name: "", text: "" }, elements, { editable, introduced: [] })
      expect(found?.element.id ?? null).toBe(expected)
      if (found !== null) expect(found.quality).toBeLessThan(1)
    })
  }
})

test("a named target still needs its name: an unnamed field is not a near match", () => {
  expect(ground({ role: "textbox", name: "Title", text: null }, editor, { editable: true, introduced: [] })).toBeNull()
  expect(ground({ role: "textbox", name: "tag name", text: null }, editor, { editable: true, introduced: [] })?.element.id).toBe("e3")
})
