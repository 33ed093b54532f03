/**
 * Ground-truth checkers for the travel suite. EVALUATION CODE ONLY: they read the episode's
 * state (and its seeded world) through the state API, and the agent's final URL, answer and
 * status; policies and label functions never see them (tests/boundaries.test.ts).
 */
import { clock, formatPrice, fromPrice } from "../../travel/model.ts"
import type { Booking, Person, TravelBase, TravelState } from "../../travel/types.ts"
import { confirmedBookings, flightByNumber, travellerByName, travelState } from "../travel.ts"
import type { CheckInput, Checker, Verdict } from "./types.ts"
import { answered, endedOn, fail, numbers, pass, same } from "./verdicts.ts"

const snapshot = async (input: CheckInput): Promise<{ state: TravelState; base: TravelBase }> => {
  const snap = await travelState(input.api, input.tenant)
  return { state: snap.state, base: snap.base! }
}

const param = (input: CheckInput, name: string): string => String(input.parameters[name])

const cityNamed = (base: TravelBase, name: string) => {
  const c = base.cities.find((x) => x.name === name)
  if (!c) throw new Error(`no city '${name}' in the travel world of seed ${base.seed}`)
  return c
}
const flightNamed = (base: TravelBase, id: string) => {
  const f = flightByNumber(base, id)
  if (!f) throw new Error(`no flight '${id}' in the travel world of seed ${base.seed}`)
  return f
}
const hotelNamed = (base: TravelBase, name: string) => {
  const h = base.hotels.find((x) => x.name === name)
  if (!h) throw new Error(`no hotel '${name}' in the travel world of seed ${base.seed}`)
  return h
}

/** Clock times in a text, as minutes after midnight ("07:05", "7:05 am", "7:05 PM"). */
const times = (text: string): Array<number> =>
  [...text.matchAll(/(\d{1,2})[:.](\d{2})\s*([ap]\.?m\.?)?/gi)].map((m) => {
    let h = Number(m[1]) % 24
    const pm = m[3]?.toLowerCase().startsWith("p")
    if (m[3] && h === 12) h = pm ? 12 : 0
    else if (pm) h += 12
    return h * 60 + Number(m[2])
  })

const personMatches = (p: Person, want: Readonly<Record<string, string>>): Array<string> =>
  (["name", "email", "dob", "passport"] as const)
    .filter((k) => want[k] !== undefined && !same(p[k], want[k]!))
    .map((k) => `${k} '${p[k]}', not '${want[k]}'`)

/** The first booking without problems, or a verdict naming the closest one's problems. */
const firstGood = (
  bookings: ReadonlyArray<Booking>,
  problems: (b: Booking) => Array<string>,
  what: string,
  ok: (b: Booking) => string
): Verdict => {
  if (bookings.length === 0) return fail(`no confirmed booking of ${what}`)
  const checked = bookings.map((b) => ({ b, wrong: problems(b) })).sort((x, y) => x.wrong.length - y.wrong.length)
  return checked[0]!.wrong.length === 0
    ? pass(ok(checked[0]!.b))
    : fail(`booking ${checked[0]!.b.id} of ${what} has ${checked[0]!.wrong.join("; ")}`)
}

export const travelCheckers = {
  "travel.url-city": async (input) => {
    const { base } = await snapshot(input)
    const c = cityNamed(base, param(input, "city"))
    return endedOn(input, `/travel/cities/${c.id}`, `the ${c.name} city page`)
  },
  "travel.url-flight": async (input) => {
    const { base } = await snapshot(input)
    const f = flightNamed(base, param(input, "flight"))
    return endedOn(input, `/travel/flights/${f.id}`, `flight ${f.id}`)
  },
  "travel.cheapest-direct": async (input) => {
    const { base, state } = await snapshot(input)
    const [from, to, date] = [cityNamed(base, param(input, "from")), cityNamed(base, param(input, "to")), param(input, "date")]
    const nonstop = base.flights.filter((f) => f.from === from.id && f.to === to.id && f.stops === 0)
    if (nonstop.length === 0) throw new Error(`no nonstop flight from ${from.name} to ${to.name} in seed ${base.seed}`)
    const min = Math.min(...nonstop.map((f) => f.price))
    const trips = [...(state.draft ? [state.draft] : []), ...confirmedBookings(state, "flight")].filter((t) => t.kind === "flight")
    const hit = trips.find((t) => nonstop.some((f) => f.id === t.flightId && f.price === min) && t.date === date && t.people === 1)
    if (hit) return pass(`started booking ${hit.flightId} (${formatPrice(min)}) on ${date}`)
    return fail(
      `no booking in progress or made of the ${formatPrice(min)} nonstop flight ${from.name}–${to.name} on ${date} for 1 passenger (found: ${trips.map((t) => `${t.flightId} on ${t.date} × ${t.people}`).join(", ") || "none"})`
    )
  },
  "travel.traveller": async (input) => {
    const { state } = await snapshot(input)
    const want = { name: param(input, "name"), email: param(input, "email"), dob: param(input, "dob"), passport: param(input, "passport") }
    const t = travellerByName(state, want.name)
    if (!t) return fail(`no saved traveller named '${want.name}' (saved: ${state.travellers.map((x) => x.name).join(", ")})`)
    const wrong = personMatches(t, want)
    return wrong.length === 0 ? pass(`${t.name} is saved as ${t.id}`) : fail(`saved traveller ${t.id} has ${wrong.join("; ")}`)
  },
  "travel.flight-booking": async (input) => {
    const { base, state } = await snapshot(input)
    const f = flightNamed(base, param(input, "flight"))
    const [date, fare] = [param(input, "date"), param(input, "fare")]
    const companion = {
      name: param(input, "name"),
      email: param(input, "email"),
      dob: param(input, "dob"),
      passport: param(input, "passport")
    }
    const me = { name: base.traveller.name, email: base.traveller.email, dob: base.traveller.dob, passport: base.traveller.passport }
    return firstGood(
      confirmedBookings(state, "flight").filter((b) => b.flightId === f.id),
      (b) => {
        const wrong: Array<string> = []
        if (b.date !== date) wrong.push(`date ${b.date}, not ${date}`)
        if (b.fare !== fare) wrong.push(`fare ${b.fare}, not ${fare}`)
        if (b.returnFlightId !== null) wrong.push("a return flight too")
        if (b.people !== 2) wrong.push(`${b.people} passengers, not 2`)
        const mine = b.persons.find((p) => same(p.name, me.name))
        if (!mine) wrong.push(`no passenger ${me.name}`)
        else wrong.push(...personMatches(mine, me))
        const other = b.persons.find((p) => same(p.name, companion.name))
        if (!other) wrong.push(`no passenger ${companion.name}`)
        else wrong.push(...personMatches(other, companion))
        return wrong
      },
      `flight ${f.id}`,
      (b) => `booking ${b.id}: ${f.id} on ${date}, ${fare}, ${b.persons.map((p) => p.name).join(" and ")}`
    )
  },
  "travel.hotel-booking": async (input) => {
    const { base, state } = await snapshot(input)
    const h = hotelNamed(base, param(input, "hotel"))
    const room = h.rooms.find((r) => r.name === param(input, "room"))
    if (!room) throw new Error(`hotel '${h.name}' has no '${param(input, "room")}'`)
    const [checkIn, nights, guests] = [param(input, "checkIn"), Number(input.parameters.nights), Number(input.parameters.guests)]
    return firstGood(
      confirmedBookings(state, "hotel").filter((b) => b.hotelId === h.id),
      (b) => {
        const wrong: Array<string> = []
        if (b.roomId !== room.id) wrong.push(`room ${h.rooms.find((r) => r.id === b.roomId)?.name ?? b.roomId}, not ${room.name}`)
        if (b.checkIn !== checkIn) wrong.push(`check-in ${b.checkIn}, not ${checkIn}`)
        if (b.nights !== nights) wrong.push(`${b.nights} nights, not ${nights}`)
        if (b.people !== guests) wrong.push(`${b.people} guests, not ${guests}`)
        if (!same(b.persons[0]?.name ?? "", base.traveller.name))
          wrong.push(`lead guest '${b.persons[0]?.name}', not ${base.traveller.name}`)
        return wrong
      },
      h.name,
      (b) => `booking ${b.id}: ${room.name} at ${h.name}, ${nights} nights from ${checkIn}, ${guests} guests`
    )
  },
  "travel.booking-email": async (input) => {
    const { base, state } = await snapshot(input)
    const h = hotelNamed(base, param(input, "hotel"))
    const [checkIn, email] = [param(input, "checkIn"), param(input, "email")]
    return firstGood(
      confirmedBookings(state, "hotel").filter((b) => b.hotelId === h.id),
      (b) => {
        const wrong: Array<string> = []
        if (b.checkIn !== checkIn) wrong.push(`check-in ${b.checkIn}, not ${checkIn}`)
        if (b.nights !== 1 || b.people !== 1) wrong.push(`${b.nights} nights for ${b.people} guests, not 1 night for 1`)
        if (!same(b.persons[0]?.name ?? "", base.traveller.name))
          wrong.push(`lead guest '${b.persons[0]?.name}', not ${base.traveller.name}`)
        if (!same(b.persons[0]?.email ?? "", email)) wrong.push(`email '${b.persons[0]?.email}', not '${email}'`)
        return wrong
      },
      h.name,
      (b) => `booking ${b.id} at ${h.name} has email ${email}`
    )
  },
  "travel.answer-departure": async (input) => {
    const a = answered(input)
    if (typeof a !== "string") return a
    const { base } = await snapshot(input)
    const f = flightNamed(base, param(input, "flight"))
    return times(a).includes(f.depart % 1440)
      ? pass(`answer gives ${clock(f.depart)}`)
      : fail(`answer '${a}' does not give the departure time ${clock(f.depart)}`)
  },
  "travel.answer-cheapest-hotel": async (input) => {
    const a = answered(input)
    if (typeof a !== "string") return a
    const { base } = await snapshot(input)
    const c = cityNamed(base, param(input, "city"))
    const min = Math.min(...base.hotels.filter((h) => h.city === c.id).map(fromPrice))
    return numbers(a).some((n) => Math.round(n * 100) === min)
      ? pass(`answer gives ${formatPrice(min)}`)
      : fail(`answer '${a}' does not give the lowest nightly price ${formatPrice(min)} in ${c.name}`)
  },
  "travel.infeasible": async (input) => {
    if (input.status !== "infeasible")
      return fail(`the travel site cannot do this: expected status infeasible, got ${input.status ?? "no status"}`)
    const { state } = await snapshot(input)
    return state.bookings.length > 0 ? fail("reported infeasible, but made a booking anyway") : pass("reported infeasible")
  }
} satisfies Record<string, Checker>
