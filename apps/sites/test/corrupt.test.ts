/** Corruptions of scripted solutions (solutions/Corrupt.ts): which steps are key, and what each corruption makes of a script. */
import { describe, expect, test } from "bun:test"
import {
  describeStep,
  dropKeySteps,
  duplicateKeySteps,
  keyStepsOf,
  nearMissAnswer,
  nearMissOn,
  scriptOfActions,
  sideEffect,
  stopEarly,
  swapSteps,
  undoAfter
} from "../solutions/Corrupt.ts"
import { seededRng } from "../solutions/Perturb.ts"
import type { Step } from "../solutions/Runner.ts"
import { button, click, done, exact, link, type } from "../solutions/Script.ts"

const browse = click(link(exact("Cycling")))
const open = click(link(exact("Storm Protocol")))
const upvote = click(button(/^Upvote$/))
const search = type({ role: "searchbox", name: /^Search$/ }, "storm", true)
const title = type({ role: "textbox", name: /^Title$/ }, "Hello")
const save = click(button(/^Save$/))
const answer: Step = { kind: "answer", read: () => "It costs $12.99." }

const names = (steps: ReadonlyArray<Step>): Array<string> => steps.map(describeStep)

describe("key steps: what changes the app's state, else the last navigation", () => {
  const cases: ReadonlyArray<[string, ReadonlyArray<Step>, ReadonlyArray<number>]> = [
    ["a vote after two links", [browse, open, upvote, done], [2]],
    ["navigation only: its last link", [browse, open, done], [1]],
    ["a search, a field and a save", [search, open, title, save, done], [0, 2, 3]],
    ["only an answer", [answer], []],
    ["nothing at all", [], []]
  ]
  for (const [name, script, keys] of cases) test(name, () => expect(keyStepsOf(script)).toEqual(keys))
})

describe("corruptions of [Cycling, Storm Protocol, Upvote, complete]", () => {
  const script = [browse, open, upvote, done]
  const rng = () => seededRng("test", "corrupt")
  const cases: ReadonlyArray<[string, () => ReturnType<typeof swapSteps>, Array<string> | null, string | null]> = [
    ["drop-key-step: the vote left out", () => dropKeySteps(script)[0]!, names([browse, open, done]), "drop:2"],
    ["duplicate-key-step: voted twice", () => duplicateKeySteps(script)[0]!, names([browse, open, upvote, upvote, done]), "repeat:2@3"],
    ["swap-steps: the vote before opening the post", () => swapSteps(script), names([browse, upvote, open, done]), "swap:1-2"],
    // A toggle pressed again at the end is the same run as doing it twice: one signature, played once.
    ["undo-after: the vote pressed again", () => undoAfter(script), names([browse, open, upvote, upvote, done]), "repeat:2@3"],
    ["stop-early: complete before voting", () => stopEarly(script), names([browse, open, done]), "drop:2"],
    ["near-miss-answer: none without an answer", () => nearMissAnswer(script, rng()), null, null]
  ]
  for (const [name, make, steps, signature] of cases)
    test(name, () => {
      const c = make()
      expect(c === null ? null : names(c.steps)).toEqual(steps)
      expect(c?.signature ?? null).toBe(signature)
    })
})

describe("corruptions of a form: search, open, type a title, save", () => {
  const script = [search, open, title, save, done]
  test("undo-after clears the typed field after the save, and saves again", () => {
    const c = undoAfter(script)!
    expect(names(c.steps)).toEqual(names([search, open, title, save, type({ role: "textbox", name: /^Title$/ }, ""), save, done]))
    expect(c.signature).toBe("undo:2")
  })
  test("drop-key-step and duplicate-key-step: one run per key step, each saying which", () => {
    expect(dropKeySteps(script).map((c) => [c.step, c.signature])).toEqual([
      [1, "drop:0"],
      [3, "drop:2"],
      [4, "drop:3"]
    ])
    expect(duplicateKeySteps(script).map((c) => c.signature)).toEqual(["repeat:0@1", "repeat:2@3", "repeat:3@4"])
    expect(dropKeySteps([answer])).toEqual([])
  })
  test("swap-steps swaps the last key step with the one before it", () => {
    expect(names(swapSteps(script)!.steps)).toEqual(names([search, open, save, title, done]))
  })
  test("side-effect: the task, then a sibling's change from the start page, then the task's own ending", () => {
    const other = [search, open, type({ role: "textbox", name: /^Title$/ }, "Other"), save, done]
    const c = sideEffect(script, other, "forum-post-2")!
    expect(c.steps).toHaveLength(4 + 1 + 4 + 1)
    expect(c.steps[4]!.kind).toBe("choose")
    expect(describeStep(c.steps[7]!)).toBe(describeStep(other[2]!))
    expect(c.steps.at(-1)).toBe(done)
    // A sibling's script that changes nothing adds no side effect.
    expect(sideEffect(script, [browse, open, done], "x")).toBeNull()
  })
})

describe("a near-miss answer: another value read off the same page", () => {
  const page = ['- heading "Storm Protocol"', '- text: "$12.99"', '- link "Solar Kit"', '- text: "$15.00"', '- cell "3 reviews"'].join("\n")
  const cases: ReadonlyArray<[string, string, number, string | null]> = [
    ["a price: another price the page shows, the phrasing kept", "It costs $12.99.", 0, "It costs $15.00."],
    ["a count: another number on the page", "12", 0.99, "3"],
    ["a name: another name on the page", "Solar Kit", 0, "Storm Protocol"],
    ["a heading: the link beside it", "Storm Protocol", 0, "Solar Kit"]
  ]
  for (const [name, right, draw, expected] of cases) test(name, () => expect(nearMissOn(page, right, draw)).toBe(expected))
  test("a page with no other value gives none", () => expect(nearMissOn('- heading "Total: 7"', "7", 0.5)).toBeNull())
  test("an answer step read anew on the page", () => {
    const c = nearMissAnswer([open, answer], seededRng("x"))!
    const read = c.steps.at(-1) as Extract<Step, { kind: "answer" }>
    expect(read.read({ aria: page } as never)).not.toBe("It costs $12.99.")
    expect(read.read({ aria: page } as never)).toMatch(/^It costs \$/)
  })
})

describe("a recorded pass as a script: its targets found again by role and exact name", () => {
  const target = (role: string, name: string) => ({ role, name, elementId: "e7", text: name })
  const actions = [
    { kind: "click", target: target("link", "Storm Protocol (2)") },
    { kind: "type", target: target("textbox", "Title"), text: "Storm Protocol review", submit: false },
    { kind: "navigate", url: "http://127.0.0.1:4100/forum-3/b/cycling?page=2" },
    { kind: "answer", text: "Storm Protocol" }
  ] as never
  test("each action a step, names matched exactly (not as patterns), a navigation by its path", () => {
    const script = scriptOfActions(actions)!
    expect(script.map(describeStep)).toEqual([
      "click link /^Storm Protocol \\(2\\)$/",
      'type "Storm Protocol review" into textbox /^Title$/',
      "go to /forum-3/b/cycling?page=2",
      "answer"
    ])
    expect((script[3] as Extract<Step, { kind: "answer" }>).read({} as never)).toBe("Storm Protocol")
  })
  test("renamed for another item: names, typed texts and the answer", () => {
    const script = scriptOfActions(actions, (t) => t.split("Storm Protocol").join("Solar Kit"))!
    expect(describeStep(script[0]!)).toBe("click link /^Solar Kit \\(2\\)$/")
    expect(describeStep(script[1]!)).toBe('type "Solar Kit review" into textbox /^Title$/')
    expect((script[3] as Extract<Step, { kind: "answer" }>).read({} as never)).toBe("Solar Kit")
  })
  test("an action with no scripted form (a key press) gives no script", () => {
    expect(scriptOfActions([{ kind: "key", key: "Enter" }] as never)).toBeNull()
  })
})
