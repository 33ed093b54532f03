import { describe, expect, test } from "bun:test"
import { committedBy, enterCall } from "../Committed.ts"
import { nativeLabelFunction } from "../LfApi.ts"
import type { LfTrajectory } from "../LfTrajectory.ts"
import { act, el, trajectory } from "./fixtures.ts"
import { tagBySuggestion, tagDemo } from "./tags.ts"

const at = (t: LfTrajectory, i: number) => t.steps[i]!

describe("committedBy: the field a button took its value from", () => {
  const other = (fill: Parameters<typeof act>[1], after: string, before = "Urgent") =>
    trajectory("/#Draft", [
      { action: act("type", { role: "textbox", name: "tag name", ...fill }), elements: [el("textbox", "tag name", { value: before })] },
      { action: act("click", { role: "button", name: "add" }), elements: [el("textbox", "tag name", { value: after })] }
    ])
  test.each([
    ["the tag's add, the field emptied", tagDemo, 1, { role: "textbox", name: "tag name", value: "Urgent" }],
    ["the field kept the value: the button did not take it", other({ typed: "Urgent" }, "Urgent"), 1, null],
    ["an insert is part of a text, not a value to take", other({ typed: "Urgent", mode: "insert" }, ""), 1, null],
    ["a submitted text was taken by its Enter, not the button", other({ typed: "Urgent", submit: true }, ""), 1, null],
    ["the field never showed what was typed", other({ typed: "Urgent" }, "", "Urg"), 1, null],
    ["a nameless field could be any", other({ typed: "Urgent", name: "" }, ""), 1, null],
    ["the fill itself is no button", tagDemo, 0, null],
    [
      "a press that left the page",
      trajectory("/a", [
        { action: act("type", { role: "textbox", name: "q", typed: "x" }) },
        { action: act("click", { role: "button", name: "Go" }), urlAfter: "/b" }
      ]),
      1,
      null
    ]
  ] as const)("%s", (_, t, i, want) => {
    expect(committedBy(t, at(t, i))).toEqual(want)
  })
})

describe("enterCall: Enter in the field that held the value, which emptied it", () => {
  const lf = nativeLabelFunction(`function labelFunction(t) { return ${enterCall(committedBy(tagDemo, at(tagDemo, 1))!, "^/#Draft")} }`)
  test.each([
    ["a suggestion picked and taken by Enter", tagBySuggestion(), 2],
    ["Enter while the field held another suggestion", tagBySuggestion({ picked: "Urgency" }), -1],
    ["Enter that left the field as it was", tagBySuggestion({ taken: false }), -1],
    ["the demo's own button is no Enter", tagDemo, -1]
  ] as const)("%s", (_, t, want) => {
    expect(lf(t)).toBe(want)
  })
})
