/**
 * Which instructions ask for a change, and which episodes have made one (exploration
 * version 6), table-driven; then the policy: a task that asks for a change is not declared
 * complete on a page the episode only navigated to.
 */
import { describe, expect, test } from "bun:test"
import { prng } from "@core/engine"
import type { Action } from "@core/events"
import { explorationRulesAt } from "@core/domain"
import { asksForChange, explorationAction, madeChange } from "../../mod.ts"
import type { PolicyElement, PolicyHistoryStep } from "../../mod.ts"

describe("asksForChange", () => {
  const cases: ReadonlyArray<[instruction: string, asks: boolean]> = [
    ['Add the tag "Urgent" to the tiddler "Water Pump".', true],
    ['In the tiddler "Fish Stew", change the word "cod" to "haddock" and change nothing else.', true],
    ['Create a new page titled "Spring Gala 2025" with the text "…".', true],
    ["Hide the decimal places of amounts in the settings.", true],
    ['Open the tiddler "Storm Protocol".', false],
    ["Follow the link from the Welcome page to the station lead.", false],
    ['Search the wiki for "spare fuses" and answer: where are they stored?', false],
    ["Check whether the pump is running.", false],
    // A verb of change inside a noun phrase is no request.
    ["Go to the page of the tag manager.", false]
  ]
  for (const [instruction, asks] of cases) test(`${instruction} → ${asks}`, () => expect(asksForChange(instruction)).toBe(asks))
})

const step = (action: Action, error: string | null = null): PolicyHistoryStep => ({ action, url: "/", error })
const target = (role: string, name: string) => ({ role, name, elementId: "e1", text: name })

describe("madeChange", () => {
  const cases: ReadonlyArray<[name: string, history: ReadonlyArray<PolicyHistoryStep>, made: boolean]> = [
    ["nothing yet", [], false],
    [
      "links and buttons only",
      [step({ kind: "click", target: target("link", "Generator G2") }), step({ kind: "click", target: target("button", "Edit") })],
      false
    ],
    ["a typed text", [step({ kind: "type", target: target("textbox", "Title"), text: "Fuel", submit: false })], true],
    ["a checkbox toggled", [step({ kind: "click", target: target("checkbox", "Hide decimal places") })], true],
    ["a key pressed", [step({ kind: "key", key: "Enter" })], true],
    [
      "a typing that failed",
      [step({ kind: "type", target: target("textbox", "Title"), text: "Fuel", submit: false }, "no such element")],
      false
    ]
  ]
  for (const [name, history, made] of cases) test(`${name} → ${made}`, () => expect(madeChange(history)).toBe(made))
})

describe("the exploration policy (version 6, completesAfterChange)", () => {
  const elements: ReadonlyArray<PolicyElement> = [
    {
      id: "e1",
      role: "link",
      name: "Generator G2",
      text: "Generator G2",
      value: null,
      checked: null,
      visible: true,
      enabled: true,
      editable: false
    },
    {
      id: "e2",
      role: "button",
      name: "Edit this tiddler",
      text: "Edit this tiddler",
      value: null,
      checked: null,
      visible: true,
      enabled: true,
      editable: false
    }
  ]
  const seed = (k: number) => new Bun.CryptoHasher("sha256").update(`change-${k}`).digest("hex")
  const run = (instruction: string, version: "5" | "6", history: ReadonlyArray<PolicyHistoryStep>) =>
    Array.from({ length: 300 }, (_, k) =>
      explorationAction({ instruction, url: "/", elements, history, stepBudget: 20 }, prng(seed(k)), {
        rules: explorationRulesAt(version),
        stopBias: 1
      })
    ).filter((a) => a.kind === "status").length
  const edit = 'In the tiddler "Generator G2", change the status from "running" to "offline".'
  const navigated = [step({ kind: "click", target: target("link", "Generator G2") })]

  test("given only a link clicked, version 5 often says complete; version 6 never does", () => {
    expect(run(edit, "5", navigated)).toBeGreaterThan(30)
    expect(run(edit, "6", navigated)).toBe(0)
  })
  test("given a change made, version 6 stops as version 5 does; a task that asks for none is not held back", () => {
    const changed = [...navigated, step({ kind: "type", target: target("textbox", "status"), text: "offline", submit: false })]
    expect(run(edit, "6", changed)).toBe(run(edit, "5", changed))
    expect(run('Open the tiddler "Generator G2".', "6", navigated)).toBe(run('Open the tiddler "Generator G2".', "5", navigated))
  })
  test("given the budget's last step, version 6 still ends the episode", () => {
    const last = explorationAction({ instruction: edit, url: "/", elements, history: navigated, stepBudget: 2 }, prng(seed(0)), {
      rules: explorationRulesAt("6")
    })
    expect(last).toEqual({ kind: "status", status: "complete" })
  })
})
