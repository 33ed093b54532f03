/**
 * The travel suite, generated from the seeded travel world so every parameter exists in
 * its instance's seed. `travel.json` is this generator's output (a test keeps the two
 * equal); after changing either, rewrite it with `bun apps/sites/suites/travel.ts`.
 */
import { join } from "node:path"
import { rng } from "../framework/prng.ts"
import type { Rng } from "../framework/prng.ts"
import { travelBase } from "../travel/data.ts"
import type { Flight, TravelBase } from "../travel/types.ts"
import type { PathFamily, SuiteFile } from "./Suite.ts"
import { generateSuite, suiteJson, writeSuite } from "./Generator.ts"
import type { InstanceSlot, Params, TemplateSpec } from "./Generator.ts"

type Spec = TemplateSpec<TravelBase>

/** Instance k of every template: its seed and split. The held-out seed is another month and city set, so its values are unseen. */
const INSTANCES: ReadonlyArray<InstanceSlot> = [
  { seed: 301, split: "train" },
  { seed: 302, split: "train" },
  { seed: 303, split: "held-out" }
]

const fam = (id: string, description: string): PathFamily => ({ id, description })
const SEARCH = fam("search-results", "search flights for the route and date, then open the flight from the results")

const cityName = (base: TravelBase, id: string): string => base.cities.find((c) => c.id === id)!.name
/** The k-th of a fixed shuffle, so the instances of one seed-independent list differ. */
const nth = <T>(items: ReadonlyArray<T>, id: string, k: number): T => rng(0, id).shuffle(items)[k % items.length]!

const FIRST = ["Robin", "Noor", "Kai", "Elena", "Tomas", "Ines", "Marco", "Zara"]
const LAST = ["Alvarez", "Brooks", "Dubois", "Ferreira", "Hughes", "Lindqvist", "Nakamura", "Osei"]
const LETTERS = [..."ABCDEFGHJKLMNPRSTUVWXYZ"]

const person = (r: Rng): Params => {
  const [first, last] = [r.pick(FIRST), r.pick(LAST)]
  return {
    name: `${first} ${last}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}${r.int(1, 99)}@example.net`,
    dob: `${r.int(1960, 2002)}-${String(r.int(1, 12)).padStart(2, "0")}-${String(r.int(1, 28)).padStart(2, "0")}`,
    passport: `${r.pick(LETTERS)}${r.pick(LETTERS)}${r.int(1000000, 9999999)}`
  }
}

/** Routes with a nonstop flight and at least one flight at another price (so a wrong pick is detectable). */
const directRoutes = (base: TravelBase): Array<Flight> => {
  const seen = new Set<string>()
  const out: Array<Flight> = []
  for (const f of base.flights) {
    const key = `${f.from}>${f.to}`
    const route = base.flights.filter((x) => x.from === f.from && x.to === f.to)
    const nonstop = route.filter((x) => x.stops === 0)
    if (seen.has(key) || nonstop.length === 0) continue
    seen.add(key)
    const min = Math.min(...nonstop.map((x) => x.price))
    if (route.some((x) => x.price !== min)) out.push(f)
  }
  return out
}

const specs: ReadonlyArray<Spec> = [
  {
    id: "travel-open-city",
    category: "navigation",
    split: "train",
    checker: "travel.url-city",
    instruction: "Open the city page of {city}.",
    pathFamilies: [
      fam("destinations", "follow the city's link in the home page's Destinations list"),
      fam("breadcrumb", "open any flight into the city and follow its breadcrumb")
    ],
    make: (base, r) => ({ city: r.pick(base.cities).name })
  },
  {
    id: "travel-open-flight",
    category: "navigation",
    split: "held-out",
    checker: "travel.url-flight",
    instruction: "Open the details page of flight {flight}.",
    pathFamilies: [SEARCH, fam("city-deal", "open the destination's city page and find the flight among its deals (when it is one)")],
    make: (base, r) => ({ flight: r.pick(base.flights).id })
  },
  {
    id: "travel-cheapest-direct",
    category: "search",
    split: "train",
    checker: "travel.cheapest-direct",
    instruction: "Find the cheapest nonstop flight from {from} to {to} on {date} and start booking it for one passenger.",
    pathFamilies: [
      fam("filter-nonstop", "search the route and date, filter to nonstop flights sorted by price, and select the first"),
      fam("scan-results", "search the route and date and compare the nonstop results by eye before selecting")
    ],
    make: (base, r) => {
      const f = r.pick(directRoutes(base))
      return { from: cityName(base, f.from), to: cityName(base, f.to), date: r.pick(base.dates) }
    }
  },
  {
    id: "travel-add-traveller",
    category: "form",
    split: "train",
    checker: "travel.traveller",
    instruction: "Add {name} to my saved travellers: email {email}, born {dob}, passport {passport}.",
    pathFamilies: [
      fam("travellers-page", "open Saved travellers and fill in the Add a traveller form"),
      fam("booking-save", "enter the details at a booking's passenger step with Save to my saved travellers ticked")
    ],
    make: (_base, r) => person(r)
  },
  {
    id: "travel-book-flight",
    category: "transaction",
    split: "train",
    checker: "travel.flight-booking",
    instruction:
      "Book flight {flight} on {date} with the {fare} fare for two passengers: me (my saved traveller) and {name}, email {email}, born {dob}, passport {passport}.",
    pathFamilies: [
      fam("search-prefill", "search the route, select the flight, fill passenger 1 from the saved traveller and type passenger 2"),
      fam("flight-page-typed", "open the flight's page, book from there and type both passengers' details")
    ],
    make: (base, r, k) => ({
      flight: r.pick(base.flights).id,
      date: r.pick(base.dates),
      fare: nth(["economy", "premium", "business"], "travel-book-flight", k),
      ...person(r)
    })
  },
  {
    id: "travel-book-hotel",
    category: "transaction",
    split: "train",
    checker: "travel.hotel-booking",
    instruction: "Book a {room} at {hotel} for {guests} guests, checking in on {checkIn} for {nights} nights, with me as the lead guest.",
    pathFamilies: [
      fam("hotel-search", "search hotels in the city for the dates and guests, open the hotel and choose the room"),
      fam("city-page", "open the city page, pick the hotel from its list, then set the dates and room"),
      fam("prefill-lead", "at the guest step, fill in the lead guest from the saved traveller instead of typing")
    ],
    make: (base, r) => {
      const hotel = r.pick(base.hotels.filter((h) => h.rooms.some((x) => x.capacity >= 2)))
      const room = r.pick(hotel.rooms.filter((x) => x.capacity >= 2))
      return { room: room.name, hotel: hotel.name, guests: r.int(2, room.capacity), checkIn: r.pick(base.dates), nights: r.int(2, 5) }
    }
  },
  {
    id: "travel-booking-email",
    category: "transaction",
    split: "train",
    checker: "travel.booking-email",
    instruction: "Book one night at {hotel} from {checkIn} for me alone, then change the email on that booking to {email}.",
    pathFamilies: [
      fam("trip-page", "book it, then change the email on the confirmation (booking) page"),
      fam("my-trips", "book it, then find it again under My trips and change the email there")
    ],
    make: (base, r) => ({
      hotel: r.pick(base.hotels).name,
      checkIn: r.pick(base.dates),
      email: `${r.pick(FIRST).toLowerCase()}.trips${r.int(10, 99)}@example.org`
    })
  },
  {
    id: "travel-departure-time",
    category: "information",
    split: "train",
    checker: "travel.answer-departure",
    instruction: "What time does flight {flight} depart?",
    pathFamilies: [SEARCH, fam("search-list", "read the time from the search results of its route without opening the flight")],
    make: (base, r) => ({ flight: r.pick(base.flights).id })
  },
  {
    id: "travel-cheapest-hotel",
    category: "information",
    split: "held-out",
    checker: "travel.answer-cheapest-hotel",
    instruction: "What is the lowest nightly room price at any hotel in {city}?",
    pathFamilies: [
      fam("hotel-search-sort", "search hotels in the city for one guest sorted by price"),
      fam("city-page", "read the From prices on the city page's hotel list")
    ],
    make: (base, _r, k) => ({ city: nth(base.cities, "travel-cheapest-hotel", k).name })
  },
  {
    id: "travel-no-route",
    category: "infeasible",
    split: "train",
    checker: "travel.infeasible",
    instruction: "Book me a flight from {noRoute} on {date}.",
    pathFamilies: [
      fam("search-none", "search the route, find no flights, and report the task infeasible"),
      fam("city-deals", "see on the destination's city page that no flight comes from the origin")
    ],
    make: (base, r) => {
      let from = "",
        to = ""
      do [from, to] = [r.pick(base.cities).id, r.pick(base.cities).id]
      while (from === to || base.flights.some((f) => f.from === from && f.to === to))
      return { noRoute: `${cityName(base, from)} to ${cityName(base, to)}`, date: r.pick(base.dates) }
    }
  }
]

export const generateTravelSuite = (): SuiteFile => generateSuite("travel", specs, INSTANCES, travelBase)

export const TRAVEL_SUITE_FILE = join(import.meta.dir, "travel.json")

export const travelSuiteJson = (): string => suiteJson(generateTravelSuite())

if (import.meta.main) writeSuite(TRAVEL_SUITE_FILE, generateTravelSuite())
