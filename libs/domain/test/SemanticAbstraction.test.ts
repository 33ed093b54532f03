/**
 * Given a demo, when its steps are described, its key steps identified and LFs synthesized
 * and judged, then… — the pure half of Semantic Code Abstraction, no sandbox needed.
 */
import { describe, expect, test } from "bun:test"
import {
  describeStep,
  holdsInOrder,
  identifyKeySteps,
  judgeCandidate,
  nativeLabelFunction,
  prefixOf,
  synthesizeCandidates,
  urlPattern
} from "../mod.ts"
import type { LfTrajectory } from "../mod.ts"
import { act, buyDemo, el, trajectory } from "./fixtures.ts"

const accepted = (t: LfTrajectory) =>
  identifyKeySteps(t).map((k) => {
    for (const c of synthesizeCandidates(t, k)) {
      const lf = nativeLabelFunction(c.code)
      const v = (x: LfTrajectory) => ({ kind: "ok" as const, satisfiedAt: lf(x) as number })
      const j = judgeCandidate({ keyStepIndex: k.stepIndex, demo: v(t), prefix: v(prefixOf(t, k.stepIndex)), failures: [] })
      if (j.accepted) return { k, c, lf }
    }
    return { k, c: null, lf: null }
  })

/** The task-level label: every accepted LF holds, in order. */
const label = (lfs: ReturnType<typeof accepted>, t: LfTrajectory) =>
  holdsInOrder(lfs.length, (i, from) =>
    lfs[i]!.lf === null ? -1 : (lfs[i]!.lf!({ ...t, steps: t.steps.filter((s) => s.index >= from) }) as number)
  ).pass

describe("step descriptions follow the reference's templates", () => {
  test("each action kind", () => {
    expect(describeStep(act("click", { role: "button", name: "Add to cart" }))).toBe(
      "Click on a UI element 'Add to cart' (button) on the screen."
    )
    expect(describeStep(act("type", { role: "searchbox", name: "Search in ALL RECIPES", typed: "black garlic" }))).toBe(
      "Type text 'black garlic' into the 'Search in ALL RECIPES'."
    )
    expect(describeStep(act("open_app", { app: "Clock" }))).toBe("Open an app named 'Clock'.")
    expect(describeStep(act("scroll", { direction: "down" }))).toBe("Scroll down on the screen.")
    expect(describeStep(act("home"))).toBe("Navigate to the home screen.")
    expect(describeStep(act("answer", { answer: "42" }))).toBe("Answer user's question with text: '42'")
    expect(describeStep(act("status", { status: "complete" }))).toBe("Set the task's status as 'complete'.")
  })
})

describe("embedded key-step identification", () => {
  test("drops scrolls, focus-only clicks and plain navigation; keeps state changes and the final status", () => {
    const keys = identifyKeySteps(buyDemo())
    expect(keys.map((k) => [k.stepIndex, k.reason])).toEqual([
      [0, "state-changing"], // the search typed
      [3, "state-changing"], // quantity (the click at 2 only focused the field)
      [5, "state-changing"], // Add to cart
      [8, "state-changing"], // full name
      [9, "state-changing"], // the radio
      [10, "state-changing"], // Place order
      [11, "final-status"]
    ])
  })

  test("a navigation task keeps the step that reached the final page; a retyped field keeps its last value", () => {
    const t = trajectory("/shop/", [
      { action: act("click", { role: "link", name: "Books" }), urlAfter: "/shop/category/books" },
      { action: act("type", { role: "textbox", name: "Note", typed: "frist" }) },
      { action: act("type", { role: "textbox", name: "Note", typed: "first" }) },
      { action: act("click", { role: "link", name: "Electronics" }), urlAfter: "/shop/category/electronics" },
      { action: act("click", { role: "button", name: "Refresh" }) },
      { action: act("click", { role: "button", name: "Refresh" }) },
      { action: act("status", { status: "complete" }) }
    ])
    expect(identifyKeySteps(t).map((k) => [k.stepIndex, k.reason])).toEqual([
      [2, "state-changing"],
      [3, "reaches-final-page"],
      [4, "state-changing"],
      [6, "final-status"]
    ])
  })
})

describe("embedded synthesis combines action and state evidence", () => {
  test("URL patterns: path literal, query parameters in any order, minted ids generalised", () => {
    const p = new RegExp(urlPattern("/shop/search?q=red+kettle&page=2"))
    expect(p.test("/shop/search?page=2&q=red+kettle")).toBe(true)
    expect(p.test("/shop/search?q=blue+kettle&page=2")).toBe(false)
    expect(new RegExp(urlPattern("/shop/category/toys")).test("/shop/category/toys?sort=price")).toBe(true)
    expect(new RegExp(urlPattern("/shop/product/17")).test("/shop/product/18")).toBe(false)
    expect(new RegExp(urlPattern("/shop/orders/O-1001?placed=1", { minted: true })).test("/shop/orders/O-2002?placed=1")).toBe(true)
    expect(new RegExp(urlPattern("/feed?since=1733151222")).test("/feed?since=1733159999")).toBe(true)
  })

  test("the strongest candidate checks the click, the page it happened on and the page after it", () => {
    const t = buyDemo()
    const add = identifyKeySteps(t).find((k) => k.stepIndex === 5)!
    const [best] = synthesizeCandidates(t, add)
    expect(best!.evidence).toBe("action+state")
    expect(best!.code).toContain(`validateClick(t, "button", "Add to cart"`)
    expect(best!.code).toContain("urlBefore")
    expect(best!.code).toContain("added=cart")
    expect(best!.code).not.toMatch(/elementId|data-core-id/)
    const radio = synthesizeCandidates(t, identifyKeySteps(t).find((k) => k.stepIndex === 9)!)[0]!
    expect(radio.code).toContain(`hasElement(s, "radio", "Express", { checked: true })`)
  })

  test("every key step of the demo gets an LF that holds on it and not on its prefix", () => {
    const lfs = accepted(buyDemo())
    expect(lfs.every((l) => l.lf !== null)).toBe(true)
    expect(label(lfs, buyDemo())).toBe(true)
  })

  test("the LFs tell the same task done another time from a wrong item, a wrong value and a wrong status", () => {
    const lfs = accepted(buyDemo())
    // Same path, same values, but with detours: still the task.
    const detour = buyDemo()
    const withDetour: LfTrajectory = {
      ...detour,
      steps: [...detour.steps.slice(0, 5), { ...detour.steps[4]!, action: act("wait"), index: 0 }, ...detour.steps.slice(5)].map(
        (s, index) => ({ ...s, index })
      )
    }
    expect(label(lfs, withDetour)).toBe(true)
    expect(label(lfs, buyDemo("Blue Kettle", "blue-kettle"))).toBe(false)
    expect(label(lfs, buyDemo("Red Kettle", "red-kettle", "3"))).toBe(false)
    const infeasible = buyDemo()
    expect(
      label(lfs, {
        ...infeasible,
        steps: infeasible.steps.map((s) => (s.action.kind === "status" ? { ...s, action: act("status", { status: "infeasible" }) } : s))
      })
    ).toBe(false)
    expect(el("link", "a").checked).toBeNull()
  })
})

describe("validation (given the sandbox's verdicts, then a judgement)", () => {
  const ok = (satisfiedAt: number) => ({ kind: "ok" as const, satisfiedAt })
  test("accepted only when it holds at/after the key step, not on the prefix, not on failures", () => {
    expect(judgeCandidate({ keyStepIndex: 3, demo: ok(3), prefix: ok(-1), failures: [{ trajectoryId: "f1", verdict: ok(-1) }] })).toEqual({
      accepted: true,
      onDemoAtKeyStep: 3,
      onPrefix: false,
      onFailures: [{ trajectoryId: "f1", result: -1 }]
    })
    expect(judgeCandidate({ keyStepIndex: 3, demo: ok(-1), prefix: ok(-1), failures: [] })).toMatchObject({
      accepted: false,
      reason: "false on its source demo"
    })
    expect(judgeCandidate({ keyStepIndex: 3, demo: ok(1), prefix: ok(1), failures: [] })).toMatchObject({
      accepted: false,
      reason: "held at step 1, before its key step 3"
    })
    expect(judgeCandidate({ keyStepIndex: 3, demo: ok(3), prefix: ok(0), failures: [] })).toMatchObject({
      accepted: false,
      reason: "true on the prefix before its key step (at step 0)"
    })
    expect(
      judgeCandidate({ keyStepIndex: 3, demo: ok(3), prefix: ok(-1), failures: [{ trajectoryId: "f1", verdict: ok(5) }] })
    ).toMatchObject({ accepted: false, reason: "true on the failing trajectory f1 (at step 5)" })
    expect(
      judgeCandidate({ keyStepIndex: 3, demo: { kind: "error", reason: "budget: over 100 interrupts" }, prefix: ok(-1), failures: [] })
    ).toMatchObject({ accepted: false, infra: false })
    expect(
      judgeCandidate({ keyStepIndex: 3, demo: ok(3), prefix: { kind: "infra-error", reason: "deadline" }, failures: [] })
    ).toMatchObject({ accepted: false, infra: true })
  })

  test("holdsInOrder lets a later occurrence count when the first is out of order", () => {
    const at = (i: number, from: number) => [[1, 4], [2]][i]!.find((s) => s >= from) ?? -1
    expect(holdsInOrder(2, at)).toEqual({ pass: true, steps: [1, 2] })
    expect(holdsInOrder(2, (i, from) => [[4], [2]][i]!.find((s) => s >= from) ?? -1)).toEqual({ pass: false, steps: [4] })
  })
})
