/**
 * The dataset checks on records built by the pipeline's own record builders (libs/domain
 * Datasets) from screens the policy view writes (libs/environment View): given records,
 * then which rule each one breaks, if any.
 */
import { describe, expect, test } from "bun:test"
import { dpoRecord, sftRecords } from "@core/domain"
import type { DatasetRecord, RecordStep } from "@core/domain"
import { policyView } from "@core/environment"
import type { ElementInfo } from "@core/environment"
import type { Action } from "@core/events"
import { checkDataset, screenView } from "../DatasetCheck.ts"
import type { CheckedRecord, ProblemRule, PseudoDemo } from "../DatasetCheck.ts"

const element = (id: string, role: string, name: string): ElementInfo => ({
  id,
  role,
  name,
  text: name,
  value: null,
  box: { x: 0, y: 0, width: 10, height: 10 },
  visible: true,
  inViewport: true,
  enabled: true,
  editable: false,
  checked: null
})
const ELEMENTS = [element("e1", "link", "Cycling"), element("e10", "button", "Search")]
const view = (elements: ReadonlyArray<ElementInfo>, limit?: number) =>
  policyView({ url: "http://127.0.0.1/forum/", app: null, title: "Forum", error: null }, elements, limit).text

const click = (elementId: string | null, name = "Cycling"): Action => ({
  kind: "click",
  target: { role: "link", name, elementId, text: name }
})
const CLOSE: Action = { kind: "status", status: "complete" }
const ANSWER: Action = { kind: "answer", text: "42" }

const step = (action: Action, screen = view(ELEMENTS), error: string | null = null): RecordStep => ({
  url: "/forum/",
  title: "Forum",
  view: screen,
  screenshot: null,
  action,
  error
})
const sft = (steps: ReadonlyArray<RecordStep>, trajectoryId = "r1-s0-t", taskId = "t") =>
  sftRecords({ trajectoryId, taskId, instruction: "Open the Cycling board.", steps })

/** A real dpo pair (same first page, then different clicks), its meta set as a credit rule would. */
const dpo = (meta: Record<string, unknown>): DatasetRecord => {
  const record = dpoRecord(
    { trajectoryId: "r1-s0-t", taskId: "t", instruction: "Open the Cycling board.", steps: [step(click("e1")), step(CLOSE)] },
    { trajectoryId: "r1-s1-t", taskId: "t", instruction: "Open the Cycling board.", steps: [step(click("e10", "Search")), step(CLOSE)] }
  )!
  return { ...record, body: { ...record.body, meta: { ...(record.body.meta as object), ...meta } } }
}

interface Case {
  readonly name: string
  readonly records: ReadonlyArray<CheckedRecord>
  readonly pseudoDemos?: ReadonlyArray<PseudoDemo>
  /** The rule each record breaks, by index, in the problems' order, and what its detail says. */
  readonly broken: ReadonlyArray<readonly [number, ProblemRule, RegExp?]>
  readonly legacy?: number
}

const X: PseudoDemo = { taskId: "t-x1", trajectoryId: "r1-s0-t", steps: 3 }

const cases: ReadonlyArray<Case> = [
  { name: "sft: the clicked element is on the screen", records: sft([step(click("e1")), step(CLOSE)]), broken: [] },
  { name: "sft: an answer naming no element needs only a screen", records: sft([step(click(null)), step(ANSWER)]), broken: [] },
  {
    name: "sft: no screen at all (a demo's first step without its page)",
    records: sft([step(click("e1"), ""), step(CLOSE, "")]),
    broken: [
      [0, "sft-screen", /lists no elements/],
      [1, "sft-screen", /lists no elements/]
    ]
  },
  {
    name: "sft: the element is not on the screen",
    records: sft([step(click("e7"))]),
    broken: [[0, "sft-screen", /element e7, which the screen at step 0 does not list$/]]
  },
  // `[e1]` must not match `[e10] …`: ids are compared whole.
  {
    name: "sft: an id that only prefixes a listed one",
    records: sft([step(click("e1"), view([ELEMENTS[1]!]))]),
    broken: [[0, "sft-screen", /element e1,/]]
  },
  {
    name: "sft: the element was cut from a long list",
    records: sft([step(click("e10"), view(ELEMENTS, 1))]),
    broken: [[0, "sft-screen", /the list was cut/]]
  },
  {
    name: "pseudo-demo: ends with a status",
    records: sft([step(click("e1")), step(click("e10")), step(CLOSE)], X.trajectoryId, X.taskId),
    pseudoDemos: [X],
    broken: []
  },
  {
    name: "pseudo-demo: ends with an answer",
    records: sft([step(click("e1")), step(ANSWER)], X.trajectoryId, X.taskId),
    pseudoDemos: [X],
    broken: []
  },
  {
    name: "pseudo-demo: ends with a click",
    records: sft([step(click("e1")), step(click("e10"))], X.trajectoryId, X.taskId),
    pseudoDemos: [X],
    broken: [[1, "pseudo-demo-closes", /ends at step 1 with a click/]]
  },
  {
    name: "pseudo-demo: its closing step failed, so no record closes it",
    records: sft([step(click("e1")), step(click("e10")), step(CLOSE, view(ELEMENTS), "not allowed")], X.trajectoryId, X.taskId),
    pseudoDemos: [X],
    broken: [[1, "pseudo-demo-closes"]]
  },
  {
    name: "pseudo-demo: a rollout of the new task (another trajectory) and the parent's own records are not the pseudo-demo",
    records: [...sft([step(click("e1"))], "r2-s0-t-x1", X.taskId), ...sft([step(click("e1"))], X.trajectoryId, "t")],
    pseudoDemos: [X],
    broken: []
  },
  { name: "dpo: before credit rule 2 (no credit_rule): a warning", records: [dpo({})], broken: [], legacy: 1 },
  { name: "dpo: another credit rule: a warning", records: [dpo({ credit_rule: "1", credited: null })], broken: [], legacy: 1 },
  {
    name: "dpo: credited under rule 2",
    records: [dpo({ credit_rule: "2", credited: { lf_id: "a".repeat(64), node_id: "n1", role: "key-step" } })],
    broken: []
  },
  {
    name: "dpo: rule 2, credited null",
    records: [dpo({ credit_rule: "2", credited: null })],
    broken: [[0, "dpo-credited", /credited is null/]]
  },
  { name: "dpo: rule 2, credited missing", records: [dpo({ credit_rule: "2" })], broken: [[0, "dpo-credited"]] },
  {
    name: "dpo: rule 2, credited malformed",
    records: [dpo({ credit_rule: "2", credited: { lf_id: "a".repeat(64), node_id: "n1", role: "detour" } })],
    broken: [[0, "dpo-credited"]]
  }
]

describe("dataset checks", () => {
  test.each(cases.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const report = checkDataset(c.records, c.pseudoDemos ?? [])
    const broken: Array<[number, string]> = report.problems.map((p) => [c.records.findIndex((r) => r.recordId === p.recordId), p.rule])
    expect(broken).toEqual(c.broken.map(([i, rule]) => [i, rule]))
    for (const [k, p] of report.problems.entries()) {
      expect(p.detail.length).toBeGreaterThan(0)
      const pattern = c.broken[k]?.[2]
      if (pattern !== undefined) expect(p.detail).toMatch(pattern)
    }
    expect(report.warnings["dpo-uncredited-legacy"]).toBe(c.legacy ?? 0)
    expect(report.checked.sft + report.checked.dpo + report.checked.rollout).toBe(c.records.length)
  })
})

test("the screen is read back as the user turn writes it, empty or not", () => {
  const [shown, empty] = [sft([step(click("e1"))])[0]!, sft([step(click("e1"), "")])[0]!]
  const userText = (r: DatasetRecord) => (r.body.messages as Array<{ role: string; content: string }>)[1]!.content
  expect(screenView(userText(shown))).toBe(view(ELEMENTS))
  expect(screenView(userText(empty))).toBe("")
  expect(screenView("no screen here")).toBeNull()
})
