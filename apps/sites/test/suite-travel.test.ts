import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { generateTravelSuite, TRAVEL_SUITE_FILE, travelSuiteJson } from "../suites/travel.ts"
import { loadSuites } from "../suites/mod.ts"
import { loadSuite, parseSuite } from "../suites/Suite.ts"
import { CHECKERS } from "../suites/vocabulary.ts"
import { travel } from "../mod.ts"

const FILE = "suites/travel.json"
const original = (): any => JSON.parse(readFileSync(TRAVEL_SUITE_FILE, "utf8"))
const index = (id: string): number => original().templates.findIndex((t: any) => t.id === id)

/** The one-line error for a mutated copy of the travel suite. */
const errorOf = async (mutate: (s: any) => void): Promise<string> => {
  const s = original()
  mutate(s)
  const exit = await Effect.runPromise(Effect.flip(parseSuite(JSON.stringify(s), FILE)))
  return exit.message
}

describe("the travel suite file", () => {
  test("is exactly what the generator makes from the seeded travel world (file and site never drift)", () => {
    expect(readFileSync(TRAVEL_SUITE_FILE, "utf8")).toBe(travelSuiteJson())
    expect(generateTravelSuite()).toEqual(generateTravelSuite())
  })

  test("loads, covers every category, both splits and enough tasks, with seeded values", async () => {
    const suite = await Effect.runPromise(loadSuite(TRAVEL_SUITE_FILE))
    expect(suite).toMatchObject({ suite: "travel", version: 1 })
    expect(suite.templates.length).toBeGreaterThanOrEqual(7)
    expect(suite.tasks.length).toBeGreaterThanOrEqual(21)
    expect(new Set(suite.templates.map((t) => t.category))).toEqual(
      new Set(["navigation", "search", "form", "transaction", "information", "infeasible"])
    )
    expect(suite.templates.filter((t) => t.split === "held-out").length).toBeGreaterThanOrEqual(1)
    expect(suite.templates.every((t) => t.site === "travel" && t.checker.startsWith("travel."))).toBe(true)
    const heldOutOfTrain = suite.tasks.filter(
      (t) => t.split === "held-out" && suite.templates.find((x) => x.id === t.templateId)!.split === "train"
    )
    expect(heldOutOfTrain.length).toBeGreaterThanOrEqual(2)
    for (const t of suite.tasks) {
      expect(t.instruction).not.toMatch(/[{}]/)
      expect(t.pathFamilies.length).toBeGreaterThan(0)
      const base = travel.base(t.siteSeed)
      if (typeof t.parameters.flight === "string") expect(base.flights.map((f) => f.id)).toContain(t.parameters.flight)
      for (const k of ["city", "from", "to"])
        if (typeof t.parameters[k] === "string") expect(base.cities.map((c) => c.name)).toContain(t.parameters[k] as string)
      if (typeof t.parameters.hotel === "string") expect(base.hotels.map((h) => h.name)).toContain(t.parameters.hotel)
    }
    // Held-out parameter values are unseen in training instances of the same template.
    for (const t of heldOutOfTrain) {
      for (const x of suite.tasks.filter((y) => y.templateId === t.templateId && y.split === "train"))
        expect(x.parameters).not.toEqual(t.parameters)
    }
  })

  test("loadSuites() picks it up next to the other suites", async () => {
    const suites = await Effect.runPromise(loadSuites())
    expect(suites.map((s) => s.suite)).toContain("travel")
    expect(suites.find((s) => s.suite === "travel")!.tasks.length).toBe(
      generateTravelSuite().templates.reduce((n, t) => n + t.instances.length, 0)
    )
  })

  test("every travel checker it names is declared", () => {
    for (const t of generateTravelSuite().templates) expect(Object.keys(CHECKERS)).toContain(t.checker)
  })
})

describe("the loader rejects bad travel parameters with one line naming the file, JSON path and seed", () => {
  const [city, flight, direct, book, hotel, none] = [
    "travel-open-city",
    "travel-open-flight",
    "travel-cheapest-direct",
    "travel-book-flight",
    "travel-book-hotel",
    "travel-no-route"
  ].map(index) as [number, number, number, number, number, number]
  const cases: ReadonlyArray<[string, (s: any) => void, string]> = [
    [
      "city not in that seed",
      (s) => (s.templates[city].instances[0].parameters.city = "Atlantis"),
      `${FILE}: templates[${city}].instances[0].parameters.city: 'Atlantis' is not a city of the travel site in seed 301`
    ],
    [
      "flight not in that seed",
      (s) => (s.templates[flight].instances[1].parameters.flight = "ZZ999"),
      `${FILE}: templates[${flight}].instances[1].parameters.flight: 'ZZ999' is not a flight of the travel site in seed 302`
    ],
    [
      "flight from another seed",
      (s) => (s.templates[flight].instances[0].siteSeed = 7),
      `${FILE}: templates[${flight}].instances[0].parameters.flight: '`
    ],
    [
      "date outside the bookable month",
      (s) => (s.templates[direct].instances[0].parameters.date = "1999-01-01"),
      `${FILE}: templates[${direct}].instances[0].parameters.date: '1999-01-01' is not a bookable date of the travel site in seed 301`
    ],
    [
      "unknown fare",
      (s) => (s.templates[book].instances[0].parameters.fare = "first"),
      `${FILE}: templates[${book}].instances[0].parameters.fare: must be one of economy, premium, business, got "first"`
    ],
    [
      "bad passport",
      (s) => (s.templates[book].instances[0].parameters.passport = "12345"),
      `${FILE}: templates[${book}].instances[0].parameters.passport: must be 2 capital letters and 7 digits`
    ],
    [
      "date of birth in the future",
      (s) => (s.templates[book].instances[0].parameters.dob = "2100-01-01"),
      `${FILE}: templates[${book}].instances[0].parameters.dob: must be a real date of birth`
    ],
    [
      "hotel not in that seed",
      (s) => (s.templates[hotel].instances[0].parameters.hotel = "Hotel Nowhere"),
      `${FILE}: templates[${hotel}].instances[0].parameters.hotel: 'Hotel Nowhere' is not a hotel of the travel site in seed 301`
    ],
    [
      "too many nights",
      (s) => (s.templates[hotel].instances[0].parameters.nights = 30),
      `${FILE}: templates[${hotel}].instances[0].parameters.nights: must be an integer from 1 to 14, got 30`
    ],
    [
      "infeasible task naming a flown route",
      (s) => {
        const b = travel.base(301)
        const f = b.flights[0]!
        s.templates[none].instances[0].parameters.noRoute =
          `${b.cities.find((c) => c.id === f.from)!.name} to ${b.cities.find((c) => c.id === f.to)!.name}`
      },
      `${FILE}: templates[${none}].instances[0].parameters.noRoute: '`
    ],
    [
      "missing parameter the checker needs",
      (s) => delete s.templates[direct].instances[2].parameters.to,
      `${FILE}: templates[${direct}].instances[2].parameters: no value for parameter {to}`
    ],
    [
      "checker of another site",
      (s) => (s.templates[city].checker = "shop.url-category"),
      `${FILE}: templates[${city}].checker: checker 'shop.url-category' is for site 'shop', not 'travel'`
    ]
  ]
  for (const [name, mutate, expected] of cases) {
    test(name, async () => {
      const message = await errorOf(mutate)
      expect(message.slice(0, expected.length)).toBe(expected)
      expect(message).not.toContain("\n")
    })
  }
})
