import { describe, expect, test } from "bun:test"
import { identifyKeySteps } from "../KeySteps.ts"
import { nativeLabelFunction } from "../LfApi.ts"
import type { LfTrajectory } from "../LfTrajectory.ts"
import { figureOf, figuresCall, movedFigures } from "../MovedFigures.ts"
import { synthesisRulesAt } from "../rules/Synthesis.ts"
import { keyStepOptionsOf, synthesizeCandidates } from "../Synthesizer.ts"
import { act, el, trajectory } from "./fixtures.ts"
import { ledgerDemo, ledgerRun } from "./ledger.ts"

describe("figureOf: a name that ends in an amount", () => {
  test.each([
    ["Checking 3,765.50", { label: "Checking", value: 3765.5 }],
    ["Credit Card -269.59", { label: "Credit Card", value: -269.59 }],
    ["Credit Card −269.59", { label: "Credit Card", value: -269.59 }],
    ["Cart (2)", { label: "Cart", value: 2 }],
    ["Total $1,299.00", { label: "Total", value: 1299 }],
    ["Room 101 Deluxe", null],
    ["3,765.50", null],
    ["Step 2 of 3", { label: "Step 2 of", value: 3 }],
    ["", null]
  ] as const)("%s", (name, want) => {
    expect(figureOf(name)).toEqual(want)
  })

  // The LF API reads the same names the same way: the synthesizer's figures are the sandbox's.
  test.each(["Checking 3,765.50", "Credit Card −269.59", "Cart (2)", "Total $1,299.00", "Room 101 Deluxe"])(
    "the LF API agrees on %s",
    (name) => {
      const f = figureOf(name)
      const page = (n: string) =>
        trajectory("/", [{ action: act("status", { status: "complete" }), elements: [el("link", n)] }], [el("link", name)])
      const moved = nativeLabelFunction(
        `function labelFunction(t) { return figureMoved(t, "link", ${JSON.stringify(f?.label ?? name)}, 1) ? 0 : -1 }`
      )
      const plusOne = f === null ? name : `${f.label} ${f.value + 1}`
      expect(moved(page(plusOne))).toBe(f === null ? -1 : 0)
    }
  )
})

describe("movedFigures: what the press that saved a form filled by position moved", () => {
  const at = (t: LfTrajectory, i: number) => t.steps[i]!
  const named = trajectory(
    "/accounts/2f1c",
    [
      { action: act("type", { role: "textbox", name: "Amount", typed: "18.40" }), elements: [el("link", "Checking 3,783.90")] },
      { action: act("click", { role: "button", name: "Add" }), elements: [el("link", "Checking 3,765.50")] }
    ],
    [el("link", "Checking 3,783.90")]
  )
  const twice = trajectory(
    "/accounts/2f1c",
    [
      {
        action: act("type", { role: "textbox", name: "", typed: "18.40" }),
        elements: [el("link", "Checking 3,783.90"), el("button", "Checking 1")]
      },
      { action: act("click", { role: "button", name: "Add" }), elements: [el("link", "Checking 3,765.50"), el("link", "Checking 2")] }
    ],
    [el("link", "Checking 3,783.90"), el("link", "Checking 1")]
  )
  test.each([
    ["the register's Add moved the balance, not Savings", ledgerDemo, 10, [{ role: "link", label: "Checking", by: -18.4 }]],
    ["a fill is no save", ledgerDemo, 9, []],
    ["a Tab is no save, though the figure moved later", ledgerDemo, 8, []],
    ["the link into the register is no save", ledgerDemo, 0, []],
    ["a form whose fields have names is told by them", named, 1, []],
    ["a label two elements of one role share at the end tells nothing", twice, 1, []]
  ] as const)("%s", (_, t, i, want) => {
    expect(movedFigures(t, at(t, i))).toEqual(want)
  })

  test("a figure shown moved only after a later press is that press's", () => {
    const page = (total: string) => [el("status", `Total ${total}`), el("textbox", "", { value: "" })]
    const twoPresses = trajectory(
      "/r",
      [
        { action: act("type", { role: "textbox", name: "", typed: "5" }), elements: page("0") },
        { action: act("click", { role: "button", name: "Preview" }), elements: page("0") },
        { action: act("click", { role: "button", name: "Add" }), elements: page("5") },
        { action: act("status", { status: "complete" }), elements: page("5") }
      ],
      page("0")
    )
    expect([1, 2].map((i) => movedFigures(twoPresses, at(twoPresses, i)))).toEqual([[], [{ role: "status", label: "Total", by: 5 }]])
  })

  test("a figure another step moved before the press is not the press's", () => {
    const earlier = trajectory(
      "/r",
      [
        { action: act("type", { role: "textbox", name: "", typed: "5" }), elements: [el("status", "Draft total 5")] },
        { action: act("click", { role: "button", name: "Add" }), elements: [el("status", "Draft total 0")] }
      ],
      [el("status", "Draft total 0")]
    )
    expect(movedFigures(earlier, at(earlier, 1))).toEqual([])
  })
})

describe("the save's LF, held to the figures it moved", () => {
  const rules = synthesisRulesAt("12")
  const k = identifyKeySteps(ledgerDemo, keyStepOptionsOf(rules)).find((x) => x.stepIndex === 10)!
  const lf = nativeLabelFunction(synthesizeCandidates(ledgerDemo, k, rules)[0]!.code)
  test.each([
    ["the demo", ledgerDemo, 10],
    ["the same entry from another balance", ledgerRun({ from: ["2,000.00", 2000] }), 10],
    ["the amount entered as a deposit (a Tab pressed twice)", ledgerRun({ amount: "deposit" }), -1],
    ["no amount (a Tab dropped)", ledgerRun({ amount: "none" }), -1]
  ] as const)("%s", (_, t, want) => {
    expect(lf(t)).toBe(want)
  })

  test("the condition names every figure", () => {
    expect(figuresCall(movedFigures(ledgerDemo, ledgerDemo.steps[10]!))).toBe('figureMoved(t, "link", "Checking", -18.4)')
  })
})
