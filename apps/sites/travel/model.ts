/** Read-side helpers shared by the pages: lookups, formatting, prices, flight and hotel search. */
import { addDays } from "./data.ts"
import type { Fare, Flight, Hotel, Person, Room, Seat, TravelBase, Trip } from "./types.ts"

export const formatPrice = (cents: number): string => `$${(cents / 100).toFixed(2)}`
const pad = (n: number): string => String(n).padStart(2, "0")
export const clock = (minutes: number): string => `${pad(Math.floor(minutes / 60) % 24)}:${pad(minutes % 60)}`
export const arrival = (f: Flight): string => `${clock(f.depart + f.duration)}${f.depart + f.duration >= 1440 ? " (+1 day)" : ""}`
export const hours = (minutes: number): string => `${Math.floor(minutes / 60)} h ${pad(minutes % 60)} min`
export const stopsText = (n: number): string => (n === 0 ? "Nonstop" : n === 1 ? "1 stop" : `${n} stops`)

export const cityById = (b: TravelBase, id: string | null) => b.cities.find((c) => c.id === id)
export const cityName = (b: TravelBase, id: string | null): string => cityById(b, id)?.name ?? String(id)
export const airlineName = (b: TravelBase, code: string): string => b.airlines.find((a) => a.code === code)?.name ?? code
export const flightById = (b: TravelBase, id: string | null): Flight | undefined => b.flights.find((f) => f.id === id)
export const hotelById = (b: TravelBase, id: string | null): Hotel | undefined => b.hotels.find((h) => h.id === id)
export const roomOf = (h: Hotel | undefined, id: string | null): Room | undefined => h?.rooms.find((r) => r.id === id)
export const flightTitle = (b: TravelBase, f: Flight): string => `${f.id} ${cityName(b, f.from)} to ${cityName(b, f.to)}`

export const FARES: Record<Fare, { label: string; factor: number }> = {
  economy: { label: "Economy", factor: 1 },
  premium: { label: "Premium economy", factor: 1.6 },
  business: { label: "Business", factor: 2.8 }
}
export const farePrice = (f: Flight, fare: Fare): number => Math.round((f.price * FARES[fare].factor) / 100) * 100
export const SEATS: Record<Seat, string> = { none: "No preference", window: "Window", aisle: "Aisle", middle: "Middle" }

/** Extras per kind; `per`: "person" (per passenger or guest), "night" (per guest per night) or "trip". */
export const EXTRAS = {
  flight: [
    { id: "bag", label: "Checked bag (23 kg)", price: 3500, per: "person" },
    { id: "legroom", label: "Extra legroom", price: 2500, per: "person" },
    { id: "meal", label: "Hot meal", price: 1200, per: "person" },
    { id: "insurance", label: "Travel insurance", price: 1900, per: "person" }
  ],
  hotel: [
    { id: "breakfast", label: "Breakfast", price: 1500, per: "night" },
    { id: "late-checkout", label: "Late checkout", price: 2000, per: "trip" },
    { id: "transfer", label: "Airport transfer", price: 4000, per: "trip" }
  ]
} as const
export type Extra = (typeof EXTRAS)["flight" | "hotel"][number]
export const extrasOf = (kind: Trip["kind"]): ReadonlyArray<Extra> => EXTRAS[kind]

/** The price breakdown of a trip, in cents; lines with a label, plus the total. */
export const priceLines = (b: TravelBase, t: Trip): { lines: Array<{ label: string; amount: number }>; total: number } => {
  const lines: Array<{ label: string; amount: number }> = []
  const fare = t.fare ?? "economy"
  const out = flightById(b, t.flightId)
  if (t.kind === "flight" && out)
    lines.push({ label: `${out.id} ${FARES[fare].label} × ${t.people}`, amount: farePrice(out, fare) * t.people })
  const back = flightById(b, t.returnFlightId)
  if (t.kind === "flight" && back)
    lines.push({ label: `${back.id} ${FARES[fare].label} × ${t.people}`, amount: farePrice(back, fare) * t.people })
  const room = roomOf(hotelById(b, t.hotelId), t.roomId)
  const nights = t.nights ?? 1
  if (t.kind === "hotel" && room)
    lines.push({ label: `${room.name} × ${nights} ${nights === 1 ? "night" : "nights"}`, amount: room.price * nights })
  for (const e of extrasOf(t.kind)) {
    if (!t.extras.includes(e.id)) continue
    const times = e.per === "person" ? t.people : e.per === "night" ? t.people * nights : 1
    lines.push({ label: `${e.label}${times > 1 ? ` × ${times}` : ""}`, amount: e.price * times })
  }
  return { lines, total: lines.reduce((s, l) => s + l.amount, 0) }
}

export const checkOut = (t: Trip): string | null => (t.checkIn === null ? null : addDays(t.checkIn, t.nights ?? 1))

// --- flight search ---
export const FLIGHT_SORTS = {
  price: "Price: lowest first",
  duration: "Duration: shortest first",
  departure: "Departure: earliest first"
} as const
export type FlightSort = keyof typeof FLIGHT_SORTS

export interface FlightFilters {
  readonly from: string
  readonly to: string
  readonly date: string
  readonly passengers: number
  readonly trip: "oneway" | "return"
  readonly returnDate: string
  /** "any", "0" (nonstop) or "1" (at most one stop). */
  readonly stops: string
  /** Whole dollars, or null. */
  readonly maxPrice: number | null
  readonly airline: string
  readonly sort: FlightSort
}

const num = (s: string | null): number | null => (s === null || s.trim() === "" || !Number.isFinite(Number(s)) ? null : Number(s))

export const parseFlightQuery = (b: TravelBase, q: URLSearchParams): FlightFilters => {
  const p = num(q.get("passengers"))
  const sort = q.get("sort") ?? ""
  return {
    from: q.get("from") ?? "",
    to: q.get("to") ?? "",
    date: q.get("date") ?? b.dates[0]!,
    passengers: p !== null && Number.isInteger(p) && p >= 1 && p <= 6 ? p : 1,
    trip: q.get("trip") === "return" ? "return" : "oneway",
    returnDate: q.get("return") ?? "",
    stops: ["0", "1"].includes(q.get("stops") ?? "") ? q.get("stops")! : "any",
    maxPrice: num(q.get("maxPrice")),
    airline: q.get("airline") ?? "",
    sort: sort in FLIGHT_SORTS ? (sort as FlightSort) : "price"
  }
}

/** Flights on a route with the filters applied, sorted; ties keep schedule order so results are stable. */
export const searchFlights = (
  b: TravelBase,
  f: Pick<FlightFilters, "stops" | "maxPrice" | "airline" | "sort">,
  from: string,
  to: string
): Array<Flight> => {
  const by: Record<FlightSort, (x: Flight, y: Flight) => number> = {
    price: (x, y) => x.price - y.price,
    duration: (x, y) => x.duration - y.duration,
    departure: (x, y) => x.depart - y.depart
  }
  return b.flights
    .filter((x) => x.from === from && x.to === to)
    .filter(
      (x) =>
        (f.stops === "any" || x.stops <= Number(f.stops)) &&
        (f.maxPrice === null || x.price <= f.maxPrice * 100) &&
        (f.airline === "" || x.airline === f.airline)
    )
    .sort((x, y) => by[f.sort](x, y) || x.id.localeCompare(y.id))
}

// --- hotel search ---
export const HOTEL_SORTS = { price: "Price: lowest first", score: "Guest score: highest first", stars: "Stars: most first" } as const
export type HotelSort = keyof typeof HOTEL_SORTS
export const fromPrice = (h: Hotel): number => h.rooms[0]!.price

export const searchHotels = (b: TravelBase, city: string, guests: number, minStars: number, sort: HotelSort): Array<Hotel> => {
  const by: Record<HotelSort, (x: Hotel, y: Hotel) => number> = {
    price: (x, y) => fromPrice(x) - fromPrice(y),
    score: (x, y) => y.score - x.score,
    stars: (x, y) => y.stars - x.stars
  }
  return b.hotels
    .filter((h) => (city === "" || h.city === city) && h.stars >= minStars && h.rooms.some((r) => r.capacity >= guests))
    .sort((x, y) => by[sort](x, y) || x.id.localeCompare(y.id))
}

// --- validation of a person's details ---
export const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/
export const PASSPORT = /^[A-Z]{2}\d{7}$/
export const DATE = /^\d{4}-\d{2}-\d{2}$/

/** A real calendar date in YYYY-MM-DD form, before the bookable month starts. */
export const validDob = (b: TravelBase, s: string): boolean => {
  if (!DATE.test(s)) return false
  const [y, m, d] = s.split("-").map(Number)
  const t = new Date(Date.UTC(y!, m! - 1, d!))
  return t.getUTCFullYear() === y && t.getUTCMonth() === m! - 1 && t.getUTCDate() === d && y! >= 1900 && s < b.dates[0]!
}

/** Field errors for one person, keyed by field name ("name", "email", "dob", "passport"). */
export const personErrors = (b: TravelBase, p: Person, passportRequired: boolean): Record<string, string> => {
  const e: Record<string, string> = {}
  if (p.name === "") e.name = "Enter the full name as on the passport."
  else if (p.name.length > 60) e.name = "Keep the name under 60 characters."
  if (p.email === "") e.email = "Enter an email address."
  else if (!EMAIL.test(p.email)) e.email = "Enter an email address like name@example.com."
  if (p.dob === "") e.dob = "Enter the date of birth."
  else if (!validDob(b, p.dob)) e.dob = "Enter a past date as YYYY-MM-DD, like 1990-04-25."
  if (p.passport === "") {
    if (passportRequired) e.passport = "Enter the passport number."
  } else if (!PASSPORT.test(p.passport)) e.passport = "Passport number must be 2 capital letters and 7 digits, like AB1234567."
  return e
}
