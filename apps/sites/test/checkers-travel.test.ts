/**
 * Every travel template's checker against scripted HTTP runs on a real server: the scripted
 * solution passes, the same run stopped one step early fails, and a run with a wrong value
 * (flight, fare, nights, email, answer…) fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { travel } from "../mod.ts"
import { TRAVEL_SUITE_FILE } from "../suites/travel.ts"
import { loadSuite } from "../suites/Suite.ts"
import { fromPrice } from "../travel/model.ts"
import type { TravelBase } from "../travel/types.ts"
import { describeCheckers, finish, go, post, runner } from "./checkerHarness.ts"
import type { Params, Script, Step } from "./checkerHarness.ts"
import { textOf, withServer } from "./client.ts"

const env = withServer()
beforeAll(env.start)
afterAll(env.stop)
const suite = await Effect.runPromise(loadSuite(TRAVEL_SUITE_FILE))

const cityOf = (base: TravelBase, name: unknown) => base.cities.find((c) => c.name === name)!
const flightOf = (base: TravelBase, id: unknown) => base.flights.find((f) => f.id === id)!
const hotelOf = (base: TravelBase, name: unknown) => base.hotels.find((h) => h.name === name)!
const person = (i: number, p: object): Record<string, string> =>
  Object.fromEntries(["name", "email", "dob", "passport"].map((k) => [`p${i}-${k}`, String((p as Record<string, unknown>)[k])]))
const search = (from: string, to: string, date: string, extra = ""): string => `/travel/flights?from=${from}&to=${to}&date=${date}${extra}`
/** Reads something off a page and answers with it. */
const answerFrom = (path: string, read: (text: string) => string): Array<Step> => {
  let said = ""
  return [
    async (b, out) => {
      const page = await b.get(path)
      out.finalUrl = page.path
      said = read(textOf(page))
    },
    async (b, out) => finish("complete", said)(b, out)
  ]
}
/** A one-guest hotel booking in the hotel's cheapest room, lead guest filled from the saved traveller. */
const bookHotel = (p: Params, base: TravelBase, guests: number, room: string, nights: number): Array<Step> => [
  post("/travel/booking/start", {
    kind: "hotel",
    hotelId: hotelOf(base, p.hotel).id,
    roomId: room,
    checkIn: String(p.checkIn),
    nights: String(nights),
    guests: String(guests)
  }),
  post("/travel/booking/1", { roomId: room }),
  post("/travel/booking/2/prefill", { traveller: "T-1" }),
  post("/travel/booking/2", person(1, base.traveller)),
  post("/travel/booking/3", {}),
  post("/travel/booking/confirm", {})
]

const scripts: Record<string, Script<TravelBase>> = {
  "travel-open-city": {
    solve: (p, base) => [go("/travel/"), go(`/travel/cities/${cityOf(base, p.city).id}`)],
    wrong: (p, base) => ({ city: base.cities.find((c) => c.name !== p.city)!.name })
  },
  "travel-open-flight": {
    solve: (p, base) => {
      const f = flightOf(base, p.flight)
      return [
        go(search(f.from, f.to, base.dates[0]!)),
        async (b, out) => {
          const page = await b.get(out.finalUrl!)
          out.finalUrl = (
            await b.get(page.text.match(new RegExp(`href="(/travel/flights/${f.id}\\?[^"]*)"`))![1]!.replace(/&amp;/g, "&"))
          ).path
        }
      ]
    },
    wrong: (p, base) => ({ flight: base.flights.find((f) => f.id !== p.flight)!.id })
  },
  "travel-cheapest-direct": {
    solve: (p, base) => {
      const [from, to] = [cityOf(base, p.from).id, cityOf(base, p.to).id]
      return [
        go(search(from, to, String(p.date), "&stops=0&sort=price")),
        async (b, out) => {
          const page = await b.get(out.finalUrl!)
          const first = page.text.match(/aria-label="Select flight ([A-Z]{2}\d{3})"/)![1]!
          out.finalUrl = (
            await b.post("/travel/booking/start", {
              kind: "flight",
              flightId: first,
              date: String(p.date),
              passengers: "1",
              returnDate: ""
            })
          ).path
        }
      ]
    },
    // The priciest flight of the route instead.
    wrong: {
      run: (p, base) => {
        const [from, to] = [cityOf(base, p.from).id, cityOf(base, p.to).id]
        const priciest = base.flights.filter((f) => f.from === from && f.to === to).sort((a, b) => b.price - a.price)[0]!
        return [
          go(search(from, to, String(p.date))),
          post("/travel/booking/start", { kind: "flight", flightId: priciest.id, date: String(p.date), passengers: "1", returnDate: "" })
        ]
      }
    }
  },
  "travel-add-traveller": {
    solve: (p) => [
      go("/travel/travellers"),
      post("/travel/travellers", { name: String(p.name), email: String(p.email), dob: String(p.dob), passport: String(p.passport) })
    ],
    wrong: (p) => ({
      ...p,
      passport: `${String(p.passport).slice(0, 2)}${String(p.passport).slice(2) === "1234567" ? "7654321" : "1234567"}`
    })
  },
  "travel-book-flight": {
    solve: (p, base) => {
      const f = flightOf(base, p.flight)
      return [
        go(`/travel/flights/${f.id}?date=${p.date}`),
        post("/travel/booking/start", { kind: "flight", flightId: f.id, date: String(p.date), passengers: "2", returnDate: "" }),
        post("/travel/booking/1", { fare: String(p.fare) }),
        post("/travel/booking/2/prefill", { traveller: "T-1", slot: "1" }),
        post("/travel/booking/2", { ...person(1, base.traveller), ...person(2, p) }),
        post("/travel/booking/3", {}),
        post("/travel/booking/confirm", {})
      ]
    },
    wrong: (p) => ({ ...p, fare: p.fare === "economy" ? "business" : "economy" })
  },
  "travel-book-hotel": {
    solve: (p, base) => [
      go(`/travel/hotels?city=${hotelOf(base, p.hotel).city}`),
      ...bookHotel(p, base, Number(p.guests), hotelOf(base, p.hotel).rooms.find((r) => r.name === p.room)!.id, Number(p.nights))
    ],
    wrong: (p) => ({ ...p, nights: Number(p.nights) + 1 })
  },
  "travel-booking-email": {
    solve: (p, base) => [
      ...bookHotel(p, base, 1, hotelOf(base, p.hotel).rooms[0]!.id, 1),
      go("/travel/trips"),
      post("/travel/trips/B-1001/email", { passenger: "1", email: String(p.email) })
    ],
    wrong: (p) => ({ ...p, email: `x${p.email}` })
  },
  "travel-departure-time": {
    solve: (p) => answerFrom(`/travel/flights/${p.flight}`, (t) => `It departs at ${t.match(/Departs (\d\d:\d\d) from/)![1]}.`),
    wrong: (p, base) => ({ flight: base.flights.find((f) => f.depart !== flightOf(base, p.flight).depart)!.id })
  },
  "travel-cheapest-hotel": {
    solve: (p, base) =>
      answerFrom(`/travel/cities/${cityOf(base, p.city).id}`, (t) => {
        const prices = [...t.matchAll(/From \$([\d.,]+) per night/g)].map((m) => Number(m[1]!.replaceAll(",", "")))
        return `$${Math.min(...prices).toFixed(2)} per night`
      }),
    wrong: (p, base) => {
      const min = (city: string) => Math.min(...base.hotels.filter((h) => h.city === city).map(fromPrice))
      return { city: base.cities.find((c) => min(c.id) !== min(cityOf(base, p.city).id))!.name }
    }
  },
  "travel-no-route": {
    solve: (p, base) => {
      const [from, to] = String(p.noRoute)
        .split(" to ")
        .map((n) => cityOf(base, n).id)
      return [go(search(from!, to!, String(p.date))), finish("infeasible")]
    },
    wrong: { run: (p, base) => [...scripts["travel-no-route"]!.solve(p, base).slice(0, -1), finish("complete", "Booked.")] }
  }
}

const run = runner(env, "travel")

describe("travel checkers: solved passes, truncated fails, wrong value fails", () => {
  describeCheckers("travel", suite, scripts, (seed) => travel.base(seed), run)

  test("the infeasible template passes only with status infeasible", async () => {
    for (const task of suite.tasks.filter((t) => t.category === "infeasible")) {
      const steps = scripts[task.templateId]!.solve(task.parameters, travel.base(task.siteSeed))
      expect((await run(task, steps)).success).toBe(true)
      for (const status of ["complete", null] as const)
        expect((await run(task, [...steps.slice(0, -1), finish(status, "Booked.")])).success).toBe(false)
    }
  })

  test("an answer task reported infeasible fails; answers in other clock formats pass", async () => {
    const task = suite.tasks.find((t) => t.templateId === "travel-departure-time")!
    const f = travel.base(task.siteSeed).flights.find((x) => x.id === task.parameters.flight)!
    const hhmm = `${Math.floor(f.depart / 60)}:${String(f.depart % 60).padStart(2, "0")}`
    expect(await run(task, [finish("infeasible", hhmm)])).toMatchObject({
      success: false,
      reason: "the task is feasible, but the agent reported it infeasible"
    })
    const h = Math.floor(f.depart / 60)
    const twelve = `${h % 12 === 0 ? 12 : h % 12}:${String(f.depart % 60).padStart(2, "0")} ${h < 12 ? "am" : "pm"}`
    expect((await run(task, [finish("complete", `Departure ${twelve}`)])).success).toBe(true)
  })
})
