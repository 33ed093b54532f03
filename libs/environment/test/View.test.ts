import { expect, test } from "bun:test"
import type { ElementInfo } from "../Environment.ts"
import { describeElement, policyView, selectElements } from "../View.ts"

const el = (id: string, over: Partial<ElementInfo> = {}): ElementInfo => ({
  id,
  role: "button",
  name: id,
  text: id,
  value: null,
  box: null,
  visible: true,
  inViewport: true,
  enabled: true,
  editable: false,
  checked: null,
  ...over
})

test("no truncation at or under the limit", () => {
  const view = policyView({ url: "u", app: null, title: "t", error: null }, [el("e1"), el("e2")], 2)
  expect(view).toMatchObject({ truncated: false, shown: 2, total: 2, text: `[e1] button "e1"\n[e2] button "e2"` })
})

test("over the limit, in-viewport then visible then hidden are kept, listed in document order", () => {
  const elements = [
    el("e1", { visible: false, inViewport: false }),
    el("e2", { inViewport: false }),
    el("e3"),
    el("e4", { inViewport: false }),
    el("e5")
  ]
  expect(selectElements(elements, 3).map((e) => e.id)).toEqual(["e2", "e3", "e5"])
  const view = policyView({ url: null, app: null, title: null, error: "boom" }, elements, 3)
  expect(view).toMatchObject({ truncated: true, shown: 3, total: 5 })
  expect(view.text.split("\n")).toEqual([
    "error: boom",
    `[e2] button "e2" (offscreen)`,
    `[e3] button "e3"`,
    `[e5] button "e5"`,
    "… 2 more elements not shown (scroll to reach them)"
  ])
})

test("an element line carries value, state and differing text", () => {
  expect(describeElement(el("e9", { role: "checkbox", name: "Agree", text: "", checked: true, enabled: false }))).toBe(
    `[e9] checkbox "Agree" (checked, disabled)`
  )
  expect(describeElement(el("e7", { role: "textbox", name: "Q", text: "", value: "shoes" }))).toBe(`[e7] textbox "Q" value="shoes"`)
})
