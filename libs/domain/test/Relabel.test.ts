/**
 * Failure relabelling's pure parts: the reference's rejection rules for a model's intent,
 * what part of a failed trajectory its pseudo-demo keeps, and the last screen's summary.
 */
import { describe, expect, test } from "bun:test"
import type { Action } from "@core/events"
import { MAX_INTENT_CHARS, parseIntent, relabelSteps, screenSummary } from "../mod.ts"
import type { LfElement } from "../mod.ts"

describe("parseIntent", () => {
  test("given an Intent: line among other text, then the intent is that line's text, unquoted and collapsed", () => {
    expect(parseIntent('The agent opened a category.\nIntent: "Open the  Kitchen category page."\n')).toEqual({
      kind: "intent",
      intent: "Open the Kitchen category page."
    })
    expect(parseIntent("**Intent:** Search for blue mugs and open the first result.")).toEqual({
      kind: "intent",
      intent: "Search for blue mugs and open the first result."
    })
  })

  test("given no Intent: line, then the whole answer is the intent", () => {
    expect(parseIntent("  Add the Blue Mug to the cart. ")).toEqual({ kind: "intent", intent: "Add the Blue Mug to the cart." })
  })

  test("given an answer marked INVALID, then it is rejected as invalid", () => {
    expect(parseIntent("INVALID")).toEqual({ kind: "rejected", rule: "invalid", text: "INVALID" })
    expect(parseIntent("Intent: INVALID — the actions undo each other")).toMatchObject({ kind: "rejected", rule: "invalid" })
  })

  test("given an intent over 1000 characters, then it is rejected as too long; at 1000 it is kept", () => {
    const words = (n: number) =>
      "Open the page "
        .repeat(Math.ceil(n / 14))
        .slice(0, n)
        .trim()
    expect(parseIntent(`Intent: ${words(MAX_INTENT_CHARS + 20)}`)).toMatchObject({ kind: "rejected", rule: "too-long" })
    const atLimit = words(MAX_INTENT_CHARS)
    expect(parseIntent(`Intent: ${atLimit}`)).toEqual({ kind: "intent", intent: atLimit })
  })

  test("given two words or fewer, then it is rejected as too short; three are enough", () => {
    expect(parseIntent("Intent: Kitchen category")).toEqual({ kind: "rejected", rule: "too-short", text: "Kitchen category" })
    expect(parseIntent("Intent: — Kitchen !")).toMatchObject({ kind: "rejected", rule: "too-short" })
    expect(parseIntent("")).toMatchObject({ kind: "rejected", rule: "too-short" })
    expect(parseIntent("Open Kitchen category")).toEqual({ kind: "intent", intent: "Open Kitchen category" })
  })
})

describe("relabelSteps", () => {
  const click: Action = { kind: "click", target: { role: "link", name: "Kitchen", elementId: "e1", text: "Kitchen" } }
  const wait: Action = { kind: "wait", ms: 500 }

  test("given a run that closed with 'complete', then every step is kept", () => {
    expect(relabelSteps([click, { kind: "status", status: "complete" }])).toBe(2)
  })

  test("given a run that closed with 'infeasible' after waiting, then the claim and the waits are dropped", () => {
    expect(relabelSteps([click, wait, { kind: "status", status: "infeasible" }])).toBe(1)
  })

  test("given a run of nothing but waits, then nothing is left", () => {
    expect(relabelSteps([wait, wait])).toBe(0)
  })
})

describe("screenSummary", () => {
  const el = (role: string, name: string, value: string | null = null): LfElement => ({ role, name, text: "", value, checked: null })

  test("given a page, then headings come first, duplicates and unnamed elements are left out, values shown", () => {
    const page = [el("link", "Home"), el("generic", ""), el("heading", "Kitchen"), el("link", "Home"), el("searchbox", "Search", "mug")]
    expect(screenSummary(page)).toBe('heading "Kitchen"\nsearchbox "Search" = "mug"\nlink "Home"')
  })

  test("given more elements than the cap, then only the cap is listed; given none, then it says so", () => {
    const many = Array.from({ length: 40 }, (_, i) => el("link", `Item ${i}`))
    expect(screenSummary(many, 5).split("\n")).toHaveLength(5)
    expect(screenSummary(null)).toBe("(not recorded)")
  })
})
