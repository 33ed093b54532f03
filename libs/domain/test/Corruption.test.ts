/** The generic corruptions (Corruption.ts) over a toy step shape: which steps are key, and what each corruption makes. */
import { describe, expect, test } from "bun:test"
import { Corruption as C } from "@core/domain"

/** A toy step: `link:X` moves, `type:X` fills a field, `button:X` changes state, `end` ends the episode. */
const form: C.StepForm<string> = {
  ends: (s) => s === "end",
  changes: (s) => s.startsWith("type:") || s.startsWith("button:"),
  moves: (s) => s.startsWith("link:"),
  typed: (s) => s.startsWith("type:"),
  undo: (s) => (s.startsWith("button:") ? s : s.startsWith("type:") ? "clear" : s.startsWith("link:") ? "back" : null),
  describe: (s) => s
}

describe("key steps: what changes state, else the last move", () => {
  const cases: ReadonlyArray<[string, ReadonlyArray<string>, ReadonlyArray<number>]> = [
    ["a form", ["link:New", "type:Title", "button:Save", "end"], [1, 2]],
    ["navigation only: its last link", ["link:A", "link:B", "end"], [1]],
    ["only an ending", ["end"], []],
    ["nothing", [], []]
  ]
  for (const [name, steps, keys] of cases) test(name, () => expect(C.keyStepsOf(form, steps)).toEqual(keys))
})

describe("corruptions of [link:New, type:Title, button:Save, end]", () => {
  const steps = ["link:New", "type:Title", "button:Save", "end"]
  const cases: ReadonlyArray<[string, () => C.Corruption<string> | null, ReadonlyArray<string> | null, string | null]> = [
    ["drop: the title left out", () => C.dropKeySteps(form, steps)[0]!, ["link:New", "button:Save", "end"], "drop:1"],
    [
      "duplicate: saved twice",
      () => C.duplicateKeySteps(form, steps)[1]!,
      ["link:New", "type:Title", "button:Save", "button:Save", "end"],
      "repeat:2@3"
    ],
    ["swap: saved before the title", () => C.swapSteps(form, steps), ["link:New", "button:Save", "type:Title", "end"], "swap:1-2"],
    // The typed field is undone, not the save (pressing Save again undoes nothing), and saved again.
    [
      "undo: the title cleared, saved again",
      () => C.undoAfter(form, steps),
      [...steps.slice(0, 3), "clear", "button:Save", "end"],
      "undo:1"
    ],
    ["stop early: the save left out", () => C.stopEarly(form, steps), ["link:New", "type:Title", "end"], "drop:2"],
    [
      "side effect: another item's form from home",
      () => C.sideEffect(form, steps, "home", ["link:Other", "button:Delete", "end"], "other"),
      ["link:New", "type:Title", "button:Save", "home", "link:Other", "button:Delete", "end"],
      "side:other"
    ],
    ["no side effect from a way that changes nothing", () => C.sideEffect(form, steps, "home", ["link:Other", "end"], "other"), null, null]
  ]
  for (const [name, make, expected, signature] of cases)
    test(name, () => {
      const c = make()
      expect(c?.steps ?? null).toEqual(expected)
      expect(c?.signature ?? null).toBe(signature)
    })

  test("a toggle pressed again at the end is the same run as pressing it twice: one signature", () => {
    const toggle = ["link:Post", "button:Upvote", "end"]
    expect(C.undoAfter(form, toggle)?.signature).toBe(C.duplicateKeySteps(form, toggle)[0]!.signature)
  })
})

describe("near miss: another value the same page shows", () => {
  const aria = '- heading "Prices"\n- cell "$12.99"\n- cell "$14.50"\n- link "Garden"\n- link "Kitchen"'
  const cases: ReadonlyArray<[string, string, number, string | null]> = [
    ["a number: another number, phrasing kept", "It costs $12.99.", 0, "It costs $14.50."],
    ["a text: another text the page shows", "Garden", 0.99, "Kitchen"],
    ["a text at draw 0: the first other text", "Prices", 0, "$12.99"]
  ]
  for (const [name, right, draw, expected] of cases) test(name, () => expect(C.nearMissOn(aria, right, draw)).toBe(expected))
  test("none when the page shows only the right value", () => expect(C.nearMissOn('- cell "7"', "7", 0.5)).toBeNull())
})

test("planCorruptions: each corruption named; a type that does not apply, or the same run again, set aside with why", () => {
  const steps = ["link:Post", "button:Upvote", "end"]
  const plan = C.planCorruptions("t1", "demo", [
    ...C.duplicateKeySteps(form, steps).map((c) => ["duplicate-key-step", c] as const),
    ["undo-after", C.undoAfter(form, steps)!],
    ["near-miss-answer", "the task has no answer"]
  ])
  expect(plan.play.map((p) => p.id)).toEqual(["t1/duplicate-key-step/demo#2"])
  expect(plan.setAside).toEqual([
    { id: "t1/undo-after/demo", kind: "undo-after", reason: "the same run as duplicate-key-step" },
    { id: "t1/near-miss-answer/demo", kind: "near-miss-answer", reason: "the task has no answer" }
  ])
})
