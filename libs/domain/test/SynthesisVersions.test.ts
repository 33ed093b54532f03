/**
 * The embedded synthesizer's versions, table-driven: given a demo's key step, then the code
 * each version writes — version 1 stays as old runs inferred it, so their replays hold.
 */
import { describe, expect, test } from "bun:test"
import {
  identifyKeySteps,
  keyStepOptionsOf,
  nativeLabelFunction,
  SYNTHESIS,
  synthesisRulesAt,
  synthesizeCandidates,
  versionOf,
  typedUrlPattern,
  urlPattern
} from "../mod.ts"
import type { LfTrajectory, SynthesisVersion } from "../mod.ts"
import { act, el, trajectory } from "./fixtures.ts"

const answerDemo = (answer: string) =>
  trajectory("/wiki/#Welcome", [
    { action: act("click", { role: "link", name: "Workshop" }), urlAfter: "/wiki/#Workshop", elements: [el("heading", "Workshop")] },
    { action: act("answer", { answer }) }
  ])

/** The strongest candidate for the demo's last key step. */
const lastLf = (t: LfTrajectory, version: SynthesisVersion) => {
  const k = identifyKeySteps(t).at(-1)!
  return synthesizeCandidates(t, k, synthesisRulesAt(version))[0]!.code
}

type AnswerCase = readonly [demo: string, given: string, before: boolean, after: boolean]

/** Each case: does the LF each of two versions infers from the demo's answer hold on the given answer? */
const answerCases = (versions: readonly [SynthesisVersion, SynthesisVersion], cases: ReadonlyArray<AnswerCase>) => {
  for (const [demo, given, before, after] of cases) {
    test(`the demo answered ${JSON.stringify(demo)}; ${JSON.stringify(given)} passes v${versions[0]} ${before}, v${versions[1]} ${after}`, () => {
      for (const [version, expected] of [
        [versions[0], before],
        [versions[1], after]
      ] as const) {
        const lf = nativeLabelFunction(lastLf(answerDemo(demo), version))
        expect([version, (lf(answerDemo(given)) as number) >= 0]).toEqual([version, expected])
      }
    })
  }
}

describe("answers", () => {
  const cases: ReadonlyArray<AnswerCase> = [
    ["Workshop", "Workshop", true, true],
    ["Workshop", "the Workshop", false, true],
    ["Workshop", "In the workshop, shelf 2", false, true],
    ["Workshop", "Workshops", false, false],
    ["Workshop", "Boat shed", false, false],
    ["North Pier", "on the north  pier", false, true],
    // Numbers compare as numbers, and short words stay exact: "no" is in many an answer that means something else.
    ["42", "420", false, false],
    ["42", "42 knots", true, true],
    ["no", "I have no idea", false, false]
  ]
  answerCases(["1", "2"], cases)
})

describe("answers that report one value (version 3)", () => {
  const cases: ReadonlyArray<AnswerCase> = [
    ["It costs $117.49.", "It costs $117.49.", true, true],
    ["It costs $117.49.", "$117.49", false, true],
    ["It costs $117.49.", "117.49 dollars", false, true],
    ["It costs $117.49.", "$117.48", false, false],
    ["It costs $117.49.", "$1117.49", false, false],
    ["Flight MR707 departs at 11:25.", "11:25", false, true],
    ["Flight MR707 departs at 11:25.", "It leaves at 11:25 from Athens", false, true],
    ["Flight MR707 departs at 11:25.", "11:26", false, false],
    // The code's digits are no value: 707 alone does not answer a time.
    ["Flight MR707 departs at 11:25.", "707", false, false],
    ["The post has 5 comments.", "5", false, true],
    ["The post has 5 comments.", "15", false, false],
    // Two values: which one answers is not clear, so the sentence stays whole.
    ["Flight MR707 departs at 11:25 and arrives at 14:35.", "11:25", false, false],
    ["Flight MR707 departs at 11:25 and arrives at 14:35.", "flight MR707 departs at 11:25 and arrives at 14:35.", true, true]
  ]
  answerCases(["2", "3"], cases)
  test("version 3 is what new runs record, and older runs keep theirs", () => {
    expect([versionOf(SYNTHESIS, "3"), versionOf(SYNTHESIS, "2"), versionOf(SYNTHESIS, undefined)]).toEqual(["3", "2", "1"])
  })
})

describe("a value said alone (version 4)", () => {
  const cases: ReadonlyArray<AnswerCase> = [
    ["14:25", "14:25", true, true],
    // A reader who answered with the time alone learned the same as one who said it in a sentence.
    ["14:25", "Flight BW554 departs at 14:25.", false, true],
    ["14:25.", "It leaves at 14:25", false, true],
    ["14:25", "14:26", false, false],
    ["14:25", "Flight BW554 departs at 14:250.", false, false],
    ["14:25", "At 14:25 or 15:10", false, true],
    // Short words and codes stay exact: "no" is in many an answer that means something else, BW554 is no value.
    ["no", "I have no idea", false, false],
    ["BW554", "Flight BW554 departs at 14:25.", false, false],
    // Plain numbers compare as numbers in every version.
    ["5", "5", true, true],
    ["5", "15", false, false]
  ]
  answerCases(["3", "4"], cases)
  test("version 4 is what new runs record", () => {
    expect([versionOf(SYNTHESIS, "4"), versionOf(SYNTHESIS, "3")]).toEqual(["4", "3"])
  })
})

describe("edits judged by what they made (version 5; the cases: EditsByEffect.test.ts)", () => {
  // Everything else reads as version 4 did.
  const cases: ReadonlyArray<AnswerCase> = [
    ["14:25", "Flight BW554 departs at 14:25.", true, true],
    ["It costs $117.49.", "$117.49", true, true],
    ["no", "I have no idea", false, false]
  ]
  answerCases(["4", "5"], cases)
  test("version 5 is recorded as itself", () => {
    expect([versionOf(SYNTHESIS, "5"), versionOf(SYNTHESIS, "4")]).toEqual(["5", "4"])
  })
  const rules: ReadonlyArray<readonly [SynthesisVersion, boolean, boolean]> = [
    ["1", false, false],
    ["3", false, false],
    ["4", true, false],
    ["5", true, true]
  ]
  test.each(rules)("version %s's key steps: inPageLinks %p, editsByEffect %p", (version, inPageLinks, editsByEffect) => {
    expect(keyStepOptionsOf(synthesisRulesAt(version))).toEqual({ inPageLinks, editsByEffect })
  })
  test("version 6's key steps are version 5's; version 7's also tell nameless fields apart", () => {
    expect(keyStepOptionsOf(synthesisRulesAt("6"))).toEqual({ inPageLinks: true, editsByEffect: true })
    expect(keyStepOptionsOf(synthesisRulesAt("7"))).toEqual({ inPageLinks: true, editsByEffect: true, namelessApart: true })
  })
})

describe("a typed search judged by the parameters that carry its text (version 6)", () => {
  // The same search, submitted by Enter before and after the suggestion list opened: the app adds `go=Go` or `fulltext=Search`.
  const search = (urlAfter: string, typed = "Curlew") =>
    trajectory("/index.php/Main_Page", [
      { action: act("type", { role: "searchbox", name: "Search", typed, submit: true }), urlAfter },
      { action: act("click", { role: "link", name: "Engine No. 7 Curlew" }), urlAfter: "/index.php/Engine_No._7_Curlew" },
      { action: act("answer", { answer: "160 psi" }) }
    ])
  const demo = search("/index.php?search=Curlew&title=Special%3ASearch&fulltext=Search")
  const searchLf = (version: SynthesisVersion) =>
    nativeLabelFunction(synthesizeCandidates(demo, identifyKeySteps(demo)[0]!, synthesisRulesAt(version))[0]!.code)
  const cases: ReadonlyArray<readonly [name: string, t: LfTrajectory, v5: boolean, v6: boolean]> = [
    ["the demo itself", demo, true, true],
    ["the same text submitted the other way", search("/index.php?search=Curlew&title=Special%3ASearch&go=Go"), false, true],
    ["the same parameters in another order", search("/index.php?title=Special%3ASearch&search=Curlew"), false, true],
    ["other text", search("/index.php?search=Kestrel&title=Special%3ASearch&fulltext=Search", "Kestrel"), false, false],
    ["the text on another page", search("/other.php?search=Curlew&fulltext=Search"), false, false]
  ]
  for (const [name, t, v5, v6] of cases) {
    test(`${name}: version 5 ${v5}, version 6 ${v6}`, () => {
      expect([(searchLf("5")(t) as number) >= 0, (searchLf("6")(t) as number) >= 0]).toEqual([v5, v6])
    })
  }
  test("typedUrlPattern keeps the parameters holding the typed text, and none is none", () => {
    expect(typedUrlPattern("/s?q=Spring+Gala+2025&go=Go", "Spring Gala 2025")).toBe(urlPattern("/s?q=Spring+Gala+2025"))
    expect(typedUrlPattern("/s?q=spring%20gala&x=1", "Spring Gala")).toBe(urlPattern("/s?q=spring%20gala"))
    expect(typedUrlPattern("/results/17?sort=new", "boots")).toBeNull()
    expect(typedUrlPattern("/results/17", "boots")).toBeNull()
  })
  test("version 12 is what new runs record; 6 to 11 are kept as themselves", () => {
    expect([
      SYNTHESIS.current,
      versionOf(SYNTHESIS, "6"),
      versionOf(SYNTHESIS, "7"),
      versionOf(SYNTHESIS, "8"),
      versionOf(SYNTHESIS, "9"),
      versionOf(SYNTHESIS, "10"),
      versionOf(SYNTHESIS, "11"),
      versionOf(SYNTHESIS, "13")
    ]).toEqual(["12", "6", "7", "8", "9", "10", "11", "1"])
  })
})

describe("an id a button minted, as a UUID (version 7)", () => {
  // "Create" made a new account; its page's address holds the account's new UUID.
  const created = (uuid: string) =>
    trajectory("/budget", [
      { action: act("click", { role: "button", name: "Create" }), urlAfter: `/accounts/${uuid}` },
      { action: act("status", { status: "complete" }) }
    ])
  const demo = created("0fa3b9c1-5d27-4e6b-bf38-cb7f9e1fe0a2")
  const lfs = (version: SynthesisVersion) =>
    identifyKeySteps(demo).map((k) => nativeLabelFunction(synthesizeCandidates(demo, k, synthesisRulesAt(version))[0]!.code))
  const holdsAll = (version: SynthesisVersion, t: LfTrajectory) => lfs(version).every((lf) => (lf(t) as number) >= 0)
  const cases: ReadonlyArray<readonly [name: string, t: LfTrajectory, v5: boolean, v6: boolean]> = [
    ["the demo itself", demo, true, true],
    ["another new account", created("7d2e01aa-93c4-4f1b-a2de-0b5c8e7f6a13"), false, true],
    ["somewhere that is no account", created("budget"), false, false]
  ]
  for (const [name, t, v6, v7] of cases) {
    test(`${name}: version 6 ${v6}, version 7 ${v7}`, () => expect([holdsAll("6", t), holdsAll("7", t)]).toEqual([v6, v7]))
  }
})

describe("a text submitted on a page that stayed (version 7)", () => {
  const named = (submit: boolean) =>
    trajectory("/budget", [
      { action: act("click", { role: "button", name: "Add group" }), elements: [el("textbox", "New group name", { value: "" })] },
      {
        action: act("type", { role: "textbox", name: "New group name", typed: "Pets", submit }),
        elements: [el("textbox", "New group name", { value: "Pets" })]
      },
      { action: act("status", { status: "complete" }) }
    ])
  const demo = named(true)
  const typeLf = (version: SynthesisVersion) => {
    const k = identifyKeySteps(demo, keyStepOptionsOf(synthesisRulesAt(version))).find(
      (x) => demo.steps[x.stepIndex]!.action.kind === "type"
    )!
    return nativeLabelFunction(synthesizeCandidates(demo, k, synthesisRulesAt(version))[0]!.code)
  }
  test("the name typed without its Enter passes version 6 and not version 7; with it, both", () => {
    expect([(typeLf("6")(named(false)) as number) >= 0, (typeLf("7")(named(false)) as number) >= 0]).toEqual([true, false])
    expect([(typeLf("6")(demo) as number) >= 0, (typeLf("7")(demo) as number) >= 0]).toEqual([true, true])
  })
})

describe("fields without a name are told apart (version 7, namelessApart)", () => {
  // A table's row edited cell by cell: each cell's input is a textbox without a name.
  const row = (typed: ReadonlyArray<string>) =>
    trajectory(
      "/accounts/checking",
      typed.map((text) => ({
        action: act("type", { role: "textbox", name: "", typed: text }),
        elements: [el("textbox", "", { value: text })]
      }))
    )
  const demo = row(["11/24/2026", "Health", "18.40"])
  const typedKeySteps = (version: SynthesisVersion) =>
    identifyKeySteps(demo, keyStepOptionsOf(synthesisRulesAt(version))).map((k) => demo.steps[k.stepIndex]!.action.typed)
  test("version 6 keeps only the last typing as a key step; version 7 keeps each cell's", () => {
    expect(typedKeySteps("6")).toEqual(["18.40"])
    expect(typedKeySteps("7")).toEqual(["11/24/2026", "Health", "18.40"])
  })
  test("a named field typed twice is still overwritten in version 7", () => {
    const named = trajectory("/form", [
      { action: act("type", { role: "textbox", name: "Payee", typed: "Gull" }) },
      { action: act("type", { role: "textbox", name: "Payee", typed: "Gull Point Pharmacy" }) }
    ])
    expect(identifyKeySteps(named, keyStepOptionsOf(synthesisRulesAt("7"))).map((k) => named.steps[k.stepIndex]!.action.typed)).toEqual([
      "Gull Point Pharmacy"
    ])
  })
})

describe("a link that neither left the page nor changed it (key steps with inPageLinks)", () => {
  const page = [el("link", "Skip to content"), el("combobox", "Sort by", { value: "new" }), el("button", "Apply")]
  const run = (then: ReadonlyArray<ReturnType<typeof el>>) =>
    trajectory(
      "/forum/b/cycling",
      [
        { action: act("click", { role: "link", name: "Skip to content" }), elements: then },
        { action: act("select", { role: "combobox", name: "Sort by", value: "top" }), elements: page },
        { action: act("status", { status: "complete" }) }
      ],
      page
    )
  const cases: ReadonlyArray<[name: string, after: ReadonlyArray<ReturnType<typeof el>>, keptBefore: boolean, keptWith: boolean]> = [
    // An in-page anchor moved the view: nothing a path should ask for again.
    ["the same page after it", page, true, false],
    // A link that showed more, or changed a value, did something the task may need.
    ["a new element after it", [...page, el("link", "Older posts")], true, true],
    ["a value changed after it", [page[0]!, el("combobox", "Sort by", { value: "top" }), page[2]!], true, true]
  ]
  for (const [name, after, keptBefore, keptWith] of cases) {
    test(`given ${name}, the click is a key step before synthesis 4: ${keptBefore}, with inPageLinks: ${keptWith}`, () => {
      const kept = (options: { inPageLinks?: boolean }) => identifyKeySteps(run(after), options).some((k) => k.stepIndex === 0)
      expect([kept({}), kept({ inPageLinks: true })]).toEqual([keptBefore, keptWith])
    })
  }
  test("a link that left the page is navigation either way", () => {
    const t = trajectory("/forum/", [
      { action: act("click", { role: "link", name: "Cycling" }), urlAfter: "/forum/b/cycling", elements: page },
      { action: act("status", { status: "complete" }) }
    ])
    expect(identifyKeySteps(t, { inPageLinks: true }).map((k) => k.reason)).toEqual(["reaches-final-page", "final-status"])
  })
})

describe("a click on the page the task started on", () => {
  // A button found on every page that opens a draft: what the task needs is the draft, not where it was pressed.
  const created = (before: ReadonlyArray<{ action: ReturnType<typeof act>; urlAfter?: string }>) =>
    trajectory("/#Welcome", [
      ...before,
      {
        action: act("click", { role: "button", name: "new tiddler" }),
        urlAfter: "/#Draft",
        elements: [el("textbox", "Title", { value: "" })]
      },
      { action: act("type", { role: "textbox", name: "Title", typed: "Fuel" }), elements: [el("textbox", "Title", { value: "Fuel" })] }
    ])
  const demo = created([])
  const elsewhere = created([{ action: act("click", { role: "link", name: "Logs" }), urlAfter: "/#Logs" }])
  const clickLf = (t: LfTrajectory, version: SynthesisVersion) =>
    synthesizeCandidates(t, identifyKeySteps(t)[0]!, synthesisRulesAt(version))[0]!.code

  test("version 1 ties it to that page; version 2 only to where it led, so the same button pressed elsewhere counts", () => {
    expect(clickLf(demo, "1")).toContain(`urlBefore: "^/#Welcome(\\\\?.*)?$"`)
    expect(clickLf(demo, "2")).not.toContain("urlBefore")
    expect(clickLf(demo, "2")).toContain("urlAfter")
    expect(nativeLabelFunction(clickLf(demo, "1"))(elsewhere)).toBe(-1)
    expect(nativeLabelFunction(clickLf(demo, "2"))(elsewhere)).toBe(1)
  })

  test("after the demo navigated, or for a click that stayed on its page, the page is still evidence in version 2", () => {
    expect(clickLf(elsewhere, "2")).toContain(`urlBefore: "^/#Logs(\\\\?.*)?$"`)
    const inPage = trajectory("/#Welcome", [
      { action: act("click", { role: "checkbox", name: "Done" }), elements: [el("checkbox", "Done", { checked: true })] },
      { action: act("status", { status: "complete" }) }
    ])
    expect(clickLf(inPage, "2")).toContain("urlBefore")
  })
})

test("a run's recorded version; runs from before versions used version 1", () => {
  expect([versionOf(SYNTHESIS, "2"), versionOf(SYNTHESIS, "1"), versionOf(SYNTHESIS, undefined), versionOf(SYNTHESIS, 3)]).toEqual([
    "2",
    "1",
    "1",
    "1"
  ])
})
