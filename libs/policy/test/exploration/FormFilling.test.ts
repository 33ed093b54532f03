/**
 * Form filling, the exploration policy's version 2: given an instruction, then the values
 * it names; given a field's label, then what it asks for and which value fits; given a
 * page's element list, then its forms and the plan that fills one and submits it; and the
 * policy that takes such plans from its seeded draws.
 */
import { describe, expect, test } from "bun:test"
import type { Action } from "@core/events"
import { prng } from "@core/engine"
import { explorationRulesAt } from "@core/domain"
import {
  continuePlan,
  explorationAction,
  fieldKindOf,
  formPlans,
  instructionValues,
  lookupFormIds,
  pageForms,
  selectOptionsOf,
  selectValueFor,
  valueForField,
  withSelectOptions
} from "../../mod.ts"
import type { Draws, ExplorationOptions, FieldKind, InstructionValue, PolicyElement, PolicyHistoryStep, PolicyInput } from "../../mod.ts"

let ids = 0
const el = (role: string, name: string, more: Partial<PolicyElement> = {}): PolicyElement => ({
  id: `e${ids++}`,
  role,
  name,
  text: role === "combobox" || role === "textbox" ? "" : name,
  value: role === "combobox" || role === "textbox" ? "" : null,
  visible: true,
  enabled: true,
  editable: role === "textbox",
  checked: null,
  ...more
})
const select = (name: string, options: ReadonlyArray<string> | undefined, value = "", text = options?.[0] ?? "") =>
  el("combobox", name, { value, text, ...(options === undefined ? {} : { options }) })

const CITIES = ["Zurich (ZRH)", "Prague (PRG)", "Barcelona (BCN)", "Brussels (BRU)", "Dublin (DUB)"]
const DATES = ["Sun 2029-07-01", "Wed 2029-07-25", "Sat 2029-07-28"]
const counts = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1))

/** The travel home page as the policy sees it: nav links, the flight form, the hotel form, destinations. */
const travelHome = (withOptions = true): ReadonlyArray<PolicyElement> => {
  const o = <A>(xs: A) => (withOptions ? xs : undefined)
  return [
    el("link", "Flights"),
    el("link", "Hotels"),
    el("radio", "One way", { checked: true }),
    el("radio", "Return", { checked: false }),
    select("From", o(["Choose a departure city", ...CITIES])),
    select("To", o(["Choose a destination", ...CITIES])),
    select("Departure date", o(DATES), "2029-07-01"),
    select("Return date (return trips only)", o(["No return", ...DATES])),
    select("Passengers", o(counts(6)), "1"),
    el("button", "Search flights"),
    select("City", o(["Choose a city", ...CITIES])),
    select("Check-in date", o(DATES), "2029-07-01"),
    select("Nights", o(counts(14)), "1"),
    select("Guests", o(counts(4)), "1"),
    el("button", "Search hotels"),
    el("link", "Prague"),
    el("link", "Brussels")
  ]
}

const FLIGHT = "Find the cheapest nonstop flight from Prague to Barcelona on 2029-07-25 and start booking it for one passenger."
const HOTEL = "Book a Twin Room at Central Suites Brussels for 2 guests, checking in on 2029-07-28 for 5 nights, with me as the lead guest."
const TRAVELLER = "Add Elena Ferreira to my saved travellers: email elena.ferreira56@example.net, born 1973-05-10, passport LY1877574."

/** A value as the tables write it: kind and text, with the cue, date, count or noun where they matter. */
const brief = (v: InstructionValue): string =>
  [
    `${v.kind}:${v.text}`,
    v.kind === "proper" ? `<${v.before.at(-1) ?? ""}` : "",
    v.iso ?? (v.monthDay === null ? "" : `--${v.monthDay}`),
    v.count === null ? "" : `=${v.count}`,
    v.noun ?? ""
  ]
    .filter((s) => s !== "")
    .join(" ")

describe("values an instruction names", () => {
  const cases: ReadonlyArray<[string, ReadonlyArray<string>]> = [
    [FLIGHT, ["proper:Prague <from", "proper:Barcelona <to", "date:2029-07-25 2029-07-25", "count:one passenger =1 passenger"]],
    [
      HOTEL,
      [
        "proper:Twin Room <a",
        "proper:Central Suites Brussels <at",
        "count:2 guests =2 guest",
        "date:2029-07-28 2029-07-28",
        "count:5 nights =5 night"
      ]
    ],
    [TRAVELLER, ["proper:Elena Ferreira <add", "email:elena.ferreira56@example.net", "date:1973-05-10 1973-05-10", "code:LY1877574"]],
    [
      "Fly from New York to Rome on May 1 and come back on the 10th of May, 2027.",
      ["proper:New York <from", "proper:Rome <to", "date:May 1 --05-01", "date:10th of May, 2027 2027-05-10"]
    ],
    ["Book 2 rooms in Oslo for Sept 3 2026", ["count:2 rooms =2 room", "proper:Oslo <in", "date:Sept 3 2026 2026-09-03"]],
    [`Search for "Red Kettle" and buy 3 of them`, ["quoted:Red Kettle", "number:3 =3"]],
    ["What time does flight MR115 depart?", ["code:MR115"]],
    ["Open the city page of Warsaw.", ["proper:Warsaw <of"]],
    // A sentence's first word and "I" are no names; "May" is a month only before a day.
    ["May I book a table? Then I leave.", []],
    ["open the cart", []]
  ]
  for (const [instruction, expected] of cases) {
    test(`given "${instruction}", then ${expected.length} values`, () => {
      expect(instructionValues(instruction).map(brief)).toEqual([...expected])
    })
  }
})

describe("what a field asks for, by its label", () => {
  const cases: ReadonlyArray<[string, FieldKind]> = [
    ["From", "origin"],
    ["Departure city", "origin"],
    ["To", "destination"],
    ["Destination", "destination"],
    ["City", "place"],
    ["Departure date", "start-date"],
    ["Check-in date", "start-date"],
    ["Check-out date", "end-date"],
    ["Return date (return trips only)", "return-date"],
    ["Date of birth", "birth-date"],
    ["Email", "email"],
    ["Passengers", "count"],
    ["Nights", "count"],
    ["Number of rooms", "count"],
    ["Maximum price per passenger (US dollars)", "other"],
    ["Full name (as on passport)", "name"],
    ["First name", "first-name"],
    ["Surname", "last-name"],
    ["Username", "other"],
    ["Passport number (optional)", "other"],
    ["Sort by", "other"]
  ]
  test.each(cases)("given the label %p, then %p", (label, kind) => {
    expect(fieldKindOf(label)).toBe(kind)
  })
})

describe("the one value that fits a field", () => {
  const cases: ReadonlyArray<[string, string, string | null]> = [
    ["From", FLIGHT, "Prague"],
    ["To", FLIGHT, "Barcelona"],
    ["Departure date", FLIGHT, "2029-07-25"],
    ["Passengers", FLIGHT, "one passenger"],
    ["Return date", FLIGHT, null],
    ["City", FLIGHT, "Barcelona"],
    ["Guests", FLIGHT, null],
    ["Check-in date", HOTEL, "2029-07-28"],
    ["Nights", HOTEL, "5 nights"],
    ["Guests", HOTEL, "2 guests"],
    // "at" leads to a hotel, not a city; a select may still find the city among its options.
    ["City", HOTEL, null],
    ["Full name (as on passport)", HOTEL, null],
    ["Full name (as on passport)", TRAVELLER, "Elena Ferreira"],
    ["First name", TRAVELLER, "Elena"],
    ["Last name", TRAVELLER, "Ferreira"],
    ["Email", TRAVELLER, "elena.ferreira56@example.net"],
    ["Date of birth", TRAVELLER, "1973-05-10"],
    ["Departure date", TRAVELLER, null],
    ["Passport number (optional)", TRAVELLER, "LY1877574"],
    ["Return date", "Fly from Oslo to Rome on 2026-05-01 returning 2026-05-09", "2026-05-09"],
    ["Departure date", "Fly from Oslo to Rome on 2026-05-01 returning 2026-05-09", "2026-05-01"],
    ["Check-out date", "Stay in Rome from May 1 until May 4", "May 4"],
    // Two dates and no cue to tell them apart: neither.
    ["Departure date", "Fly on 2026-05-01 or 2026-05-02", null],
    ["Email", "Mail a@b.io and c@d.io", null],
    ["Maximum price per passenger (US dollars)", FLIGHT, null],
    ["Sort by", FLIGHT, null]
  ]
  test.each(cases)("given the field %p and the instruction %p, then %p", (label, instruction, expected) => {
    expect(valueForField(label, instructionValues(instruction))?.text ?? null).toBe(expected)
  })
})

describe("what a select is set to", () => {
  const value = (instruction: string, i = 0) => instructionValues(instruction)[i]!
  const cases: ReadonlyArray<[string, PolicyElement, InstructionValue, string | null]> = [
    ["a place, by the option that names it", select("From", ["Choose", ...CITIES]), value("from Prague"), "Prague (PRG)"],
    ["a place no option names", select("From", ["Choose", ...CITIES]), value("from Lisbon"), null],
    ["a date, by value where the select holds dates", select("Departure date", DATES, "2029-07-01"), value("on 2029-07-25"), "2029-07-25"],
    ["a date, by label where it does not", select("Day", DATES, ""), value("on 2029-07-25"), "Wed 2029-07-25"],
    ["a date without its year, when one option has it", select("Day", DATES, ""), value("on July 28"), "Sat 2029-07-28"],
    ["a date the select does not offer", select("Departure date", DATES, "2029-07-01"), value("on 2029-08-25"), null],
    ["a count, by its option", select("Guests", counts(4), "1"), value("for 2 guests"), "2"],
    ["a count beyond the options", select("Guests", counts(4), "1"), value("for 7 guests"), null],
    [
      "options unknown: a date in the shape the select holds",
      select("Departure date", undefined, "2029-07-01"),
      value("on 2029-07-25"),
      "2029-07-25"
    ],
    ["options unknown: a count in the shape the select holds", select("Guests", undefined, "1"), value("2 guests"), "2"],
    ["options unknown: a place is never guessed", select("From", undefined, ""), value("from Prague"), null]
  ]
  test.each(cases)("given %s, then the select's value", (_, field, v, expected) => {
    expect(selectValueFor(field, v)).toBe(expected)
  })
})

describe("forms on a page", () => {
  test("given the travel home page, then its flight and hotel forms, each closed by its button", () => {
    expect(pageForms(travelHome()).map((f) => [f.fields.map((e) => e.name), f.submit.name])).toEqual([
      [["From", "To", "Departure date", "Return date (return trips only)", "Passengers"], "Search flights"],
      [["City", "Check-in date", "Nights", "Guests"], "Search hotels"]
    ])
  })

  test("given fields a link separates from a button, hidden or disabled fields, or a search box alone, then no form of them", () => {
    const page = [
      select("Sort by", ["Price"]),
      el("link", "Help"),
      el("button", "Go"),
      el("searchbox", "Search products", { editable: true, value: "" }),
      el("button", "Search"),
      el("textbox", "Hidden", { visible: false }),
      el("textbox", "Disabled", { enabled: false }),
      el("button", "Save")
    ]
    expect(pageForms(page)).toEqual([])
  })

  test("given look-up and saving forms, then only the look-up forms' fields and buttons are offered to a detour", () => {
    const traveller = [el("textbox", "Full name"), el("textbox", "Email"), el("button", "Save traveller")]
    const home = travelHome()
    const ids = lookupFormIds([...home, ...traveller])
    expect([...ids].sort()).toEqual(
      home
        .filter((e) => e.role === "combobox" || e.role === "button")
        .map((e) => e.id)
        .sort()
    )
  })
})

const planOf = (instruction: string, elements: ReadonlyArray<PolicyElement>) =>
  formPlans(instruction, elements).map((p) => ({
    submit: p.form.submit.name,
    matched: p.matched.length,
    fills: p.fills.map((f) => [
      f.action.kind,
      f.field.name,
      f.action.kind === "select" ? f.action.value : f.action.kind === "type" ? f.action.text : ""
    ])
  }))

describe("the plan that fills a form", () => {
  test("given a flight instruction, then the flight form first: From, To and the date; Passengers already holds one", () => {
    expect(planOf(FLIGHT, travelHome())).toEqual([
      {
        submit: "Search flights",
        matched: 4,
        fills: [
          ["select", "From", "Prague (PRG)"],
          ["select", "To", "Barcelona (BCN)"],
          ["select", "Departure date", "2029-07-25"]
        ]
      },
      {
        submit: "Search hotels",
        matched: 2,
        fills: [
          ["select", "City", "Barcelona (BCN)"],
          ["select", "Check-in date", "2029-07-25"]
        ]
      }
    ])
  })

  test("given a hotel instruction, then the hotel form first: the city its options name, the date, nights and guests", () => {
    expect(planOf(HOTEL, travelHome())[0]).toEqual({
      submit: "Search hotels",
      matched: 4,
      fills: [
        ["select", "City", "Brussels (BRU)"],
        ["select", "Check-in date", "2029-07-28"],
        ["select", "Nights", "5"],
        ["select", "Guests", "2"]
      ]
    })
  })

  test("given selects whose options are unknown, then only the dates and counts in the shape they hold", () => {
    expect(planOf(HOTEL, travelHome(false))[0]!.fills).toEqual([
      ["select", "Check-in date", "2029-07-28"],
      ["select", "Nights", "5"],
      ["select", "Guests", "2"]
    ])
  })

  test("given a text form, then one type per field it can fill, never submitting on the way", () => {
    const form = [
      el("textbox", "Full name (as on passport)"),
      el("textbox", "Email", { value: "old@example.net" }),
      el("textbox", "Phone"),
      el("textbox", "Date of birth"),
      el("textbox", "Passport number (optional)"),
      el("button", "Save traveller")
    ]
    expect(planOf(TRAVELLER, form)).toEqual([
      {
        submit: "Save traveller",
        matched: 4,
        fills: [
          ["type", "Full name (as on passport)", "Elena Ferreira"],
          ["type", "Email", "elena.ferreira56@example.net"],
          ["type", "Date of birth", "1973-05-10"],
          ["type", "Passport number (optional)", "LY1877574"]
        ]
      }
    ])
    expect(formPlans(TRAVELLER, form)[0]!.fills.every((f) => f.action.kind === "type" && f.action.submit === undefined)).toBe(true)
  })

  test("given an instruction that names nothing a field asks for, then no plan: values are never made up", () => {
    expect(planOf("Open the Flights page and look around", travelHome())).toEqual([])
    expect(planOf("Book a flight somewhere warm next week", travelHome())).toEqual([])
  })
})

describe("select options from the aria snapshot", () => {
  const aria = [
    "- main:",
    '  - form "Search flights":',
    '    - combobox "From":',
    '      - option "Choose a departure city" [selected]',
    '      - option "Prague (PRG)"',
    '    - combobox "Say \\"hi\\"":',
    '      - option "A \\"quoted\\" one"',
    '    - combobox "Sort":',
    '      - option "Price"',
    '  - combobox "Sort":',
    '    - option "Name"',
    '  - link "Help":',
    "    - /url: /help"
  ].join("\n")

  test("given a snapshot, then each select's option labels by name; a name with two different lists is left out", () => {
    expect([...selectOptionsOf(aria)]).toEqual([
      ["from", ["Choose a departure city", "Prague (PRG)"]],
      ['say "hi"', ['A "quoted" one']]
    ])
  })

  test("given elements, then selects get their options, other elements stay as they are", () => {
    const from = select("From", undefined)
    const link = el("link", "Help")
    expect(withSelectOptions([from, link], aria)).toEqual([{ ...from, options: ["Choose a departure city", "Prague (PRG)"] }, link])
    expect(withSelectOptions([from], null)).toEqual([from])
  })
})

const seed = (i: number): string => new Bun.CryptoHasher("sha256").update(`forms-${i}`).digest("hex")
const input = (instruction: string, elements: ReadonlyArray<PolicyElement>, more: Partial<PolicyInput> = {}): PolicyInput => ({
  instruction,
  url: "/travel/",
  elements,
  history: [],
  stepBudget: 20,
  ...more
})
const v2: ExplorationOptions = { rules: explorationRulesAt("2") }
const sample = (i: PolicyInput, options: ExplorationOptions, n = 400): ReadonlyArray<Action> =>
  Array.from({ length: n }, (_, k) => explorationAction(i, prng(seed(k)), options))
const noDraws: Draws = {
  float: () => {
    throw new Error("drew")
  }
}
const step = (action: Action, more: Partial<PolicyHistoryStep> = {}): PolicyHistoryStep => ({
  action,
  url: "/travel/",
  error: null,
  ...more
})

describe("the exploration policy, version 2", () => {
  const home = travelHome()
  const plan = formPlans(FLIGHT, home)[0]!

  test("given a page with a fitting form, then about half the episodes start its plan, the rest act as version 1 would", () => {
    const as = sample(input(FLIGHT, home), v2)
    const started = as.filter((a) => JSON.stringify(a) === JSON.stringify(plan.fills[0]!.action)).length
    expect(started).toBeGreaterThan(150)
    expect(started).toBeLessThan(250)
    expect(as.filter((a) => a.kind === "click").length).toBe(as.length - started)
    expect(sample(input(FLIGHT, home), { rules: explorationRulesAt("2"), formBias: 0 }).some((a) => a.kind === "select")).toBe(false)
  })

  test("given version 1 or no version, then never a select: the recorded behaviour is kept", () => {
    expect(sample(input(FLIGHT, home), {}).some((a) => a.kind === "select")).toBe(false)
    expect(sample(input(FLIGHT, home), { rules: explorationRulesAt("1") })).toEqual(sample(input(FLIGHT, home), {}))
  })

  test("given a page without a fitting form, then version 2 draws and acts exactly as version 1", () => {
    const shop = [
      el("link", "Kitchen"),
      el("searchbox", "Search", { editable: true, value: "" }),
      el("button", "Search"),
      el("link", "Garden")
    ]
    const traveller = [el("textbox", "Full name"), el("textbox", "Email"), el("button", "Save traveller")]
    for (const i of [
      input(`Search for "red kettle"`, shop),
      input("Open the Flights page", home),
      input(FLIGHT, traveller, { history: [step(plan.submit)] })
    ]) {
      expect(sample(i, v2, 200)).toEqual(sample(i, {}, 200))
    }
  })

  test("given a plan under way, then its next fill and then its submit, with no draw, whatever the stop bias", () => {
    const first = plan.fills[0]!.action
    const afterFirst = home.map((e) => (e.name === "From" ? { ...e, value: "prague", text: "Prague (PRG)" } : e))
    expect(explorationAction(input(FLIGHT, afterFirst, { history: [step(first)] }), noDraws, { ...v2, stopBias: 1 })).toEqual(
      plan.fills[1]!.action
    )
    const all = plan.fills.map((f) => step(f.action))
    const filled = home.map((e) => ({ From: "prague", To: "barcelona", "Departure date": "2029-07-25" })[e.name as "From"] ?? e.value)
    const page = home.map((e, i) => ({ ...e, value: filled[i]! }))
    expect(explorationAction(input(FLIGHT, page, { history: all }), noDraws, v2)).toEqual(plan.submit)
    // A field whose select did not take is not tried again: the plan goes on.
    expect(continuePlan(FLIGHT, home, [step(first)], "/travel/")).toEqual(plan.fills[1]!.action)
  })

  test("given a fill that failed, or the page changed since, then the plan is not continued", () => {
    const failed = step(plan.fills[0]!.action, { error: "select timed out after 5000 ms" })
    expect(continuePlan(FLIGHT, home, [failed], "/travel/")).toBe(null)
    const as = sample(input(FLIGHT, home, { history: [failed] }), v2, 100)
    expect(as.every((a) => a.kind === "back" || a.kind === "scroll")).toBe(true)
    expect(continuePlan(FLIGHT, home, [step(plan.fills[0]!.action, { url: "/travel/flights" })], "/travel/")).toBe(null)
    expect(continuePlan(FLIGHT, home, [step({ kind: "click", target: null })], "/travel/")).toBe(null)
  })

  test("given the plan already made in this episode, then it is not started again; another fitting form still may be", () => {
    const history = [...plan.fills.map((f) => step(f.action)), step(plan.submit)]
    const as = sample(input(FLIGHT, home, { history }), v2)
    const selects = as.filter((a) => a.kind === "select")
    expect(selects.length).toBeGreaterThan(100)
    expect(selects.every((a) => "target" in a && a.target?.name === "City")).toBe(true)
  })

  test("given the same input and draws, then the same actions, without Math.random or the clock", () => {
    const random = Math.random
    const now = Date.now
    Math.random = () => {
      throw new Error("Math.random read")
    }
    Date.now = () => {
      throw new Error("clock read")
    }
    try {
      expect(sample(input(HOTEL, home), v2, 50)).toEqual(sample(input(HOTEL, home), v2, 50))
    } finally {
      Math.random = random
      Date.now = now
    }
  })
})
