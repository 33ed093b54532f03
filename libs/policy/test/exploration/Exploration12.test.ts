/**
 * Exploration 12. Forms filled as their labels read (`asLabelled`): given an instruction,
 * then amounts and slashed dates read whole; given a dialog or an entry row, then the
 * value each label cues past function words, dates typed as the field writes them, and
 * the submit button that does not go back. Menus (`opensMenus`): given a page that shows
 * nothing the instruction names, then an unopened "More" leads the draws. Each case also
 * pins what version 11 did, so old runs keep replaying as they ran.
 */
import { describe, expect, test } from "bun:test"
import { prng } from "@core/engine"
import { explorationRulesAt } from "@core/domain"
import { explorationAction, formPlans, instructionValues, pageForms } from "../../mod.ts"
import type { PlanOptions, PolicyElement } from "../../mod.ts"
import { overlap, termsOf } from "../../exploration/InstructionTerms.ts"
import type { TermOptions } from "../../exploration/InstructionTerms.ts"

let ids = 0
const el = (role: string, name: string, more: Partial<PolicyElement> = {}): PolicyElement => ({
  id: `e${ids++}`,
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

const ACCOUNT = `Add a new on-budget account named "Holiday Fund" with a starting balance of 250.00.`
const TRANSACTION = `In the Checking account, add a transaction dated 11/24/2026: payee "Gull Point Pharmacy", category Health, payment 18.40.`

/** A dialog whose "Back" comes before its "Create", as a budget app's account dialog has it. */
const accountDialog = (): ReadonlyArray<PolicyElement> => [
  el("textbox", "Name:"),
  el("checkbox", "Off budget"),
  el("textbox", "Balance:"),
  el("button", "Back"),
  el("button", "Create")
]

/** An entry row of text fields, the date field showing today's date with slashes. */
const entryRow = (): ReadonlyArray<PolicyElement> => [
  el("textbox", "Date", { value: "12/06/2026" }),
  el("textbox", "Payee"),
  el("textbox", "Notes"),
  el("textbox", "Category"),
  el("textbox", "Payment"),
  el("textbox", "Deposit"),
  el("button", "Cancel"),
  el("button", "Add")
]

const SEED = "0".repeat(64)
/** Seeds spread as a run's are: a digest per draw. */
const seedOf = (i: number): string => new Bun.CryptoHasher("sha256").update(`seed-${i}`).digest("hex")
const V12_TERMS: TermOptions = { amountsWhole: true, codesWhole: true, wholeLabels: true }
const V11: PlanOptions = { orders: true }
const V12: PlanOptions = { orders: true, asLabelled: true }

const fillsOf = (instruction: string, page: ReadonlyArray<PolicyElement>, options: PlanOptions) =>
  formPlans(instruction, page, options).map((p) => ({
    submit: p.form.submit.name,
    fills: p.fills.map((f) => [f.field.name, f.action.kind === "type" ? f.action.text : ""])
  }))

describe("values read as written", () => {
  const cases: ReadonlyArray<[string, string, boolean, ReadonlyArray<string>]> = [
    ["an amount, version 11", "a balance of 250.00", false, ["number:250", "number:00"]],
    ["an amount, version 12", "a balance of 250.00", true, ["number:250.00=250"]],
    ["thousands", "move 1,250.50 to Gifts", true, ["number:1,250.50=1250.5", "proper:Gifts"]],
    ["a month-first date", "dated 11/24/2026", true, ["date:11/24/2026 2026-11-24"]],
    ["a day-first date", "dated 24/11/2026", true, ["date:24/11/2026 2026-11-24"]],
    ["an ambiguous date keeps no day", "dated 05/06/2026", true, ["date:05/06/2026"]],
    ["a slashed date, version 11", "dated 11/24/2026", false, ["number:11", "number:24", "number:2026"]]
  ]
  test.each(cases)("given %s, then the values", (_, instruction, asWritten, expected) => {
    const brief = instructionValues(instruction, { asWritten }).map(
      (v) => `${v.kind}:${v.text}${v.iso === null ? "" : ` ${v.iso}`}${v.kind === "number" && v.text.includes(".") ? `=${v.count}` : ""}`
    )
    expect(brief).toEqual([...expected])
  })
})

describe("forms as their labels read", () => {
  test("given a dialog with Back before Create, then version 12 submits with Create and version 11 with Back", () => {
    expect(pageForms(accountDialog(), V12).map((f) => [f.fields.map((e) => e.name), f.submit.name])).toEqual([
      [["Name:", "Balance:"], "Create"]
    ])
    expect(pageForms(accountDialog(), V11).map((f) => f.submit.name)).toEqual(["Back"])
  })

  test("given a starting balance of 250.00, then version 12 fills the name and the balance; version 11 the name only", () => {
    expect(fillsOf(ACCOUNT, accountDialog(), V12)).toEqual([
      {
        submit: "Create",
        fills: [
          ["Name:", "Holiday Fund"],
          ["Balance:", "250.00"]
        ]
      }
    ])
    expect(fillsOf(ACCOUNT, accountDialog(), V11)).toEqual([{ submit: "Back", fills: [["Name:", "Holiday Fund"]] }])
  })

  test("given an entry row, then each field takes the value its label cues, the date as the field writes dates", () => {
    expect(fillsOf(TRANSACTION, entryRow(), V12)).toEqual([
      {
        submit: "Add",
        fills: [
          ["Date", "11/24/2026"],
          ["Payee", "Gull Point Pharmacy"],
          ["Category", "Health"],
          ["Payment", "18.40"]
        ]
      }
    ])
  })

  test("given a date field that shows dates another way, then the date as the web writes it, or nothing when the day is unknown", () => {
    const isoRow = [el("textbox", "Date", { value: "2026-12-06" }), el("textbox", "Payment"), el("button", "Add")]
    expect(fillsOf(TRANSACTION, isoRow, V12)[0]!.fills).toEqual([
      ["Date", "2026-11-24"],
      ["Payment", "18.40"]
    ])
    expect(fillsOf("Add a payment of 18.40 dated 05/06/2026", isoRow, V12)[0]!.fills).toEqual([["Payment", "18.40"]])
  })

  test("given a dialog of only dismissing buttons, then no form: nothing there submits", () => {
    expect(pageForms([el("textbox", "Name:"), el("button", "Cancel"), el("button", "Close")], V12)).toEqual([])
  })
})

describe("the exploration policy, version 12", () => {
  const input = (history: ReadonlyArray<{ action: import("@core/events").Action }>) => ({
    instruction: ACCOUNT,
    url: "http://app.test/budget",
    elements: accountDialog(),
    history: history.map((h) => ({ ...h, url: "http://app.test/budget", error: null })),
    stepBudget: 12
  })

  test("given a plan under way, then version 12 types the balance and submits with Create, never Back", () => {
    const name = { kind: "type", target: { role: "textbox", name: "Name:", elementId: "x", text: null }, text: "Holiday Fund" } as const
    const next = explorationAction(input([{ action: name }]), prng(SEED), { rules: explorationRulesAt("12") })
    expect(next).toMatchObject({ kind: "type", target: { name: "Balance:" }, text: "250.00" })
    const balance = { ...name, target: { ...name.target, name: "Balance:" }, text: "250.00" }
    const submit = explorationAction(input([{ action: name }, { action: balance }]), prng(SEED), { rules: explorationRulesAt("12") })
    expect(submit).toMatchObject({ kind: "click", target: { name: "Create" } })
    expect(explorationAction(input([{ action: name }]), prng(SEED), { rules: explorationRulesAt("11") })).toMatchObject({
      kind: "click",
      target: { name: "Back" }
    })
  })
})

describe("menus, version 12", () => {
  const SETTINGS = `In the settings, turn on "Hide decimal places".`
  /** A sidebar whose settings sit behind "More", beside a budget table's amounts. */
  const sidebar = (extra: ReadonlyArray<PolicyElement> = []): ReadonlyArray<PolicyElement> => [
    el("link", "Budget"),
    el("link", "Reports"),
    el("link", "Schedules"),
    el("button", "More"),
    el("link", "Checking 3,783.90"),
    el("button", "Add account"),
    el("button", "Help"),
    ...["50.00", "40.00", "90.00", "950.00", "300.00", "30.00", "0.00", "12.00"].map((a) => el("button", a)),
    el("button", "Add group"),
    // Each month's own menu: a repeated name acts on its item, so it gets no pull.
    el("button", "Menu"),
    el("button", "Menu"),
    el("button", "Menu"),
    ...extra
  ]
  const firstClicks = (page: ReadonlyArray<PolicyElement>, version: "11" | "12", opened = false) => {
    const counts = new Map<string, number>()
    for (let i = 0; i < 200; i++) {
      const history = opened
        ? [
            {
              action: { kind: "click", target: { role: "button", name: "More", elementId: "m", text: "More" } } as const,
              url: "/budget",
              error: null
            }
          ]
        : []
      const a = explorationAction({ instruction: SETTINGS, url: "/budget", elements: page, history, stepBudget: 12 }, prng(seedOf(i)), {
        rules: explorationRulesAt(version)
      })
      const name = "target" in a && a.target !== null ? (a.target.name ?? "") : a.kind
      counts.set(name, (counts.get(name) ?? 0) + 1)
    }
    return counts
  }

  test("given a page that names nothing of the task, then version 12 opens the page's one menu far more often than 11, and no item's menu", () => {
    const v12 = firstClicks(sidebar(), "12").get("More") ?? 0
    const v11 = firstClicks(sidebar(), "11").get("More") ?? 0
    expect(v12).toBeGreaterThan(40)
    expect(v11).toBeLessThan(30)
    expect(v12).toBeGreaterThan(2 * v11)
    expect(firstClicks(sidebar(), "12").get("Menu") ?? 0).toBeLessThan(30)
  })

  test("given a page that shows what the task names, then no pull: the named link leads and the menu is drawn no more than under 11", () => {
    const named = sidebar([el("link", "Settings")])
    const v12 = firstClicks(named, "12")
    expect(v12.get("More") ?? 0).toBeLessThanOrEqual(firstClicks(named, "11").get("More") ?? 0)
    expect(v12.get("Settings") ?? 0).toBeGreaterThan(40)
  })

  test("given the file menu its last step opened, then version 12 never clicks it again (that closes it) and picks the item; 11 mostly closed it", () => {
    const RENAME = `Rename the budget file "Harbor Household" to "Harbor Family Budget".`
    const page = [
      el("button", "Harbor Household"),
      el("button", "Rename budget"),
      el("button", "Close file"),
      el("link", "Reports"),
      el("link", "Budget")
    ]
    const opened = [
      {
        action: { kind: "click", target: { role: "button", name: "Harbor Household", elementId: "h", text: null } } as const,
        url: "/budget",
        error: null
      }
    ]
    const draws = (version: "11" | "12") =>
      Array.from({ length: 100 }, (_, i) => {
        const a = explorationAction(
          { instruction: RENAME, url: "/budget", elements: page, history: opened, stepBudget: 12 },
          prng(seedOf(i)),
          { rules: explorationRulesAt(version) }
        )
        return "target" in a && a.target !== null ? a.target.name : a.kind
      })
    const v12 = draws("12")
    expect(v12.filter((n) => n === "Harbor Household")).toHaveLength(0)
    expect(v12.filter((n) => n === "Rename budget").length).toBeGreaterThan(50)
    expect(draws("11").filter((n) => n === "Harbor Household").length).toBeGreaterThan(40)
  })
})

describe("terms read whole, version 12", () => {
  const FORMAT = "In the settings, change the date format to YYYY-MM-DD."
  const cases: ReadonlyArray<[string, string, TermOptions, number]> = [
    ["a code split, version 11", "DD.MM.YYYY", { amountsWhole: true }, 3],
    ["the same code split, version 11", "YYYY-MM-DD", { amountsWhole: true }, 3],
    ["another code, version 12: a whole label, not the code", "DD.MM.YYYY", V12_TERMS, 4],
    ["the code asked for, version 12", "YYYY-MM-DD", V12_TERMS, 7],
    ["a whole label, version 12", "Settings", V12_TERMS, 2],
    ["a whole label, version 11", "Settings", { amountsWhole: true }, 1],
    ["a label that says more, version 12", "Settings and sync", V12_TERMS, 1],
    ["a label that says nothing of it", "Reports", V12_TERMS, 0]
  ]
  test.each(cases)("given %s, then its overlap", (_, label, options, expected) => {
    expect(overlap(termsOf(FORMAT, options), label)).toBe(expected)
  })
})

describe("the button that opened a form, version 13", () => {
  const PETS = `On the budget page, add a new category group named "Pets".`
  /** The budget page once "Add group" opened its name field: the field, then that button again. */
  const page = [el("textbox", "New group name"), el("button", "Add group"), el("link", "Budget")]
  const clicked = { kind: "click", target: { role: "button", name: "Add group", elementId: "g", text: "Add group" } } as const
  const typed = { kind: "type", target: { role: "textbox", name: "New group name", elementId: "n", text: null }, text: "Pets" } as const
  const step = (action: import("@core/events").Action) => ({ action, url: "/budget", error: null })
  const next = (history: ReadonlyArray<import("@core/events").Action>, version: "12" | "13") =>
    explorationAction({ instruction: PETS, url: "/budget", elements: page, history: history.map(step), stepBudget: 12 }, prng(SEED), {
      rules: explorationRulesAt(version),
      formBias: 1
    })

  test("given the name typed into the field that Add group opened, then 13 presses Enter there; 12 clicked Add group again", () => {
    expect(next([clicked, typed], "13")).toMatchObject({ kind: "type", target: { name: "New group name" }, text: "Pets", submit: true })
    expect(next([clicked, typed], "12")).toMatchObject({ kind: "click", target: { name: "Add group" } })
  })

  test("given the field just opened, then 13 types the name first, as 12 did", () => {
    expect(next([clicked], "13")).toMatchObject({ kind: "type", target: { name: "New group name" }, text: "Pets" })
    expect(next([clicked], "12")).toMatchObject({ kind: "type", target: { name: "New group name" }, text: "Pets" })
  })

  test("given a form some other click led to, then its button still submits", () => {
    const other = { kind: "click", target: { role: "link", name: "Budget", elementId: "b", text: "Budget" } } as const
    expect(next([other, typed], "13")).toMatchObject({ kind: "click", target: { name: "Add group" } })
  })
})
