/**
 * Given an instruction, a page's elements and the episode so far, when the model-free
 * exploration policy draws its next action from a seeded PRNG, then… — counted over many
 * seeds where the rule is a bias rather than a certainty.
 */
import { describe, expect, test } from "bun:test"
import { prng } from "@core/engine"
import type { Action } from "@core/events"
import { explorationRulesAt } from "@core/domain"
import type { ExplorationVersion } from "@core/domain"
import { explorationAction, instructionTerms, isQuestion, textToType } from "../../mod.ts"
import type { ExplorationOptions, PolicyElement, PolicyHistoryStep, PolicyInput } from "../../mod.ts"

const seed = (i: number): string => new Bun.CryptoHasher("sha256").update(`explore-${i}`).digest("hex")

let ids = 0
const el = (role: string, name: string, more: Partial<PolicyElement> = {}): PolicyElement => ({
  id: `e${ids++}`,
  role,
  name,
  text: name,
  value: null,
  visible: true,
  enabled: true,
  editable: false,
  checked: null,
  ...more
})

const click = (role: string, name: string): PolicyHistoryStep => ({
  action: { kind: "click", target: { role, name, elementId: "old", text: name } },
  url: "/shop/",
  error: null
})

const input = (instruction: string, elements: ReadonlyArray<PolicyElement>, more: Partial<PolicyInput> = {}): PolicyInput => ({
  instruction,
  url: "/shop/",
  elements,
  history: [],
  stepBudget: 20,
  ...more
})

/** The action for each of `n` seeds, by the rules of `version` (the first's without one). */
const sample = (
  i: PolicyInput,
  n = 500,
  { version, ...options }: Omit<ExplorationOptions, "rules"> & { readonly version?: ExplorationVersion } = {}
): ReadonlyArray<Action> =>
  Array.from({ length: n }, (_, k) => explorationAction(i, prng(seed(k)), { ...options, rules: explorationRulesAt(version) }))

const targetName = (a: Action): string | null => ("target" in a && a.target !== null ? a.target.name : null)
const count = (as: ReadonlyArray<Action>, p: (a: Action) => boolean): number => as.filter(p).length

const shop = [
  el("link", "Kitchen"),
  el("link", "Garden Tools"),
  el("link", "Books"),
  el("link", "Toys"),
  el("button", "Sign in"),
  el("link", "Help"),
  el("link", "Hidden", { visible: false }),
  el("button", "Disabled", { enabled: false })
]

describe("instruction terms", () => {
  test("given an instruction, then lower-cased words minus stop words, then quoted phrases", () => {
    expect(instructionTerms(`Add the 'Red Kettle' to my cart, 2 of them`)).toEqual(["add", "red", "kettle", "cart", "2", "red kettle"])
    expect(instructionTerms(`Find the user's "Blue  Mug" review`)).toEqual(["find", "user", "blue", "mug", "review", "blue mug"])
  })

  test("given questions and orders, then questions are told apart", () => {
    expect(isQuestion("How many items are in the cart?")).toBe(true)
    expect(isQuestion("Which board has the most posts")).toBe(true)
    expect(isQuestion("Is the kettle in stock?")).toBe(true)
    expect(isQuestion("Add the kettle to the cart")).toBe(false)
  })
})

describe("determinism", () => {
  test("given the same input and the same draws, then the same action, without Math.random or the clock", () => {
    const i = input("Open the Garden Tools category", shop, { history: [click("link", "Kitchen")] })
    const random = Math.random
    const now = Date.now
    Math.random = () => {
      throw new Error("Math.random read")
    }
    Date.now = () => {
      throw new Error("clock read")
    }
    try {
      expect(sample(i, 50)).toEqual(sample(i, 50))
    } finally {
      Math.random = random
      Date.now = now
    }
  })
})

describe("choosing an element", () => {
  const i = input("Open the Garden Tools category", shop, { history: [click("link", "Kitchen")] })
  const actions = sample(i)

  test("given an element overlapping the instruction, then it is chosen most of the time but not always", () => {
    const garden = count(actions, (a) => targetName(a) === "Garden Tools")
    expect(garden).toBeGreaterThan(300)
    expect(garden).toBeLessThan(500)
    expect(garden).toBeGreaterThan(5 * count(actions, (a) => targetName(a) === "Books"))
  })

  test("given an element already clicked in the episode, then it is chosen less often than an untouched one", () => {
    const kitchen = count(actions, (a) => targetName(a) === "Kitchen")
    expect(kitchen).toBeLessThan(count(actions, (a) => targetName(a) === "Books"))
    expect(count(actions, (a) => targetName(a) === "Garden Tools")).toBeGreaterThan(10 * Math.max(1, kitchen))
  })

  test("given hidden and disabled elements, then they are never chosen; targets carry the element id, never empty text", () => {
    expect(count(actions, (a) => targetName(a) === "Hidden" || targetName(a) === "Disabled")).toBe(0)
    const a = actions.find((x) => targetName(x) === "Garden Tools")!
    expect(a).toEqual({ kind: "click", target: { role: "link", name: "Garden Tools", elementId: shop[1]!.id, text: "Garden Tools" } })
    const icon = el("button", "Search", { text: "" })
    const b = sample(input("search", [icon]), 1)[0]!
    expect(b).toEqual({ kind: "click", target: { role: "button", name: "Search", elementId: icon.id, text: null } })
  })
})

describe("typing into an editable field", () => {
  const box = (value: string | null) => el("searchbox", "Search products", { editable: true, value })

  test("given a quoted phrase, then the field gets it, submitted", () => {
    const typed = sample(input(`Search for "Red Kettle" and open it`, [box(""), el("link", "Home")])).filter((a) => a.kind === "type")
    expect(typed.length).toBeGreaterThan(250)
    for (const a of typed)
      expect(a).toMatchObject({ kind: "type", target: { role: "searchbox", name: "Search products" }, text: "Red Kettle", submit: true })
  })

  test("given no quotes, then the longest run after a cue word; else the terms the page does not show", () => {
    expect(textToType("Find a user named Noor Alvarez and message them", [])).toBe("Noor Alvarez")
    expect(textToType("Search for red kettle, then add it to the cart", [])).toBe("red kettle")
    expect(textToType("Show blue kettles", [el("link", "Blue"), el("link", "Hidden kettles", { visible: false })])).toBe("show kettles")
    expect(textToType("Home", [el("link", "Home")])).toBe(null)
  })

  test("given a field whose value already equals the text, then it is never typed into again", () => {
    const as = sample(input(`Search for "Red Kettle"`, [box("red  kettle"), el("link", "Home")]), 200)
    expect(count(as, (a) => a.kind === "type")).toBe(0)
  })
})

describe("stopping", () => {
  test("given the budget's last step, then status complete, whatever the draws", () => {
    const i = input("Open the Garden Tools category", shop, { history: [click("link", "Books"), click("link", "Toys")], stepBudget: 3 })
    expect(sample(i, 100).every((a) => a.kind === "status" && a.status === "complete")).toBe(true)
  })

  test("given a question at the budget, then an answer from the best-overlapping element (its number for 'how many')", () => {
    const page = [el("link", "Cart (3)"), el("link", "On sale"), el("link", "Help")]
    const i = input("How many items are in the cart?", page, { history: [click("link", "Help")], stepBudget: 2 })
    expect(sample(i, 20).every((a) => a.kind === "answer" && a.text === "3")).toBe(true)
    const order = input("What is the order number?", [el("status", "Order number", { text: "O-1001" }), el("link", "Home")], {
      history: [click("link", "Home")],
      stepBudget: 2
    })
    expect(explorationAction(order, prng(seed(0)))).toEqual({ kind: "answer", text: "O-1001" })
  })

  test("given no history, then never a stop, even with the highest stop bias", () => {
    const as = sample(input("Open the Garden Tools category", shop), 300, { stopBias: 1 })
    expect(count(as, (a) => a.kind === "status" || a.kind === "answer")).toBe(0)
  })

  test("given the last target matched the instruction well, then stops become likely; after an unrelated one, none", () => {
    const instruction = "Open the Garden Tools category"
    const matched = sample(input(instruction, shop, { history: [click("link", "Garden Tools category")] }))
    const unrelated = sample(input(instruction, shop, { history: [click("link", "Books")] }))
    const stops = (as: ReadonlyArray<Action>) => count(as, (a) => a.kind === "status")
    expect(stops(matched)).toBeGreaterThan(150) // stopBias 0.5 × full match
    expect(stops(matched)).toBeLessThan(350)
    expect(stops(unrelated)).toBe(0)
    const question = sample(input("Which garden tools category?", shop, { history: [click("link", "Garden Tools category")] }))
    expect(count(question, (a) => a.kind === "answer")).toBeGreaterThan(150)
    expect(count(question, (a) => a.kind === "status")).toBe(0)
  })
})

describe("reading the answer off the page (version 3)", () => {
  const results = `- list "Flights":
  - listitem:
    - 'heading "MR707: Athens to Barcelona" [level=3]'
    - paragraph: Meridian Air · departs 11:25, arrives 14:35 · 3 h 10 min · 1 stop
    - link "Details of flight MR707":
      - text: Flight details`
  const elements = [el("link", "Details of flight MR707"), el("link", "Home"), el("link", "Hotels")]
  const searched = (page: string | null) =>
    input("What time does flight MR707 depart?", elements, { history: [click("button", "Search flights")], page })
  const answers = (as: ReadonlyArray<Action>) => as.filter((a) => a.kind === "answer").map((a) => (a.kind === "answer" ? a.text : ""))

  test("given a page that shows the asked time, then most draws stop and answer it; version 2 never stops there", () => {
    const v3 = answers(sample(searched(results), 400, { version: "3" }))
    expect(v3.length).toBeGreaterThan(280) // 0.8
    expect(v3.length).toBeLessThan(360)
    // The explorer's lower stop bias does not lower it.
    expect(answers(sample(searched(results), 400, { version: "3", stopBias: 0.2 })).length).toBeGreaterThan(280)
    expect(new Set(v3)).toEqual(new Set(["11:25"]))
    expect(answers(sample(searched(results), 400, { version: "2" }))).toEqual([])
  })

  test("given a page that does not show it, then version 3 draws as version 2", () => {
    const other = '- heading "Hotels in Oslo"'
    expect(sample(searched(other), 200, { version: "3" })).toEqual(sample(searched(other), 200, { version: "2" }))
  })

  test("given the budget's last step on a page that shows it, then the page's value; without a page, the element's text", () => {
    const last = { ...searched(results), stepBudget: 2 }
    expect(explorationAction(last, prng(seed(0)), { rules: explorationRulesAt("3") })).toEqual({ kind: "answer", text: "11:25" })
    expect(explorationAction({ ...last, page: null }, prng(seed(0)), { rules: explorationRulesAt("3") })).toEqual({
      kind: "answer",
      text: "Details of flight MR707"
    })
  })
})

describe("nothing to act on", () => {
  const none = [el("link", "Hidden", { visible: false }), el("button", "Disabled", { enabled: false })]

  test("given no candidates in the first step, then scroll down (there is nowhere to go back to)", () => {
    expect(sample(input("Open Garden Tools", none), 100).every((a) => a.kind === "scroll" && a.direction === "down")).toBe(true)
  })

  test("given no candidates later, then back or scroll down, both", () => {
    const as = sample(input("Open Garden Tools", none, { history: [click("link", "Books")] }))
    expect(as.every((a) => a.kind === "back" || a.kind === "scroll")).toBe(true)
    expect(count(as, (a) => a.kind === "back")).toBeGreaterThan(150)
    expect(count(as, (a) => a.kind === "scroll")).toBeGreaterThan(150)
  })

  test("given the last action led to an error, then back or scroll down, even with candidates", () => {
    const failed = { ...click("link", "Books"), error: "navigation failed" }
    const as = sample(input("Open Garden Tools", shop, { history: [failed] }))
    expect(as.every((a) => a.kind === "back" || a.kind === "scroll")).toBe(true)
    expect(count(as, (a) => a.kind === "back")).toBeGreaterThan(150)
  })
})

describe("sort selects and clicks on selects (version 4)", () => {
  const board = [
    el("link", "Cycling"),
    el("combobox", "Sort by", { value: "new", text: "Newest", options: ["Newest", "Top score", "Relevance"] }),
    el("button", "Apply"),
    el("link", "Help: trouble with winter riding"),
    el("link", "Next page")
  ]
  const onBoard = input("Find the highest-scored post about winter riding in the Cycling board and open it.", board, {
    history: [click("link", "Cycling")],
    url: "/forum/b/cycling"
  })
  const sorts = (as: ReadonlyArray<Action>) => as.filter((a) => a.kind === "select")

  test("given a sort select and an instruction that asks for an order, then version 4 sets it about half the time; version 3 never", () => {
    const v4 = sorts(sample(onBoard, 400, { version: "4" }))
    expect(v4.length).toBeGreaterThan(140)
    expect(v4.length).toBeLessThan(260)
    expect(new Set(v4.map((a) => (a.kind === "select" ? a.value : "")))).toEqual(new Set(["Top score"]))
    expect(sorts(sample(onBoard, 400, { version: "3" }))).toEqual([])
  })

  test("given the sort just set, then the plan's submit follows with no draw", () => {
    const set = { kind: "select" as const, target: { role: "combobox", name: "Sort by", elementId: "x", text: null }, value: "Top score" }
    const next = sample({ ...onBoard, history: [...onBoard.history, { action: set, url: "/forum/b/cycling", error: null }] }, 50, {
      version: "4"
    })
    expect(next.every((a) => a.kind === "click" && targetName(a) === "Apply")).toBe(true)
  })

  test("given a select, then version 4 never clicks it (a click opens nothing); version 3 sometimes did", () => {
    const clickedSelect = (as: ReadonlyArray<Action>) => count(as, (a) => a.kind === "click" && targetName(a) === "Sort by")
    expect(clickedSelect(sample(onBoard, 400, { version: "4" }))).toBe(0)
    expect(clickedSelect(sample(onBoard, 400, { version: "3" }))).toBeGreaterThan(0)
  })
})

describe("elements that lead off the app (version 5)", () => {
  const footer = [
    el("link", "Kitchen"),
    el("link", "Kitchen on our partner site", { offsite: true }),
    el("link", "About us", { offsite: true }),
    el("searchbox", "Search the web", { editable: true, offsite: true }),
    el("button", "Subscribe", { offsite: true }),
    el("link", "Books")
  ]
  const offsiteNames = new Set(footer.filter((e) => e.offsite === true).map((e) => e.name))
  const kitchen = input("Open the Kitchen section", footer)
  const chosen = (as: ReadonlyArray<Action>) => count(as, (a) => offsiteNames.has(targetName(a) ?? ""))
  const cases: ReadonlyArray<{ readonly version: "3" | "4" | "5"; readonly offsite: "never" | "sometimes" }> = [
    { version: "3", offsite: "sometimes" },
    { version: "4", offsite: "sometimes" },
    { version: "5", offsite: "never" }
  ]
  for (const c of cases) {
    test(`given links, a field and a button marked offsite, then version ${c.version} chooses them ${c.offsite}`, () => {
      const actions = sample(kitchen, 400, { version: c.version })
      if (c.offsite === "never") expect(chosen(actions)).toBe(0)
      else expect(chosen(actions)).toBeGreaterThan(0)
      // The app's own elements are still chosen either way.
      expect(count(actions, (a) => targetName(a) === "Kitchen")).toBeGreaterThan(0)
    })
  }

  test("given only offsite elements, then version 5 has nothing to act on and scrolls or goes back", () => {
    const away = input(
      "Open the Kitchen section",
      footer.filter((e) => e.offsite === true)
    )
    const kinds = new Set(sample(away, 100, { version: "5" }).map((a) => a.kind))
    expect([...kinds].every((k) => k === "scroll" || k === "back")).toBe(true)
  })
})

describe("a link that led here (version 6, skipsLinksHere)", () => {
  const page = [el("link", "Kestrel Station"), el("link", "Generator G2"), el("link", "Ada Okafor")]
  const instruction = 'Follow the link from "Kestrel Station" to the generator and answer: who maintains it?'
  const clicked = (url: string): PolicyHistoryStep => ({
    action: { kind: "click", target: { role: "link", name: "Kestrel Station", elementId: "old", text: "Kestrel Station" } },
    url,
    error: null
  })
  const clicksOn = (as: ReadonlyArray<Action>, name: string) => count(as, (a) => a.kind === "click" && targetName(a) === name)

  test("given the page its last click led to, version 5 mostly clicks it again; version 6 never does", () => {
    const here = input(instruction, page, { url: "/#Kestrel%20Station", history: [clicked("/#Kestrel%20Station")] })
    expect(clicksOn(sample(here, 300, { version: "5", stopBias: 0 }), "Kestrel Station")).toBeGreaterThan(150)
    expect(clicksOn(sample(here, 300, { version: "6", stopBias: 0 }), "Kestrel Station")).toBe(0)
  })

  test("given another page since, version 6 may click it again", () => {
    const elsewhere = input(instruction, page, { url: "/#Generator%20G2", history: [clicked("/#Kestrel%20Station")] })
    expect(clicksOn(sample(elsewhere, 300, { version: "6", stopBias: 0 }), "Kestrel Station")).toBeGreaterThan(0)
  })
})

describe("reading without writing (version 7, readsWithoutWriting)", () => {
  // A wiki's start page: a nameless sidebar search, an open tiddler's editor, its controls and a hub link.
  const wiki = [
    el("searchbox", "", { editable: true, text: "" }),
    el("textbox", "Type the text for this tiddler", { editable: true, text: "" }),
    el("button", "Edit this tiddler"),
    el("button", "new tiddler"),
    el("link", "Procedures")
  ]
  const open = input('Open the tiddler "Storm Protocol".', wiki)
  const typedInto = (as: ReadonlyArray<Action>, name: string) => count(as, (a) => a.kind === "type" && targetName(a) === name)

  test("given a task that asks for no change, version 6 types into the editor and clicks Edit; version 7 never does", () => {
    const v6 = sample(open, 300, { version: "6" })
    const v7 = sample(open, 300, { version: "7" })
    expect(typedInto(v6, "Type the text for this tiddler")).toBeGreaterThan(0)
    expect(count(v6, (a) => targetName(a) === "Edit this tiddler")).toBeGreaterThan(0)
    expect(typedInto(v7, "Type the text for this tiddler")).toBe(0)
    expect(count(v7, (a) => targetName(a) === "Edit this tiddler")).toBe(0)
    // A control with no change verb in its name stays a choice.
    expect(count(v7, (a) => targetName(a) === "new tiddler")).toBeGreaterThan(0)
  })

  test("given the quoted subject shown nowhere on the page, version 7 looks it up in the search field most often", () => {
    const v6 = sample(open, 300, { version: "6" })
    const v7 = sample(open, 300, { version: "7" })
    const searched = (as: ReadonlyArray<Action>) =>
      count(as, (a) => a.kind === "type" && a.target?.role === "searchbox" && a.text === "Storm Protocol")
    expect(searched(v7)).toBeGreaterThan(150)
    expect(searched(v7)).toBeGreaterThan(2 * searched(v6))
  })

  test("given a link that shows the subject, version 7 follows it rather than searching", () => {
    const linked = input('Open the tiddler "Storm Protocol".', [...wiki, el("link", "Storm Protocol")])
    const v7 = sample(linked, 300, { version: "7" })
    expect(count(v7, (a) => a.kind === "click" && targetName(a) === "Storm Protocol")).toBeGreaterThan(150)
  })

  test("given a task that asks for a change, version 7 still types into the editor", () => {
    const create = input('Create a new tiddler titled "Visitor Log".', wiki)
    expect(typedInto(sample(create, 300, { version: "7" }), "Type the text for this tiddler")).toBeGreaterThan(0)
  })
})

describe("amounts read whole (version 8, readsAmountsWhole)", () => {
  // A budget page: every cell an amount, and a control the instruction names.
  const budget = [el("button", "0.00"), el("button", "60.00"), el("button", "300.00"), el("button", "Add account"), el("link", "Reports")]
  const add = input('Add a new account named "Holiday Fund" with a starting balance of 250.00.', budget)
  const on = (as: ReadonlyArray<Action>, names: ReadonlyArray<string>) =>
    count(as, (a) => a.kind === "click" && names.includes(targetName(a) ?? ""))
  const amounts = ["0.00", "60.00", "300.00"]

  test("given amounts in every cell, version 7 clicks them for the '00' of 250.00; version 8 clicks what the instruction names", () => {
    const v7 = sample(add, 300, { version: "7" })
    const v8 = sample(add, 300, { version: "8" })
    expect(on(v7, amounts)).toBeGreaterThan(on(v7, ["Add account"]))
    expect(on(v8, ["Add account"])).toBeGreaterThan(on(v8, amounts))
  })

  test("given the amount the instruction names, version 8 still meets it whole", () => {
    const named = input("Set the budget of Groceries to 60.00.", budget)
    const v8 = sample(named, 300, { version: "8" })
    expect(on(v8, ["60.00"])).toBeGreaterThan(on(v8, ["0.00", "300.00"]))
  })
})

describe("the new value of a change (version 9, typesNewValues)", () => {
  const rename = 'Rename the budget file "Harbor Household" to "Harbor Family Budget".'

  test.each([
    [rename, "Harbor Family Budget"],
    ['In the tiddler "Generator G2", change the value of its status field from "running" to "offline".', "offline"],
    // "to" before an unquoted phrase names a place, not a value: the first quoted phrase stays.
    ['Add the tag "Urgent" to the tiddler "Water Pump".', "Urgent"],
    ['Open the tiddler "Storm Protocol".', "Storm Protocol"]
  ])("textToType(%p) with the new value rule is %p", (instruction, expected) => {
    expect(textToType(instruction, [], { newValue: true })).toBe(expected)
  })

  test("given the field that holds the old name, version 8 has nothing to type there; version 9 types the new one", () => {
    const page = input(rename, [el("textbox", "", { editable: true, text: "", value: "Harbor Household" }), el("link", "Settings")])
    const typed = (as: ReadonlyArray<Action>) => as.filter((a) => a.kind === "type").map((a) => (a.kind === "type" ? a.text : ""))
    expect(typed(sample(page, 200, { version: "8" }))).toEqual([])
    const v9 = typed(sample(page, 200, { version: "9" }))
    expect(v9.length).toBeGreaterThan(0)
    expect(new Set(v9)).toEqual(new Set(["Harbor Family Budget"]))
  })
})

describe("elements a click cannot reach (version 10, skipsCovered)", () => {
  // A dialog opened over the budget: the page behind it is still listed, marked covered.
  const behind = ["Add account", "Menu", "Reports"].map((n) => el("button", n, { covered: true }))
  const dialog = [el("button", "Create a local account"), el("button", "Close")]
  const open = input('Add a new account named "Holiday Fund".', [...behind, ...dialog])

  test("given a modal over the page, version 9 clicks behind it; version 10 only inside it", () => {
    const onBehind = (as: ReadonlyArray<Action>) => count(as, (a) => behind.some((b) => b.name === targetName(a)))
    expect(onBehind(sample(open, 300, { version: "9" }))).toBeGreaterThan(0)
    expect(onBehind(sample(open, 300, { version: "10" }))).toBe(0)
  })
})

describe("the session kept (version 11, keepsSession)", () => {
  const page = input("Open the wiki page about the engine shed.", [
    el("link", "Log out"),
    el("button", "Sign out"),
    el("link", "Engine Shed")
  ])
  const logsOut = (as: ReadonlyArray<Action>) => count(as, (a) => ["Log out", "Sign out"].includes(targetName(a) ?? ""))

  test("given log-out controls, version 10 sometimes clicks one; version 11 never", () => {
    expect(logsOut(sample(page, 300, { version: "10" }))).toBeGreaterThan(0)
    expect(logsOut(sample(page, 300, { version: "11" }))).toBe(0)
  })
})
