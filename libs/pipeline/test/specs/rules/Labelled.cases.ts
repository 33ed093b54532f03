/**
 * The exploration rules of versions 12 and 13, on a budget app's pages (Exploration12.test.ts):
 * a form filled as its labels read, a menu opened where the page names nothing of the task,
 * a code read as a phrase, and Enter pressed in a form the button before it opened.
 *
 * @example
 * labelled.entersWhenOpened // { run, before: "click Add group", after: "submit New group name" }
 */
import { explorationRulesAt } from "@core/domain"
import { explorationAction } from "@core/policy"
import type { PolicyElement, PolicyInput } from "@core/policy"
import type { Action } from "@core/events"
import { prng } from "@core/engine"
import type { Table } from "./Cases.ts"

let ids = 0
const el = (role: string, name: string, more: Partial<PolicyElement> = {}): PolicyElement => ({
  id: `b${ids++}`,
  role,
  name,
  text: role === "textbox" ? "" : name,
  value: role === "textbox" ? "" : null,
  visible: true,
  enabled: true,
  editable: role === "textbox",
  checked: role === "checkbox" ? false : null,
  ...more
})
const SEED = "0".repeat(64)
const seedOf = (i: number): string => new Bun.CryptoHasher("sha256").update(`seed-${i}`).digest("hex")
const onBudget = (instruction: string, page: ReadonlyArray<PolicyElement>, history: ReadonlyArray<Action> = []): PolicyInput => ({
  instruction,
  url: "/budget",
  elements: page,
  history: history.map((action) => ({ action, url: "/budget", error: null })),
  stepBudget: 12
})
const said = (a: Action): string =>
  `${a.kind} ${"target" in a && a.target !== null ? a.target.name : ""}${a.kind === "type" && a.submit ? " (submit)" : ""}`
/** How often each first action is drawn, over `n` seeds. */
const draws = (i: PolicyInput, v: string, n = 200) =>
  Array.from({ length: n }, (_, k) => said(explorationAction(i, prng(seedOf(k)), { rules: explorationRulesAt(v) })))
const share = (as: ReadonlyArray<string>, what: string) => as.filter((a) => a === what).length

const typed = (name: string, text: string): Action => ({
  kind: "type",
  target: { role: "textbox", name, elementId: "x", text: null },
  text
})
const pressed = (name: string): Action => ({ kind: "click", target: { role: "button", name, elementId: "g", text: name } })

export const labelled: Pick<Table["exploration"], "fillsAsLabelled" | "opensMenus" | "readsCodesWhole" | "entersWhenOpened"> = {
  fillsAsLabelled: {
    run: (v) => {
      // A dialog whose "Back" comes before its "Create", as a budget app's account dialog has it.
      const dialog = [
        el("textbox", "Name:"),
        el("checkbox", "Off budget"),
        el("textbox", "Balance:"),
        el("button", "Back"),
        el("button", "Create")
      ]
      const account = `Add a new on-budget account named "Holiday Fund" with a starting balance of 250.00.`
      return said(
        explorationAction(onBudget(account, dialog, [typed("Name:", "Holiday Fund")]), prng(SEED), { rules: explorationRulesAt(v) })
      )
    },
    before: "click Back",
    after: "type Balance:"
  },
  opensMenus: {
    run: (v) => {
      const sidebar = [
        el("link", "Budget"),
        el("link", "Reports"),
        el("button", "More"),
        el("button", "Add account"),
        ...["50.00", "40.00", "90.00", "300.00"].map((a) => el("button", a)),
        el("button", "Add group")
      ]
      return share(draws(onBudget(`In the settings, turn on "Hide decimal places".`, sidebar), v), "click More") > 40
    },
    before: false,
    after: true
  },
  readsCodesWhole: {
    run: (v) => {
      const formats = [el("button", "DD.MM.YYYY"), el("button", "YYYY-MM-DD"), el("link", "Reports")]
      const as = draws(onBudget("In the settings, change the date format to YYYY-MM-DD.", formats), v)
      return share(as, "click YYYY-MM-DD") > 2 * share(as, "click DD.MM.YYYY")
    },
    before: false,
    after: true
  },
  entersWhenOpened: {
    run: (v) => {
      const page = [el("textbox", "New group name"), el("button", "Add group"), el("link", "Budget")]
      const i = onBudget(`On the budget page, add a new category group named "Pets".`, page, [
        pressed("Add group"),
        typed("New group name", "Pets")
      ])
      return said(explorationAction(i, prng(SEED), { rules: explorationRulesAt(v), formBias: 1 }))
    },
    before: "click Add group",
    after: "type New group name (submit)"
  }
}
