/** A pack's step files as the corruptions read them (PackCorruptions.ts): key steps, undo, and the value changed. */
import { describe, expect, test } from "bun:test"
import type { Step } from "@core/demos"
import { Corruption as C } from "@core/domain"
import { otherValue, stepFileForm } from "../PackCorruptions.ts"

const link: Step = { kind: "click", target: { role: "link", name: "Water Pump" } }
const edit: Step = { kind: "click", target: { role: "button", name: "Edit" } }
const tag: Step = { kind: "type", target: { role: "combobox", name: "tag name" }, text: "urgent" }
const enter: Step = { kind: "key", key: "Enter" }
const search: Step = { kind: "type", target: { role: "searchbox", name: "Search" }, text: "fuses", submit: true }
const password: Step = { kind: "type", target: { role: "textbox", name: "Password" }, secretEnv: "APP_PASSWORD" }
const done: Step = { kind: "status", status: "complete" }
const answer: Step = { kind: "answer", text: "It holds 12 fuses." }

describe("key steps of a step file", () => {
  const cases: ReadonlyArray<[string, ReadonlyArray<Step>, ReadonlyArray<number>]> = [
    ["a tag typed and committed with Enter: the button, the field and the key", [link, edit, tag, enter, done], [1, 2, 3]],
    ["a link only: the link", [link, done], [0]],
    ["a search, then an answer", [search, link, answer], [0]]
  ]
  for (const [name, steps, keys] of cases) test(name, () => expect(C.keyStepsOf(stepFileForm, steps)).toEqual(keys))
})

describe("undo of a step file's step", () => {
  const cases: ReadonlyArray<[string, Step, Step | null]> = [
    ["a button pressed again", edit, edit],
    ["a field cleared, not submitted", tag, { ...tag, text: "", submit: false }],
    ["a link gone back from", link, { kind: "back" }],
    ["a key press has no known way back", enter, null],
    ["a secret is never retyped", password, null]
  ]
  for (const [name, step, undo] of cases) test(name, () => expect(stepFileForm.undo(step)).toEqual(undo))
})

describe("other value", () => {
  const cases: ReadonlyArray<[string, ReadonlyArray<Step>, Step | null]> = [
    ["the last unsubmitted field's text changed", [search, link, edit, tag, enter, done], { ...tag, text: "lantern" }],
    ["else a submitted one", [search, link, done], { ...search, text: "lantern" }],
    ["else the answer one off", [link, answer], { kind: "answer", text: "It holds 13 fuses." }],
    ["else the other status", [link, done], { kind: "status", status: "infeasible" }],
    ["a secret is not a value to change", [password, link], null]
  ]
  for (const [name, steps, changed] of cases)
    test(name, () => {
      const c = otherValue(steps)
      expect(c === null ? null : c.steps.find((s, i) => s !== steps[i])).toEqual(changed)
    })
})
