/**
 * Scripted solutions of the travel suite: for every template, one script per path family
 * (ids as in suites/travel.json; the first family is the primary one, whose run is the
 * instance's expert demo). Targets are found by role + accessible name at run time. The
 * seeded world (public site data, never the state API) only tells a script what a
 * traveller would know or read off a timetable: which route a flight flies, which city a
 * hotel is in, their own saved details.
 */
import type { FullObservation } from "@core/environment"
import type { Person, TravelBase } from "../travel/types.ts"
import type { Find, Step } from "./Runner.ts"
import { button, click, done, exact, infeasible, link, s, select, type } from "./Script.ts"
import type { Params } from "./Script.ts"

export type TravelScript = (p: Params, base: TravelBase) => ReadonlyArray<Step>

const combo = (name: RegExp): Find => ({ role: "combobox", name })
const textbox = (name: RegExp, more: Partial<Find> = {}): Find => ({ role: "textbox", name, ...more })
const radio = (name: RegExp): Find => ({ role: "radio", name })

const cityId = (base: TravelBase, name: string): string => base.cities.find((c) => c.name === name)?.id ?? "?"
/** The city as its select options read ("Prague (PRG)"): what a person picks. */
const cityOption = (base: TravelBase, id: string): string => {
  const c = base.cities.find((x) => x.id === id)
  return c === undefined ? id : `${c.name} (${c.code})`
}
const flightOf = (base: TravelBase, id: string) => base.flights.find((f) => f.id === id)
const hotelOf = (base: TravelBase, name: string) => base.hotels.find((h) => h.name === name)
const cityNameOf = (base: TravelBase, id: string | undefined): string => base.cities.find((c) => c.id === id)?.name ?? "?"

/** The home page's flight search; date and passengers keep their defaults when not given. */
const searchFlights = (base: TravelBase, from: string, to: string, date?: string, passengers?: number): Array<Step> => [
  select(combo(/^From$/), cityOption(base, from)),
  select(combo(/^To$/), cityOption(base, to)),
  ...(date === undefined ? [] : [select(combo(/^Departure date$/), date)]),
  ...(passengers === undefined ? [] : [select(combo(/^Passengers$/), String(passengers))]),
  click(button(/^Search flights$/))
]
/** A flight's own route, as its timetable says. */
const searchRouteOf = (base: TravelBase, flight: string, date?: string, passengers?: number): Array<Step> => {
  const f = flightOf(base, flight)
  return searchFlights(base, f?.from ?? "?", f?.to ?? "?", date, passengers)
}
const openFlight = (flight: string): Step => click(link(exact(`Details of flight ${flight}`)))

/** The stay selects, on the home page's hotel search or a hotel page. */
const stay = (checkIn: string, nights: number, guests: number): Array<Step> => [
  select(combo(/^Check-in date$/), checkIn),
  select(combo(/^Nights$/), String(nights)),
  select(combo(/^Guests$/), String(guests))
]
/** Search hotels in the hotel's city for the stay, then open it from the results. */
const hotelSearch = (base: TravelBase, hotel: string, checkIn: string, nights: number, guests: number): Array<Step> => [
  select(combo(/^City$/), cityOption(base, hotelOf(base, hotel)?.city ?? "?")),
  ...stay(checkIn, nights, guests),
  click(button(/^Search hotels$/)),
  click(link(exact(hotel), { after: /^Apply filters$/ }))
]
/** The hotel's city from the Destinations list, the hotel from the city's list, then the stay on the hotel page. */
const hotelViaCity = (base: TravelBase, hotel: string, checkIn: string, nights: number, guests: number): Array<Step> => [
  click(link(exact(cityNameOf(base, hotelOf(base, hotel)?.city)))),
  click(link(exact(hotel))),
  ...stay(checkIn, nights, guests),
  click(button(/^Update stay$/))
]

/** Book a room from the hotel page; it stays chosen at step 1. */
const bookRoom = (room: RegExp, more: Partial<Find> = {}): Array<Step> => [click(button(room, more)), click(button(/^Continue to step 2$/))]

const FARE_LABELS: Readonly<Record<string, string>> = { economy: "Economy", premium: "Premium economy", business: "Business" }
const fare = (id: string): Array<Step> => [click(radio(new RegExp(`^${FARE_LABELS[id] ?? id}:`))), click(button(/^Continue to step 2$/))]

/** One person's fields at the details step; `last` reaches the second passenger, whose labels repeat the first's. */
const typePerson = (x: Person, last = false): Array<Step> => [
  type(textbox(/^Full name/, { last }), x.name),
  type(textbox(/^Email$/, { last }), x.email),
  type(textbox(/^Date of birth$/, { last }), x.dob),
  type(textbox(/^Passport number/, { last }), x.passport)
]
const personOf = (p: Params): Person => ({ name: s(p, "name"), email: s(p, "email"), dob: s(p, "dob"), passport: s(p, "passport") })
/** The saved traveller picker defaults to the first saved traveller (me) and the first slot. */
const prefillMe: Step = click(button(/^Fill in from saved traveller$/))
/** From the details step to the confirmation page. */
const confirm: Array<Step> = [
  click(button(/^Continue to step 3$/)),
  click(button(/^Continue to review$/)),
  click(button(/^Confirm and book for /))
]
const changeEmail = (email: string): Array<Step> => [type(textbox(/^New email address$/), email), click(button(/^Update email$/)), done]

/** The text of the page's aria snapshot from the first `marker` on (empty when absent). */
const from = (obs: FullObservation, marker: string): string => {
  const at = obs.aria.indexOf(marker)
  return at < 0 ? "" : obs.aria.slice(at)
}
const departs = (flight: string, read: (obs: FullObservation) => string | undefined): Step => ({
  kind: "answer",
  read: (obs) => `Flight ${flight} departs at ${read(obs) ?? "an unknown time"}.`
})
const dollars = (text: string): Array<number> => [...text.matchAll(/\$([\d,]+\.\d\d)/g)].map((m) => Number(m[1]!.replaceAll(",", "")))
const lowest = (amounts: ReadonlyArray<number>): string => (amounts.length === 0 ? "unknown" : `$${Math.min(...amounts).toFixed(2)}`)

/** Template id → path family id → script. */
export const travelSolutions: Readonly<Record<string, Readonly<Record<string, TravelScript>>>> = {
  "travel-open-city": {
    destinations: (p) => [click(link(exact(s(p, "city")), { after: /^Search hotels$/ })), done],
    breadcrumb: (p, base) => {
      const into = base.flights.find((f) => f.to === cityId(base, s(p, "city")))
      return [
        ...searchFlights(base, into?.from ?? "?", cityId(base, s(p, "city"))),
        click(link(/^Details of flight /)),
        click(link(exact(s(p, "city")))),
        done
      ]
    }
  },
  "travel-open-flight": {
    "search-results": (p, base) => [...searchRouteOf(base, s(p, "flight")), openFlight(s(p, "flight")), done],
    "city-deal": (p, base) => [
      click(link(exact(cityNameOf(base, flightOf(base, s(p, "flight"))?.to)))),
      click(link(exact(`Details of flight ${s(p, "flight")}`), { requiredForFamily: true })),
      done
    ]
  },
  "travel-cheapest-direct": {
    "filter-nonstop": (p, base) => [
      ...searchFlights(base, cityId(base, s(p, "from")), cityId(base, s(p, "to")), s(p, "date")),
      click(radio(/^Nonstop only$/)),
      select(combo(/^Sort by$/), "price"),
      click(button(/^Apply filters$/)),
      click(button(/^Select flight /, { after: /^Apply filters$/ })),
      done
    ],
    "scan-results": (p, base) => {
      const [fromId, toId] = [cityId(base, s(p, "from")), cityId(base, s(p, "to"))]
      // Finders see element names only, not the price and stops printed beside each result, so the
      // by-eye comparison reads the same public timetable the unfiltered list shows.
      const cheapest = base.flights.filter((f) => f.from === fromId && f.to === toId && f.stops === 0).sort((x, y) => x.price - y.price)[0]
      return [...searchFlights(base, fromId, toId, s(p, "date")), click(button(exact(`Select flight ${cheapest?.id ?? "?"}`))), done]
    }
  },
  "travel-add-traveller": {
    "travellers-page": (p) => [click(link(/^Saved travellers$/)), ...typePerson(personOf(p)), click(button(/^Save traveller$/)), done],
    // Any booking reaches the passenger step: the first of the home page's Top deals is the shortest way there.
    "booking-save": (p) => [
      click(button(/^Book deal: /)),
      ...fare("economy"),
      ...typePerson(personOf(p)),
      click({ role: "checkbox", name: /^Save passenger 1 to my saved travellers$/ }),
      click(button(/^Continue to step 3$/)),
      done
    ]
  },
  "travel-book-flight": {
    "search-prefill": (p, base) => [
      ...searchRouteOf(base, s(p, "flight"), s(p, "date"), 2),
      click(button(exact(`Select flight ${s(p, "flight")}`))),
      ...fare(s(p, "fare")),
      prefillMe,
      ...typePerson(personOf(p), true),
      ...confirm,
      done
    ],
    "flight-page-typed": (p, base) => [
      ...searchRouteOf(base, s(p, "flight")),
      openFlight(s(p, "flight")),
      select(combo(/^Departure date$/), s(p, "date")),
      select(combo(/^Passengers$/), "2"),
      click(button(/^Book this flight$/)),
      ...fare(s(p, "fare")),
      ...typePerson(base.traveller),
      ...typePerson(personOf(p), true),
      ...confirm,
      done
    ]
  },
  "travel-book-hotel": {
    "hotel-search": (p, base) => [
      ...hotelSearch(base, s(p, "hotel"), s(p, "checkIn"), Number(p.nights), Number(p.guests)),
      ...bookRoom(exact(`Book ${s(p, "room")}`)),
      ...typePerson(base.traveller),
      ...confirm,
      done
    ],
    "city-page": (p, base) => [
      ...hotelViaCity(base, s(p, "hotel"), s(p, "checkIn"), Number(p.nights), Number(p.guests)),
      ...bookRoom(exact(`Book ${s(p, "room")}`)),
      ...typePerson(base.traveller),
      ...confirm,
      done
    ],
    "prefill-lead": (p, base) => [
      ...hotelSearch(base, s(p, "hotel"), s(p, "checkIn"), Number(p.nights), Number(p.guests)),
      ...bookRoom(exact(`Book ${s(p, "room")}`)),
      prefillMe,
      ...confirm,
      done
    ]
  },
  "travel-booking-email": {
    // Any room sleeps one: take the first (cheapest) listed.
    "trip-page": (p, base) => [
      ...hotelSearch(base, s(p, "hotel"), s(p, "checkIn"), 1, 1),
      ...bookRoom(/^Book /, { after: /^Update stay$/ }),
      ...typePerson(base.traveller),
      ...confirm,
      ...changeEmail(s(p, "email"))
    ],
    "my-trips": (p, base) => [
      ...hotelViaCity(base, s(p, "hotel"), s(p, "checkIn"), 1, 1),
      ...bookRoom(/^Book /, { after: /^Update stay$/ }),
      prefillMe,
      ...confirm,
      click(link(/^My trips \(\d+\)$/)),
      // A fresh episode has this one booking; the list is newest first anyway.
      click(link(/^Booking B-\d+$/)),
      ...changeEmail(s(p, "email"))
    ]
  },
  "travel-departure-time": {
    "search-results": (p, base) => [
      ...searchRouteOf(base, s(p, "flight")),
      openFlight(s(p, "flight")),
      departs(s(p, "flight"), (obs) => from(obs, "Departs").match(/\d\d:\d\d/)?.[0])
    ],
    "search-list": (p, base) => [
      ...searchRouteOf(base, s(p, "flight")),
      departs(s(p, "flight"), (obs) => from(obs, `${s(p, "flight")}:`).match(/departs (\d\d:\d\d)/)?.[1])
    ]
  },
  "travel-cheapest-hotel": {
    "hotel-search-sort": (p, base) => [
      select(combo(/^City$/), cityOption(base, cityId(base, s(p, "city")))),
      click(button(/^Search hotels$/)),
      select(combo(/^Sort by$/), "price"),
      click(button(/^Apply filters$/)),
      // Sorted by price, the first hotel's From price is the lowest.
      {
        kind: "answer",
        read: (obs) =>
          `From ${lowest(dollars(obs.aria.slice(Math.max(0, obs.aria.search(/heading "\d+ hotels?"/)))).slice(0, 1))} per night.`
      }
    ],
    "city-page": (p) => [
      click(link(exact(s(p, "city")), { after: /^Search hotels$/ })),
      {
        kind: "answer",
        read: (obs) => `From ${lowest(dollars(from(obs, `Hotels in ${s(p, "city")}`).split("Search hotels in")[0]!))} per night.`
      }
    ]
  },
  "travel-no-route": {
    "search-none": (p, base) => {
      const [origin, destination] = s(p, "noRoute").split(" to ")
      return [...searchFlights(base, cityId(base, origin!), cityId(base, destination!), s(p, "date")), infeasible]
    },
    // The city's deals list the cheapest flight from every origin that flies there.
    "city-deals": (p) => [click(link(exact(s(p, "noRoute").split(" to ")[1]!), { after: /^Search hotels$/ })), infeasible]
  }
}
