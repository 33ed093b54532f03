/**
 * Label functions over text edited in place: an insert step carries `mode: "insert"` and its
 * inserted text only (a fill reads exactly as before), `validateType` matches it by that
 * text, its description says it inserts, it is a key step that a later insert does not
 * overwrite, and the synthesized LF checks the inserted text rather than the field.
 */
import { describe, expect, test } from "bun:test"
import type { Action } from "@core/events"
import { identifyKeySteps } from "../KeySteps.ts"
import { nativeLabelFunction } from "../LfApi.ts"
import { lfAction } from "../LfTrajectory.ts"
import { describeStep } from "../StepDescriptions.ts"
import { synthesizeCandidates } from "../Synthesizer.ts"
import { synthesisRulesAt } from "../rules/Synthesis.ts"
import { act, el, trajectory } from "./fixtures.ts"

const field = { role: "textbox", name: "Body", elementId: "e7", text: null }
const PAGE = "Line 1 Line 2 Line 3"

/** Open the page, click the body, move to its end, append a line, save. */
const edited = () =>
  trajectory("/wiki/page/edit", [
    { action: act("click", { role: "textbox", name: "Body" }), elements: [el("textbox", "Body", { value: PAGE })] },
    { action: act("key", { key: "Control+End" }), elements: [el("textbox", "Body", { value: PAGE })] },
    {
      action: act("type", { role: "textbox", name: "Body", typed: "Line 4", mode: "insert" }),
      elements: [el("textbox", "Body", { value: `${PAGE} Line 4` })]
    },
    { action: act("click", { role: "button", name: "Save", text: "Save" }), urlAfter: "/wiki/page" },
    { action: act("status", { status: "complete" }) }
  ])

const run = (body: string, t = edited()) => nativeLabelFunction(`function labelFunction(t) { return ${body} }`)(t)

describe("the LF's view of a type step", () => {
  test("a fill reads as before modes existed, key for key; an insert adds mode last", () => {
    const fill = lfAction({ kind: "type", target: field, text: "  Whole\npage ", submit: true })
    expect(JSON.stringify(fill)).toBe(
      '{"role":"textbox","name":"Body","text":null,"typed":"Whole page","submit":true,"value":null,"key":null,"url":null,"direction":null,"answer":null,"status":null,"app":null,"kind":"type"}'
    )
    expect(lfAction({ kind: "type", target: field, text: "x", mode: "fill" })).not.toHaveProperty("mode")
    expect(lfAction({ kind: "type", target: field, text: "\nLine 4", mode: "insert" })).toMatchObject({ typed: "Line 4", mode: "insert" })
  })

  const descriptions: ReadonlyArray<readonly [string, Action, string]> = [
    ["fill", { kind: "type", target: field, text: "Hello" }, "Type text 'Hello' into the 'Body'."],
    ["fill + Enter", { kind: "type", target: field, text: "Hello", submit: true }, "Type text 'Hello' into the 'Body' and press Enter."],
    ["insert", { kind: "type", target: field, text: "\nLine 4", mode: "insert" }, "Insert text 'Line 4' at the cursor in the 'Body'."],
    ["caret key", { kind: "key", key: "Control+End" }, "Press the key 'Control+End'."]
  ]
  test.each(descriptions)("%s is described as before, or as an insert", (_, action, text) => {
    expect(describeStep(lfAction(action))).toBe(text)
  })
})

describe("validateType on insert steps", () => {
  const cases: ReadonlyArray<readonly [string, number]> = [
    [`validateType(t, "Line 4", "Body")`, 2],
    [`validateType(t, "line  4", "body", { mode: "insert" })`, 2],
    [`validateType(t, "Line 4", "Body", { mode: "fill" })`, -1],
    [`validateType(t, ${JSON.stringify(`${PAGE} Line 4`)}, "Body")`, -1],
    [`validateType(t, /Line \\d/, "Body")`, 2],
    [`validateType(t, "Line 4", "Body", { where: function (s) { return hasElement(s, "textbox", "Body", { value: /line 4$/i }) } })`, 2],
    [`validateKey(t, "Control+End")`, 1]
  ]
  test.each(cases)("%s → %d", (code, at) => {
    expect(run(code)).toBe(at)
  })

  test("a fill still matches without a mode, and not as an insert", () => {
    const filled = trajectory("/", [{ action: act("type", { role: "textbox", name: "Body", typed: "Line 4" }) }])
    expect(run(`validateType(t, "Line 4", "Body")`, filled)).toBe(0)
    expect(run(`validateType(t, "Line 4", "Body", { mode: "fill" })`, filled)).toBe(0)
    expect(run(`validateType(t, "Line 4", "Body", { mode: "insert" })`, filled)).toBe(-1)
  })
})

describe("embedded key steps and synthesis", () => {
  test("the insert is a key step; the click and caret key before it are not", () => {
    expect(identifyKeySteps(edited()).map((k) => [k.stepIndex, k.reason])).toEqual([
      [2, "state-changing"],
      [3, "state-changing"],
      [4, "final-status"]
    ])
  })

  test("a later insert keeps an earlier one; a later fill overwrites it", () => {
    const insert = (typed: string) => ({ action: act("type", { role: "textbox", name: "Body", typed, mode: "insert" as const }) })
    const twice = trajectory("/edit", [insert("A"), insert("B"), { action: act("status", { status: "complete" }) }])
    expect(identifyKeySteps(twice).map((k) => k.stepIndex)).toEqual([0, 1, 2])
    const refilled = trajectory("/edit", [
      insert("A"),
      { action: act("type", { role: "textbox", name: "Body", typed: "C" }) },
      { action: act("status", { status: "complete" }) }
    ])
    expect(identifyKeySteps(refilled).map((k) => k.stepIndex)).toEqual([1, 2])
  })

  test("the synthesized LF (up to version 4) checks the inserted text, in the action and in the field, never the whole content", () => {
    const t = edited()
    const key = identifyKeySteps(t).find((k) => k.stepIndex === 2)!
    const [strongest, bare] = synthesizeCandidates(t, key, synthesisRulesAt("4"))
    expect(strongest!.code).toContain(`validateType(t, "Line 4", "Body", {\n    mode: "insert",`)
    expect(strongest!.code).toContain(`hasElement(s, "textbox", "Body", { value: /Line\\s+4/i })`)
    expect(strongest!.code).not.toContain(PAGE)
    expect(bare!.code).toContain(`validateType(t, "Line 4", "Body", {\n    mode: "insert"\n  })`)
    for (const c of [strongest!, bare!]) expect(nativeLabelFunction(c.code)(t)).toBe(2)
    // A trajectory that filled the field with the final text did not insert: the LF says so.
    const filled = trajectory("/wiki/page/edit", [
      {
        action: act("type", { role: "textbox", name: "Body", typed: `${PAGE} Line 4` }),
        elements: [el("textbox", "Body", { value: `${PAGE} Line 4` })]
      }
    ])
    expect(nativeLabelFunction(bare!.code)(filled)).toBe(-1)
  })
})
