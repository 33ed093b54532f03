/**
 * The exploration rules' cases: the seeded policy over many draws at the version before a
 * rule's and at the rule's (pages and instructions from ExplorationPolicy.test.ts,
 * FormFilling.test.ts, ChangeAsked.test.ts and Exploration12.test.ts), and the rollout
 * deciders for the rules that act there.
 *
 * @example
 * exploration.avoidsOffsite // { run, before: true, after: false }
 */
import { explorationRulesAt } from "@core/domain"
import { explorationAction } from "@core/policy"
import type { PolicyElement, PolicyHistoryStep, PolicyInput } from "@core/policy"
import type { Action } from "@core/events"
import { prng } from "@core/engine"
import type { Table } from "./Cases.ts"
import { seedOf } from "./Cases.ts"
import { explorationRuns } from "./ExplorationRuns.cases.ts"
import { labelled } from "./Labelled.cases.ts"

let ids = 0
const pel = (role: string, name: string, more: Partial<PolicyElement> = {}): PolicyElement => ({
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
const input = (instruction: string, page: ReadonlyArray<PolicyElement>, more: Partial<PolicyInput> = {}): PolicyInput => ({
  instruction,
  url: "/",
  elements: page,
  history: [],
  stepBudget: 20,
  ...more
})
const clicked = (role: string, name: string, url = "/"): PolicyHistoryStep => ({
  action: { kind: "click", target: { role, name, elementId: "old", text: name } },
  url,
  error: null
})
const sample = (i: PolicyInput, version: string, n = 300, stopBias?: number): ReadonlyArray<Action> =>
  Array.from({ length: n }, (_, k) =>
    explorationAction(i, prng(seedOf(k)), { rules: explorationRulesAt(version), ...(stopBias === undefined ? {} : { stopBias }) })
  )
const nameOf = (a: Action): string | null => ("target" in a && a.target !== null ? a.target.name : null)
const any = (as: ReadonlyArray<Action>, p: (a: Action) => boolean): boolean => as.some(p)
const clicksOn = (as: ReadonlyArray<Action>, names: ReadonlyArray<string>) =>
  as.filter((a) => a.kind === "click" && names.includes(nameOf(a) ?? "")).length

const flightForm = (): ReadonlyArray<PolicyElement> => {
  const cities = ["Choose a city", "Prague (PRG)", "Barcelona (BCN)"]
  const combo = (name: string, options: ReadonlyArray<string>, value = "") =>
    pel("combobox", name, { value, text: options[0]!, options: [...options] })
  return [
    pel("link", "Flights"),
    combo("From", cities),
    combo("To", cities),
    combo("Departure date", ["Sun 2029-07-01", "Wed 2029-07-25"], "2029-07-01"),
    combo("Passengers", ["1", "2"], "1"),
    pel("button", "Search flights")
  ]
}
const FLIGHT = "Find the cheapest nonstop flight from Prague to Barcelona on 2029-07-25 and start booking it for one passenger."

const flightResults = `- list "Flights":
  - listitem:
    - 'heading "MR707: Athens to Barcelona" [level=3]'
    - paragraph: Meridian Air · departs 11:25, arrives 14:35 · 3 h 10 min · 1 stop
    - link "Details of flight MR707":
      - text: Flight details`

/** A category page as the shop shows it, and a hotel list as the travel site does: names, then values. */
const kitchen = `- list "Kitchen products":
  - listitem:
    - heading "Acme Essential Skillet" [level=3]:
      - link "Acme Essential Skillet":
        - /url: /shop/product/acme-essential-skillet
    - paragraph: $142.00
    - paragraph: Rated 1.6 out of 5 (5 reviews)
  - listitem:
    - heading "Copperleaf Ultra Cutting Board" [level=3]:
      - link "Copperleaf Ultra Cutting Board":
        - /url: /shop/product/copperleaf-ultra-cutting-board
    - paragraph: $15.00
  - listitem:
    - heading "Harbor Smart Teapot" [level=3]:
      - link "Harbor Smart Teapot":
        - /url: /shop/product/harbor-smart-teapot
    - paragraph: $104.49
    - paragraph: Rated 3.8 out of 5 (5 reviews)`
const hotels = `- list "Hotels":
  - listitem:
    - heading "Harbor Hotel Athens" [level=3]:
      - link "Harbor Hotel Athens":
    - paragraph: 3 stars · guest score 8.2 of 10 · Business district, Athens
    - paragraph: From $111.00 per night
  - listitem:
    - heading "Park Lodge Athens" [level=3]:
      - link "Park Lodge Athens":
    - paragraph: 3 stars · guest score 6.1 of 10 · Business district, Athens
    - paragraph: From $75.00 per night`

const board = input(
  "Find the highest-scored post about winter riding in the Cycling board and open it.",
  [
    pel("link", "Cycling"),
    pel("combobox", "Sort by", { value: "new", text: "Newest", options: ["Newest", "Top score", "Relevance"] }),
    pel("button", "Apply"),
    pel("link", "Help: trouble with winter riding")
  ],
  { history: [clicked("link", "Cycling", "/forum/b/cycling")], url: "/forum/b/cycling" }
)

const footer = [
  pel("link", "Kitchen"),
  pel("link", "Kitchen on our partner site", { offsite: true }),
  pel("button", "Subscribe", { offsite: true }),
  pel("link", "Books")
]

const wiki = [
  pel("searchbox", "", { editable: true, text: "" }),
  pel("textbox", "Type the text for this tiddler", { editable: true, text: "" }),
  pel("button", "Edit this tiddler"),
  pel("link", "Procedures")
]

export const exploration: Table["exploration"] = {
  ...explorationRuns,
  fillsForms: {
    run: (v) => any(sample(input(FLIGHT, flightForm()), v), (a) => a.kind === "select"),
    before: false,
    after: true
  },
  readsAnswers: {
    run: (v) =>
      any(
        sample(
          input("What time does flight MR707 depart?", [pel("link", "Details of flight MR707"), pel("link", "Home")], {
            history: [clicked("button", "Search flights")],
            page: flightResults
          }),
          v
        ),
        (a) => a.kind === "answer" && a.text === "11:25"
      ),
    before: false,
    after: true
  },
  setsSortOrders: {
    run: (v) => {
      const as = sample(board, v)
      return { sets: any(as, (a) => a.kind === "select"), clicksSelect: clicksOn(as, ["Sort by"]) > 0 }
    },
    before: { sets: false, clicksSelect: true },
    after: { sets: true, clicksSelect: false }
  },
  avoidsOffsite: {
    run: (v) => clicksOn(sample(input("Open the Kitchen section", footer), v), ["Kitchen on our partner site", "Subscribe"]) > 0,
    before: true,
    after: false
  },
  completesAfterChange: {
    run: (v) =>
      any(
        sample(
          input(
            'In the tiddler "Generator G2", change the status from "running" to "offline".',
            [pel("link", "Generator G2"), pel("button", "Edit this tiddler")],
            {
              history: [clicked("link", "Generator G2")]
            }
          ),
          v,
          300,
          1
        ),
        (a) => a.kind === "status"
      ),
    before: true,
    after: false
  },
  readsNamesNotWords: {
    // The budget's last step on a page that says who: version 3 took the first "by", version 6 reads on to the name.
    run: (v) => {
      const station = `- heading "Kestrel Station" [level=2]
- paragraph: Supplies arrive by the boat Petrel. The generator is looked after by Tomas Reyes.`
      const last = input('Who looks after the generator of "Kestrel Station"?', [pel("link", "Generator G2")], {
        page: station,
        stepBudget: 1
      })
      return explorationAction(last, prng(seedOf(0)), { rules: explorationRulesAt(v) })
    },
    before: { kind: "answer", text: "the" },
    after: { kind: "answer", text: "Tomas" }
  },
  skipsLinksHere: {
    run: (v) => {
      const here = input(
        'Follow the link from "Kestrel Station" to the generator and answer: who maintains it?',
        [pel("link", "Kestrel Station"), pel("link", "Generator G2"), pel("link", "Ada Okafor")],
        { url: "/#Kestrel%20Station", history: [clicked("link", "Kestrel Station", "/#Kestrel%20Station")] }
      )
      return clicksOn(sample(here, v, 300, 0), ["Kestrel Station"]) > 0
    },
    before: true,
    after: false
  },
  readsWithoutWriting: {
    run: (v) => {
      const as = sample(input('Open the tiddler "Storm Protocol".', wiki), v)
      return any(as, (a) => a.kind === "type" && nameOf(a) === "Type the text for this tiddler") || clicksOn(as, ["Edit this tiddler"]) > 0
    },
    before: true,
    after: false
  },
  readsAmountsWhole: {
    run: (v) => {
      const budget = [
        pel("button", "0.00"),
        pel("button", "60.00"),
        pel("button", "300.00"),
        pel("button", "Add account"),
        pel("link", "Reports")
      ]
      const as = sample(input('Add a new account named "Holiday Fund" with a starting balance of 250.00.', budget), v)
      return clicksOn(as, ["0.00", "60.00", "300.00"]) > clicksOn(as, ["Add account"])
    },
    before: true,
    after: false
  },
  typesNewValues: {
    run: (v) => {
      const page = input('Rename the budget file "Harbor Household" to "Harbor Family Budget".', [
        pel("textbox", "", { editable: true, text: "", value: "Harbor Household" }),
        pel("link", "Settings")
      ])
      return [...new Set(sample(page, v, 200).flatMap((a) => (a.kind === "type" ? [a.text] : [])))]
    },
    before: [],
    after: ["Harbor Family Budget"]
  },
  skipsCovered: {
    run: (v) => {
      const behind = ["Add account", "Menu", "Reports"].map((n) => pel("button", n, { covered: true }))
      const open = input('Add a new account named "Holiday Fund".', [
        ...behind,
        pel("button", "Create a local account"),
        pel("button", "Close")
      ])
      return clicksOn(sample(open, v), ["Add account", "Menu", "Reports"]) > 0
    },
    before: true,
    after: false
  },
  keepsSession: {
    run: (v) => {
      const page = input("Open the wiki page about the engine shed.", [
        pel("link", "Log out"),
        pel("button", "Sign out"),
        pel("link", "Engine Shed")
      ])
      return clicksOn(sample(page, v), ["Log out", "Sign out"]) > 0
    },
    before: true,
    after: false
  },
  skipsRepeatClicks: {
    run: (v) => {
      const page = input("Open the budget's settings.", [pel("button", "Harbor Budget"), pel("link", "Reports"), pel("link", "Accounts")], {
        history: [clicked("button", "Harbor Budget")]
      })
      return clicksOn(sample(page, v, 300, 0), ["Harbor Budget"]) > 0
    },
    before: true,
    after: false
  },
  comparesListValues: {
    run: (v) => {
      const products = ["Acme Essential Skillet", "Copperleaf Ultra Cutting Board", "Harbor Smart Teapot"]
      const shop = input(
        "Find the cheapest product in the Kitchen category and add it to my cart.",
        products.map((p) => pel("link", p)),
        { page: kitchen, url: "/shop/category/kitchen" }
      )
      const clicks = sample(shop, v, 300, 0)
      const asked = input(
        "What is the lowest nightly room price at any hotel in Athens?",
        [pel("link", "Harbor Hotel Athens"), pel("link", "Park Lodge Athens")],
        {
          page: hotels,
          history: [clicked("button", "Search hotels")]
        }
      )
      const answers = sample(asked, v, 100, 1).filter((a) => a.kind === "answer")
      return {
        mostlyCheapest: clicksOn(clicks, ["Copperleaf Ultra Cutting Board"]) > clicks.length / 2,
        answersLowest: answers.length > 0 && answers.every((a) => a.kind === "answer" && a.text === "$75.00")
      }
    },
    before: { mostlyCheapest: false, answersLowest: false },
    after: { mostlyCheapest: true, answersLowest: true }
  },
  ...labelled
}
