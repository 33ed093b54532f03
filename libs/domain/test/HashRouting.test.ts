/**
 * Apps that route by the URL's fragment (a wiki whose pages are `/#Title`): with
 * `hashRouting` the fragment is part of the page, so following a link is navigation, the
 * page a demo ended on is evidence, and a search that reaches the same page another way
 * passes the same label functions. Without it a fragment stays an in-page anchor, exactly
 * as before.
 */
import { describe, expect, test } from "bun:test"
import type { Observation, TrajectoryStep } from "@core/events"
import { identifyKeySteps } from "../KeySteps.ts"
import { nativeLabelFunction } from "../LfApi.ts"
import { fromRecordedSteps, sitePath } from "../LfTrajectory.ts"
import { synthesizeCandidates } from "../Synthesizer.ts"

const BASE = "http://127.0.0.1:41234"

const observation = (url: string): Observation =>
  ({ url: `${BASE}${url}`, title: null, app: null, elements: null, tree: null, screenshot: null, error: null }) as unknown as Observation

const step = (action: TrajectoryStep["action"], url: string): TrajectoryStep =>
  ({ action, observation: observation(url) }) as unknown as TrajectoryStep

const link = (name: string): TrajectoryStep["action"] =>
  ({ kind: "click", target: { role: "link", name, text: name, elementId: "e1" } }) as TrajectoryStep["action"]

/** Open "Storm Protocol" through the "Procedures" index, as a person browsing would. */
const byLinks = [
  step(link("Procedures"), "/#Procedures"),
  step(link("Storm Protocol"), "/#Storm%20Protocol"),
  step({ kind: "status", status: "complete" }, "/#Storm%20Protocol")
]

/** The same tiddler found by search instead. */
const bySearch = [
  step(
    {
      kind: "type",
      target: { role: "searchbox", name: "Search", text: null, elementId: "e2" },
      text: "Storm",
      submit: false
    } as TrajectoryStep["action"],
    "/"
  ),
  step(link("Storm Protocol"), "/#Storm%20Protocol"),
  step({ kind: "status", status: "complete" }, "/#Storm%20Protocol")
]

/** A different tiddler. */
const wrongPage = [step(link("Procedures"), "/#Procedures"), step({ kind: "status", status: "complete" }, "/#Procedures")]

const lfTrajectory = (steps: ReadonlyArray<TrajectoryStep>, hashRouting: boolean) =>
  fromRecordedSteps(observation("/"), steps, () => null, hashRouting)

describe("sitePath", () => {
  test.each([
    ["http://h:1/wiki/page?x=1#Storm%20Protocol", false, "/wiki/page?x=1"],
    ["http://h:1/wiki/page?x=1#Storm%20Protocol", true, "/wiki/page?x=1#Storm%20Protocol"],
    ["http://h:1/#/inbox/3", true, "/#/inbox/3"],
    ["http://h:1/shop/cart#main", false, "/shop/cart"],
    ["/already/reduced#Title", true, "/already/reduced#Title"],
    [null, true, null]
  ] as const)("%p with hashRouting %p is %p", (url, hashRouting, expected) => {
    expect(sitePath(url, hashRouting)).toBe(expected)
  })
})

describe("label functions on a hash-routed app", () => {
  test("without hashRouting every link click stays on one page, so each is a key step and the search path fails", () => {
    const demo = lfTrajectory(byLinks, false)
    expect(demo.steps.map((s) => s.urlAfter)).toEqual(["/", "/", "/"])
    const keys = identifyKeySteps(demo)
    expect(keys.map((k) => [k.stepIndex, k.reason])).toEqual([
      [0, "state-changing"],
      [1, "state-changing"],
      [2, "final-status"]
    ])
    const viaIndex = nativeLabelFunction(synthesizeCandidates(demo, keys[0]!)[0]!.code)
    expect(viaIndex(lfTrajectory(bySearch, false))).toBe(-1)
  })

  test("with hashRouting the links are navigation, the page reached is the evidence, and only the right page passes", () => {
    const demo = lfTrajectory(byLinks, true)
    const keys = identifyKeySteps(demo)
    expect(keys.map((k) => [k.stepIndex, k.reason])).toEqual([
      [1, "reaches-final-page"],
      [2, "final-status"]
    ])
    const reached = synthesizeCandidates(demo, keys[0]!)[0]!
    expect(reached.code).toContain('validateUrl(t, "^/#Storm%20Protocol(\\\\?.*)?$")')
    const lf = nativeLabelFunction(reached.code)
    expect(lf(lfTrajectory(bySearch, true))).toBe(1)
    expect(lf(lfTrajectory(wrongPage, true))).toBe(-1)
  })
})
