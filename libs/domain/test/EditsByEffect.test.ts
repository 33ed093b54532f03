/**
 * Edits judged by what they made (synthesis 5), table-driven: the change between two
 * values as the synthesizer and the LF API both compute it; `validateEdit` on hand-built
 * editing sessions; which steps are key steps with `editsByEffect`; and, given a demo's
 * edit, which sessions the LFs of version 4 and of version 5 accept.
 */
import { describe, expect, test } from "bun:test"
import { neighbourOf, shownTexts, textChange } from "../FieldEdits.ts"
import type { TextChange } from "../FieldEdits.ts"
import type { LfAction, LfTrajectory } from "../LfTrajectory.ts"
import {
  fromStep,
  holdsInOrder,
  identifyKeySteps,
  judgeCandidate,
  keyStepOptionsOf,
  nativeLabelFunction,
  prefixOf,
  synthesizeCandidates
} from "../mod.ts"
import { synthesisRulesAt } from "../mod.ts"
import type { SynthesisVersion } from "../mod.ts"
import { act, el, trajectory } from "./fixtures.ts"

const ORIGINAL = "Owner: Bob Status: draft Due: Friday"
const BODY = { role: "textbox", name: "Body" }

const editor = (value: string) => [el("link", "Cancel"), el("textbox", "Body", { value }), el("button", "Save")]
/** The saved page shows the text in an element a label function can read. */
const savedPage = (value: string) => [el("link", "Edit"), el("article", "Notes", { text: `Notes ${value}` })]

type Edit = readonly [action: LfAction, valueAfter: string]
const key = (k: string, value: string): Edit => [act("key", { key: k }), value]
/** The typed text as an LF sees it: white space collapsed (LfTrajectory.ts). */
const insert = (typed: string, value: string): Edit => [
  act("type", { ...BODY, typed: typed.replace(/\s+/g, " ").trim(), mode: "insert" }),
  value
]
const fill = (typed: string): Edit => [act("type", { ...BODY, typed }), typed]

/** Open the editor, click the body, make the edits, save (the page shows `shows`, by default what was saved), say complete. */
const session = (edits: ReadonlyArray<Edit>, options: { readonly save?: boolean; readonly shows?: string } = {}) => {
  const final = edits.at(-1)?.[1] ?? ORIGINAL
  return trajectory("/wiki/Notes", [
    { action: act("click", { role: "link", name: "Edit" }), urlAfter: "/wiki/Notes/edit", elements: editor(ORIGINAL) },
    { action: act("click", BODY), elements: editor(ORIGINAL) },
    ...edits.map(([action, value]) => ({ action, elements: editor(value) })),
    ...(options.save === false
      ? []
      : [{ action: act("click", { role: "button", name: "Save" }), urlAfter: "/wiki/Notes", elements: savedPage(options.shows ?? final) }]),
    { action: act("status", { status: "complete" }) }
  ])
}

const APPENDED = `${ORIGINAL} Reviewed by Ann`
const REPLACED = "Owner: Bob Status: final Due: Friday"

describe("the change between two values, as the synthesizer and the LF API compute it", () => {
  const api = nativeLabelFunction("function labelFunction(t) { return textChange(t.before, t.after) }") as unknown as (
    x: unknown
  ) => TextChange
  const cases: ReadonlyArray<readonly [before: string, after: string, change: TextChange]> = [
    [ORIGINAL, APPENDED, { head: ORIGINAL, removed: "", inserted: " Reviewed by Ann", tail: "" }],
    [ORIGINAL, `Reviewed by Ann ${ORIGINAL}`, { head: "", removed: "", inserted: "Reviewed by Ann ", tail: ORIGINAL }],
    [ORIGINAL, REPLACED, { head: "Owner: Bob Status: ", removed: "draft", inserted: "final", tail: " Due: Friday" }],
    // Beside the old value: nothing removed.
    [
      ORIGINAL,
      "Owner: Bob Status: final draft Due: Friday",
      { head: "Owner: Bob Status: ", removed: "", inserted: "final ", tail: "draft Due: Friday" }
    ],
    // Where both could fit ("aa" → "aaa"), the common start wins on both sides.
    ["aa", "aaa", { head: "aa", removed: "", inserted: "a", tail: "" }],
    ["abc", "", { head: "", removed: "abc", inserted: "", tail: "" }],
    ["same", "same", { head: "same", removed: "", inserted: "", tail: "" }]
  ]
  test.each(cases)("%p → %p", (before, after, change) => {
    expect(textChange(before, after)).toEqual(change)
    expect(api({ before, after } as never)).toEqual(change)
  })

  const shown: ReadonlyArray<readonly [before: string, after: string, texts: ReadonlyArray<string>]> = [
    // The word the edit touches, and two more.
    [ORIGINAL, APPENDED, ["draft Due: Friday Reviewed by Ann", "Reviewed by Ann"]],
    [ORIGINAL, REPLACED, ["Bob Status: final Due: Friday", "final"]],
    // Two letters show anywhere: only the words around them say anything.
    ["Size: S Colour: red", "Size: XL Colour: red", ["Size: XL Colour: red"]]
  ]
  test.each(shown)("a page carrying %p → %p shows %p", (before, after, texts) => {
    expect(shownTexts(after, textChange(before, after))).toEqual(texts)
  })
})

describe("validateEdit judges the field's content after the edit, whatever keys made it", () => {
  const append = `{ before: "Status: draft Due: Friday", removed: "", inserted: " Reviewed by Ann", after: "" }`
  const replace = `{ before: "Owner: Bob Status: ", removed: "draft", inserted: "final", after: " Due: Friday", shown: /Status:\\s+final\\s+Due/i }`
  const appendOnce = append.replace('after: ""', 'after: "", once: true')
  const replaceOnce = replace.replace('after: " Due: Friday"', 'after: " Due: Friday", once: true')
  const run = (edit: string, t: LfTrajectory) =>
    nativeLabelFunction(`function labelFunction(t) { return validateEdit(t, "textbox", "Body", ${edit}) }`)(t)
  const cases: ReadonlyArray<readonly [name: string, edit: string, t: LfTrajectory, at: number]> = [
    ["an append by Control+End", append, session([key("Control+End", ORIGINAL), insert("\nReviewed by Ann", APPENDED)]), 3],
    [
      "an append by arrows and End",
      append,
      session([key("ArrowDown", ORIGINAL), key("ArrowDown", ORIGINAL), key("End", ORIGINAL), insert("\nReviewed by Ann", APPENDED)]),
      5
    ],
    ["an append retyped whole", append, session([key("Control+a", ORIGINAL), insert(APPENDED, APPENDED)]), 3],
    ["an append typed in two goes", append, session([insert(" Reviewed", `${ORIGINAL} Reviewed`), insert(" by Ann", APPENDED)]), 3],
    [
      "the line at the top",
      append,
      session([key("Control+Home", ORIGINAL), insert("Reviewed by Ann\n", `Reviewed by Ann ${ORIGINAL}`)]),
      -1
    ],
    ["the line mid-text", append, session([insert(" Reviewed by Ann", "Owner: Bob Reviewed by Ann Status: draft Due: Friday")]), -1],
    ["a replacement", replace, session([key("Shift+End", ORIGINAL), insert("final", REPLACED)]), 3],
    ["a replacement as a fill", replace, session([fill(REPLACED)]), 2],
    ["the new value beside the old", replace, session([insert("final ", "Owner: Bob Status: final draft Due: Friday")]), -1],
    ["the new value at the wrong place", replace, session([insert("final", "Owner: final Status: draft Due: Friday")]), -1],
    ["a replacement the saved page does not show", replace, session([fill(REPLACED)], { shows: ORIGINAL }), -1],
    ["a replacement never saved", replace, session([fill(REPLACED)], { save: false }), -1],
    // With `once`, the same text inserted again before the page moved on is no longer the edit.
    [
      "an append typed twice, without once",
      append,
      session([insert(" Reviewed by Ann", APPENDED), insert(" Reviewed by Ann", `${APPENDED} Reviewed by Ann`)]),
      2
    ],
    [
      "an append typed twice, with once",
      appendOnce,
      session([insert(" Reviewed by Ann", APPENDED), insert(" Reviewed by Ann", `${APPENDED} Reviewed by Ann`)]),
      -1
    ],
    ["an append typed once, with once", appendOnce, session([key("Control+End", ORIGINAL), insert("\nReviewed by Ann", APPENDED)]), 3],
    [
      "an append, then another edit elsewhere in the field, with once",
      appendOnce,
      session([insert(" Reviewed by Ann", APPENDED), insert("Notes: ", `Notes: ${APPENDED}`)]),
      2
    ],
    [
      "a replacement retyped at once, with once",
      replaceOnce,
      session([key("Shift+End", ORIGINAL), insert("final", REPLACED), insert("final", "Owner: Bob Status: finalfinal Due: Friday")]),
      -1
    ]
  ]
  test.each(cases)("%s", (_, edit, t, at) => {
    expect(run(edit, t)).toBe(at)
  })

  test("the field's value on arrival is the page's: a view from a later step, or a page reached anew, starts over", () => {
    const t = session([key("Control+End", ORIGINAL), insert("\nReviewed by Ann", APPENDED)])
    expect(run(append, fromStep(t, 1))).toBe(3)
    // From the edit itself on, the view has no earlier value: nothing shows the change.
    expect(run(append, fromStep(t, 3))).toBe(-1)
  })
})

describe("key steps: an edit's keys are part of it with editsByEffect", () => {
  const cases: ReadonlyArray<readonly [name: string, t: LfTrajectory, before: ReadonlyArray<number>, withEdits: ReadonlyArray<number>]> = [
    // Backspace is no caret key: before, the click on the field was kept as a step of its own.
    [
      "select all, delete, type",
      session([key("Control+a", ORIGINAL), key("Backspace", ""), insert("New", "New")]),
      [1, 4, 5, 6],
      [4, 5, 6]
    ],
    ["select all spelled Control+A", session([key("Control+A", ORIGINAL), insert(APPENDED, APPENDED)]), [1, 3, 4, 5], [3, 4, 5]],
    // Enter in a textarea only changed the field: part of the edit, not a key press to repeat.
    [
      "Enter between two inserts",
      session([insert(" Reviewed", `${ORIGINAL} Reviewed`), key("Enter", `${ORIGINAL} Reviewed`), insert(" by Ann", APPENDED)]),
      [2, 3, 4, 5, 6],
      [4, 5, 6]
    ],
    [
      "arrows and Shift+PageDown",
      session([key("ArrowDown", ORIGINAL), key("Shift+PageDown", ORIGINAL), insert("\nReviewed by Ann", APPENDED)]),
      [1, 4, 5, 6],
      [4, 5, 6]
    ]
  ]
  test.each(cases)("%s", (_, t, before, withEdits) => {
    expect(identifyKeySteps(t, keyStepOptionsOf(synthesisRulesAt("4"))).map((k) => k.stepIndex)).toEqual([...before])
    expect(identifyKeySteps(t, keyStepOptionsOf(synthesisRulesAt("5"))).map((k) => k.stepIndex)).toEqual([...withEdits])
  })

  test("Enter that changed the page beside the field is still a step of its own", () => {
    const t = trajectory("/search", [
      {
        action: act("type", { role: "searchbox", name: "Search", typed: "kettle" }),
        elements: [el("searchbox", "Search", { value: "kettle" })]
      },
      { action: act("key", { key: "Enter" }), elements: [el("searchbox", "Search", { value: "kettle" }), el("link", "Red Kettle")] }
    ])
    expect(identifyKeySteps(t, keyStepOptionsOf(synthesisRulesAt("5"))).map((k) => k.stepIndex)).toEqual([0, 1])
  })
})

/** The LFs `version` infers from `demo`: for each key step, the first candidate that holds on it and not on its prefix. */
const inferred = (demo: LfTrajectory, version: SynthesisVersion) =>
  identifyKeySteps(demo, keyStepOptionsOf(synthesisRulesAt(version))).map((k) => {
    const ok = synthesizeCandidates(demo, k, synthesisRulesAt(version)).find((c) => {
      const lf = nativeLabelFunction(c.code)
      const verdict = (t: LfTrajectory) => ({ kind: "ok" as const, satisfiedAt: lf(t) as number })
      return judgeCandidate({ keyStepIndex: k.stepIndex, demo: verdict(demo), prefix: verdict(prefixOf(demo, k.stepIndex)), failures: [] })
        .accepted
    })
    expect(ok).toBeDefined()
    return nativeLabelFunction(ok!.code)
  })

const accepts = (lfs: ReadonlyArray<(t: LfTrajectory) => unknown>, t: LfTrajectory) =>
  holdsInOrder(lfs.length, (i, from) => lfs[i]!(fromStep(t, from)) as number).pass

describe("a demo's edit: which sessions the LFs of version 4 and of version 5 accept", () => {
  const appendDemo = session([key("Control+End", ORIGINAL), insert("\nReviewed by Ann", APPENDED)])
  const replaceDemo = session([key("ArrowDown", ORIGINAL), key("Shift+End", ORIGINAL), insert("final", REPLACED)])
  const cases: ReadonlyArray<readonly [name: string, demo: LfTrajectory, t: LfTrajectory, v4: boolean, v5: boolean]> = [
    ["the append again", appendDemo, appendDemo, true, true],
    [
      "the append by arrows and End",
      appendDemo,
      session([key("ArrowDown", ORIGINAL), key("End", ORIGINAL), insert("\nReviewed by Ann", APPENDED)]),
      true,
      true
    ],
    ["the append retyped whole", appendDemo, session([key("Control+a", ORIGINAL), insert(APPENDED, APPENDED)]), false, true],
    ["the line at the top", appendDemo, session([insert("Reviewed by Ann\n", `Reviewed by Ann ${ORIGINAL}`)]), true, false],
    [
      "the line mid-text",
      appendDemo,
      session([insert("\nReviewed by Ann", "Owner: Bob Reviewed by Ann Status: draft Due: Friday")]),
      true,
      false
    ],
    ["the append the saved page lost", appendDemo, session([insert("\nReviewed by Ann", APPENDED)], { shows: ORIGINAL }), true, false],
    ["the replacement again", replaceDemo, replaceDemo, true, true],
    [
      "the replacement by select-all and retype",
      replaceDemo,
      session([key("Control+a", ORIGINAL), insert(REPLACED, REPLACED)]),
      false,
      true
    ],
    ["the new value beside the old", replaceDemo, session([insert("final ", "Owner: Bob Status: final draft Due: Friday")]), true, false],
    ["the new value at the wrong place", replaceDemo, session([insert("final", "Owner: final Status: draft Due: Friday")]), true, false]
  ]
  test.each(cases)("%s", (_, demo, t, v4, v5) => {
    expect([accepts(inferred(demo, "4"), t), accepts(inferred(demo, "5"), t)]).toEqual([v4, v5])
  })

  test("version 5 writes the edit's LF from the field's content and the saved page, version 4 from the typed text", () => {
    const k = identifyKeySteps(replaceDemo, keyStepOptionsOf(synthesisRulesAt("5"))).find((x) => x.reason === "state-changing")!
    const [v5] = synthesizeCandidates(replaceDemo, k, synthesisRulesAt("5"))
    expect(v5!.evidence).toBe("state")
    expect(v5!.code).toContain(
      `validateEdit(t, "textbox", "Body", {\n    before: "Owner: Bob Status: ",\n    removed: "draft",\n    inserted: "final",\n    after: " Due: Friday",\n    shown: /Bob\\s+Status:\\s+final\\s+Due:\\s+Friday/i\n  })`
    )
    expect(synthesizeCandidates(replaceDemo, k, synthesisRulesAt("4"))[0]!.code).toContain(`validateType(t, "final", "Body"`)
  })
})

describe("validateEdit's `next`: a field among same-named ones, told by what the page lists right after it", () => {
  const page = (rows: ReadonlyArray<string>, added: string) => [
    ...rows.flatMap((value) => [el("textbox", "field value", { value }), el("button", "remove field")]),
    el("textbox", "field value", { value: added }),
    el("button", "add")
  ]
  const run = (...after: ReadonlyArray<ReturnType<typeof page>>) =>
    trajectory(
      "/#G",
      after.map((elements) => ({ action: act("click", { role: "button", name: "x" }), elements })),
      page(["running"], "")
    )
  const edit = (next: { role: string; name: string } | null) =>
    nativeLabelFunction(
      `function labelFunction(t) { return validateEdit(t, "textbox", "field value", { before: "", removed: "running", inserted: "offline", after: ""${
        next === null ? "" : `, next: ${JSON.stringify(next)}`
      } }) }`
    )
  const beside = { role: "button", name: "remove field" }
  test.each([
    ["the row's box changed", run(page(["offline"], "")), 0, 0],
    ["the row removed, the new box typed into", run(page([], ""), page([], "offline")), 1, -1],
    ["the row added again, holding the value", run(page([], ""), page([], "offline"), page(["offline"], "")), 1, 2]
  ] as const)("%s", (_, t, first, withNext) => {
    expect([edit(null)(t), edit(beside)(t)]).toEqual([first, withNext])
  })
  test("neighbourOf reads it off the page before the step; a nameless neighbour is none", () => {
    const t = trajectory(
      "/#G",
      [{ action: act("type", { role: "textbox", name: "field value", typed: "offline" }), elements: page(["offline"], "") }],
      page(["running"], "")
    )
    expect(neighbourOf(t, t.steps[0]!, "textbox", "field value")).toEqual(beside)
    const bare = trajectory(
      "/#G",
      [{ action: act("type", { role: "textbox", name: "q", typed: "x" }) }],
      [el("textbox", "q"), el("button", "")]
    )
    expect(neighbourOf(bare, bare.steps[0]!, "textbox", "q")).toBeNull()
  })
})
