/** The seeded world: month, cities, airlines, flights and hotels, all a pure function of the seed. */
import { rng } from "../framework/prng.ts"
import type { Airline, City, Flight, Hotel, Room, TravelBase, TravelState } from "./types.ts"

const cityPool: ReadonlyArray<readonly [string, string, string]> = [
  ["Lisbon", "Portugal", "LIS"],
  ["Madrid", "Spain", "MAD"],
  ["Paris", "France", "CDG"],
  ["Berlin", "Germany", "BER"],
  ["Rome", "Italy", "FCO"],
  ["Vienna", "Austria", "VIE"],
  ["Prague", "Czechia", "PRG"],
  ["Amsterdam", "Netherlands", "AMS"],
  ["Dublin", "Ireland", "DUB"],
  ["Oslo", "Norway", "OSL"],
  ["Stockholm", "Sweden", "ARN"],
  ["Copenhagen", "Denmark", "CPH"],
  ["Athens", "Greece", "ATH"],
  ["Budapest", "Hungary", "BUD"],
  ["Warsaw", "Poland", "WAW"],
  ["Zurich", "Switzerland", "ZRH"],
  ["Brussels", "Belgium", "BRU"],
  ["Helsinki", "Finland", "HEL"],
  ["Edinburgh", "United Kingdom", "EDI"],
  ["Barcelona", "Spain", "BCN"]
]
const airlinePool: ReadonlyArray<Airline> = [
  { code: "AU", name: "Aurora Air" },
  { code: "BW", name: "Bluebird Airways" },
  { code: "CO", name: "Cobalt Airlines" },
  { code: "MR", name: "Meridian Air" },
  { code: "NS", name: "Northstar" },
  { code: "PL", name: "Pelican Airways" },
  { code: "SO", name: "Solaris Air" },
  { code: "TN", name: "Tern Airlines" }
]
const hotelPrefixes = [
  "Grand",
  "Harbor",
  "Old Town",
  "Riverside",
  "Park",
  "Central",
  "Garden",
  "Royal",
  "Station",
  "Skyline",
  "Cathedral",
  "Market"
]
const hotelSuffixes = ["Hotel", "Inn", "Suites", "Lodge", "Residence", "House"]
const areas = ["City centre", "Old town", "Riverside", "Near the station", "Business district", "Museum quarter", "Waterfront"]
const amenityPool = [
  "Free Wi-Fi",
  "Breakfast available",
  "Fitness centre",
  "Spa",
  "Airport shuttle",
  "Rooftop bar",
  "Pet friendly",
  "Parking",
  "24-hour front desk"
]
const roomTypes: ReadonlyArray<readonly [string, number, number]> = [
  ["Standard Double", 2, 1],
  ["Twin Room", 2, 1.05],
  ["Single Room", 1, 0.8],
  ["Deluxe King", 2, 1.4],
  ["Junior Suite", 3, 1.9],
  ["Family Suite", 4, 2.2]
]
const firstNames = [
  "Alex",
  "Sam",
  "Jordan",
  "Taylor",
  "Morgan",
  "Riley",
  "Casey",
  "Jamie",
  "Avery",
  "Quinn",
  "Priya",
  "Mateo",
  "Yuki",
  "Amara",
  "Lena",
  "Omar"
]
const lastNames = [
  "Rivera",
  "Chen",
  "Okafor",
  "Novak",
  "Larsen",
  "Patel",
  "Moreau",
  "Kim",
  "Silva",
  "Brennan",
  "Haddad",
  "Ito",
  "Fischer",
  "Mensah"
]

export const CITY_COUNT = 12
export const FLIGHT_COUNT = 200
export const HOTEL_COUNT = 40

export const slugify = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
const pad = (n: number): string => String(n).padStart(2, "0")
export const isoDate = (y: number, m: number, d: number): string => {
  const t = new Date(Date.UTC(y, m - 1, d))
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`
}
/** The date `days` after an ISO date (pure calendar arithmetic, no clock). */
export const addDays = (date: string, days: number): string => {
  const [y, m, d] = date.split("-").map(Number)
  return isoDate(y!, m!, d! + days)
}

export const travelBase = (seed: number): TravelBase => {
  const r = rng(seed, "travel")
  const year = r.int(2026, 2029)
  const month = r.int(1, 12)
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate()
  const dates = Array.from({ length: days }, (_, i) => isoDate(year, month, i + 1))
  const cities: Array<City> = r
    .shuffle(cityPool)
    .slice(0, CITY_COUNT)
    .map(([name, country, code]) => ({ id: slugify(name), name, country, code }))
  const airlines = r.shuffle(airlinePool).slice(0, 5)
  // Every city sits on a ring of routes, plus a few extra pairs; each pair is flown both ways.
  const pairs: Array<readonly [number, number]> = cities.map((_, i) => [i, (i + 1) % CITY_COUNT] as const)
  const key = (a: number, b: number) => `${Math.min(a, b)}-${Math.max(a, b)}`
  const seen = new Set(pairs.map(([a, b]) => key(a, b)))
  while (pairs.length < 20) {
    const a = r.int(0, CITY_COUNT - 1)
    const b = r.int(0, CITY_COUNT - 1)
    if (a === b || seen.has(key(a, b))) continue
    seen.add(key(a, b))
    pairs.push([a, b])
  }
  const routes = pairs.flatMap(
    ([a, b]) =>
      [
        [a, b],
        [b, a]
      ] as const
  )
  const numbers = new Set<string>()
  const flights: Array<Flight> = []
  for (let i = 0; i < FLIGHT_COUNT; i++) {
    const [a, b] = routes[i % routes.length]!
    const airline = r.pick(airlines)
    let id = ""
    do id = `${airline.code}${r.int(100, 999)}`
    while (numbers.has(id))
    numbers.add(id)
    const stops = r.pick([0, 0, 0, 1, 1, 2])
    const duration = r.int(12, 40) * 5 + stops * r.int(10, 24) * 5
    const price = (r.int(49, 260) + stops * -15 + (stops === 0 ? 30 : 0)) * 100 + r.pick([0, 99])
    flights.push({ id, airline: airline.code, from: cities[a]!.id, to: cities[b]!.id, depart: r.int(60, 275) * 5, duration, stops, price })
  }
  const hotels: Array<Hotel> = []
  const names = new Set<string>()
  for (let i = 0; i < HOTEL_COUNT; i++) {
    const city = cities[i % CITY_COUNT]!
    let name = ""
    do name = `${r.pick(hotelPrefixes)} ${r.pick(hotelSuffixes)} ${city.name}`
    while (names.has(name))
    names.add(name)
    const stars = r.int(2, 5)
    const nightly = (40 + stars * r.int(15, 35)) * 100
    const rooms: Array<Room> = r
      .shuffle(roomTypes)
      .slice(0, r.int(2, 4))
      .map(([rn, capacity, mult], k) => ({
        id: `${slugify(name)}-${k + 1}`,
        name: rn,
        capacity,
        price: Math.round((nightly * mult) / 100) * 100
      }))
    rooms.sort((x, y) => x.price - y.price || x.id.localeCompare(y.id))
    hotels.push({
      id: slugify(name),
      name,
      city: city.id,
      stars,
      score: r.int(60, 98) / 10,
      area: r.pick(areas),
      amenities: r.shuffle(amenityPool).slice(0, r.int(2, 5)),
      rooms
    })
  }
  const first = r.pick(firstNames)
  const last = r.pick(lastNames)
  const email = `${first}.${last}@example.com`.toLowerCase()
  const letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
  const passport = `${r.pick([...letters])}${r.pick([...letters])}${r.int(1000000, 9999999)}`
  const dob = isoDate(r.int(1955, 2000), r.int(1, 12), r.int(1, 28))
  return {
    seed,
    year,
    month,
    dates,
    cities,
    airlines,
    flights,
    hotels,
    user: { name: `${first} ${last}`, email },
    traveller: { id: "T-1", name: `${first} ${last}`, email, dob, passport }
  }
}

export const travelInitial = (base: TravelBase): TravelState => ({
  user: { ...base.user },
  travellers: [{ ...base.traveller }],
  draft: null,
  bookings: []
})
