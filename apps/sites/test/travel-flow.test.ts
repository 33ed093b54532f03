import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { travel } from "../travel/mod.ts"
import { bookingById, confirmedBookings, travellerByName, travelState } from "../eval/mod.ts"
import { farePrice } from "../travel/model.ts"
import { linksTo, startEpisode, textOf, withServer } from "./client.ts"

const env = withServer()
beforeAll(env.start)
afterAll(env.stop)

const alice = { name: "Alice Moreau", email: "alice@example.org", dob: "1988-02-29", passport: "FR1234567" }
const bob = { name: "Bob Moreau", email: "bob@example.org", dob: "1990-11-03", passport: "FR7654321" }
const personForm = (i: number, p: Record<string, string>) => Object.fromEntries(Object.entries(p).map(([k, v]) => [`p${i}-${k}`, v]))

describe("travel: flows over HTTP, with the state API following each change", () => {
  test("return flight: search → select → fare → details (invalid, then valid) → seats and extras → review → confirm → My trips", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "travel", 31)
    const base = travel.base(31)
    const out = base.flights[5]!
    const back = base.flights.find((f) => f.from === out.to && f.to === out.from)!
    const [date, ret] = [base.dates[4]!, base.dates[9]!]
    const results = await browser.get(`/travel/flights?trip=return&from=${out.from}&to=${out.to}&date=${date}&return=${ret}&passengers=2`)
    expect(results.status).toBe(200)
    expect(results.text).toContain(`aria-label="Select flight ${out.id}"`)
    expect(results.text).toContain("<legend>Stops</legend>")
    expect(linksTo(results, "Flight details")).toContain(`/travel/flights/${out.id}?date=${date}&passengers=2&return=${ret}`)

    const step1 = await browser.post("/travel/booking/start", { kind: "flight", flightId: out.id, date, passengers: "2", returnDate: ret })
    expect(step1.path).toBe("/travel/booking/1")
    expect(step1.text).toContain("<legend>Fare</legend>")
    expect(step1.text).toContain("<legend>Return flight</legend>")
    expect((await travelState(s, tenant)).state.draft).toMatchObject({
      kind: "flight",
      step: 1,
      flightId: out.id,
      date,
      returnDate: ret,
      people: 2
    })
    // Later steps are not reachable yet: they send the agent back to the furthest step.
    expect((await browser.get("/travel/booking/3")).path).toBe("/travel/booking/1")
    const noFare = await browser.post("/travel/booking/1", {})
    expect(noFare.status).toBe(422)
    expect(noFare.text).toContain('id="fare-error"')
    expect(noFare.text).toContain('id="returnFlightId-error"')

    const step2 = await browser.post("/travel/booking/1", { fare: "premium", returnFlightId: back.id })
    expect(step2.path).toBe("/travel/booking/2")
    expect(step2.text).toContain('<label for="p2-passport">Passport number</label>')
    const bad = await browser.post("/travel/booking/2", {
      ...personForm(1, { ...alice, email: "alice-at-example", dob: "29/02/1988" }),
      ...personForm(2, { ...bob, name: "", passport: "12345" })
    })
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('role="alert"')
    for (const f of ["p1-email", "p1-dob", "p2-name", "p2-passport"])
      expect(bad.text).toMatch(
        new RegExp(
          `id="${f}"[^>]*aria-invalid="true" aria-describedby="${f}-hint ${f}-error"|id="${f}"[^>]*aria-invalid="true" aria-describedby="${f}-error"`
        )
      )
    expect(bad.text).not.toContain('id="p1-name-error"')
    expect(textOf(bad)).toContain("Passport number must be 2 capital letters and 7 digits")
    expect(bad.text).toContain('value="Alice Moreau"')
    expect((await travelState(s, tenant)).state.draft!.step).toBe(2)

    const step3 = await browser.post("/travel/booking/2", { ...personForm(1, alice), ...personForm(2, { ...bob, passport: "fr7654321" }) })
    expect(step3.path).toBe("/travel/booking/3")
    expect(step3.text).toContain('<label for="seat-2">Seat for passenger 2 (Bob Moreau)</label>')
    const step4 = await browser.post("/travel/booking/3", { "seat-1": "window", "seat-2": "aisle", extras: "bag" })
    expect(step4.path).toBe("/travel/booking/4")
    const total = (farePrice(out, "premium") + farePrice(back, "premium")) * 2 + 3500 * 2
    expect(textOf(step4)).toContain(`Confirm and book for $${(total / 100).toFixed(2)}`)
    expect(step4.text).toContain('aria-current="step"')
    // Back to step 2 keeps what was entered; moving forward again keeps the later steps.
    const again2 = await browser.get("/travel/booking/2")
    expect(again2.text).toContain('value="FR7654321"')
    expect((await browser.get("/travel/booking/4")).status).toBe(200)

    const confirmed = await browser.request("/travel/booking/confirm", { method: "POST", form: {} })
    expect(confirmed.path).toBe("/travel/trips/B-1001?m=booked")
    expect(textOf(confirmed)).toContain("Your booking is confirmed. Booking reference B-1001")
    const snap = await travelState(s, tenant)
    expect(snap.state.draft).toBeNull()
    expect(bookingById(snap.state, "B-1001")).toEqual({
      kind: "flight",
      people: 2,
      flightId: out.id,
      date,
      returnFlightId: back.id,
      returnDate: ret,
      fare: "premium",
      hotelId: null,
      roomId: null,
      checkIn: null,
      nights: null,
      persons: [alice, bob],
      seats: ["window", "aisle"],
      extras: ["bag"],
      id: "B-1001",
      status: "confirmed",
      total
    })
    const trips = await browser.get("/travel/trips")
    expect(linksTo(trips, "Booking B-1001")).toEqual(["/travel/trips/B-1001"])
    expect(textOf(trips)).toContain("My trips (1)")
  })

  test("hotel via a city page: room → guest (prefilled from the saved traveller) → extras → confirm", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "travel", 32)
    const base = travel.base(32)
    const city = base.cities[4]!
    const cityPage = await browser.get(`/travel/cities/${city.id}`)
    const hotel = base.hotels.find((h) => h.city === city.id)!
    const link = linksTo(cityPage, hotel.name)[0]!
    const page = await browser.get(link)
    expect(page.text).toContain(`<h1 id="hotel-title">${hotel.name}</h1>`)
    const room = hotel.rooms[0]!
    const step1 = await browser.post("/travel/booking/start", {
      kind: "hotel",
      hotelId: hotel.id,
      roomId: room.id,
      checkIn: base.dates[10]!,
      nights: "3",
      guests: "1"
    })
    expect(step1.text).toContain(`value="${room.id}" checked`)
    const step2 = await browser.post("/travel/booking/1", { roomId: room.id })
    expect(step2.text).toContain("Use a saved traveller")
    const filled = await browser.post("/travel/booking/2/prefill", { traveller: "T-1" })
    expect(filled.path).toBe("/travel/booking/2?m=prefilled")
    expect(filled.text).toContain(`value="${base.traveller.passport}"`)
    expect((await travelState(s, tenant)).state.draft!.persons[0]).toEqual({
      name: base.traveller.name,
      email: base.traveller.email,
      dob: base.traveller.dob,
      passport: base.traveller.passport
    })
    // Hotels need no passport.
    await browser.post("/travel/booking/2", personForm(1, { ...base.traveller, passport: "" }))
    await browser.post("/travel/booking/3", { extras: "breakfast" })
    const done = await browser.post("/travel/booking/confirm", {})
    expect(done.path).toBe("/travel/trips/B-1001?m=booked")
    const b = bookingById((await travelState(s, tenant)).state, "B-1001")!
    expect(b).toMatchObject({
      kind: "hotel",
      hotelId: hotel.id,
      roomId: room.id,
      checkIn: base.dates[10],
      nights: 3,
      people: 1,
      extras: ["breakfast"],
      status: "confirmed"
    })
    expect(b.total).toBe(room.price * 3 + 1500 * 3)
  })

  test("My trips: change email (invalid, then valid), cancel with a confirmation step, book again", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "travel", 33)
    const base = travel.base(33)
    const f = base.flights[0]!
    await browser.post("/travel/booking/start", { kind: "flight", flightId: f.id, date: base.dates[0]!, passengers: "1", returnDate: "" })
    await browser.post("/travel/booking/1", { fare: "economy" })
    await browser.post("/travel/booking/2", personForm(1, alice))
    await browser.post("/travel/booking/3", {})
    await browser.post("/travel/booking/confirm", {})
    const bad = await browser.post("/travel/trips/B-1001/email", { passenger: "1", email: "nope" })
    expect(bad.status).toBe(422)
    expect(bad.text).toMatch(/id="email"[^>]*aria-invalid="true" aria-describedby="email-error"/)
    const ok = await browser.post("/travel/trips/B-1001/email", { passenger: "1", email: "alice@new.example" })
    expect(textOf(ok)).toContain("The email address has been updated.")
    expect(bookingById((await travelState(s, tenant)).state, "B-1001")!.persons[0]!.email).toBe("alice@new.example")

    const trip = await browser.get("/travel/trips/B-1001")
    expect(linksTo(trip, "Cancel booking B-1001")).toEqual(["/travel/trips/B-1001/cancel"])
    const confirm = await browser.get("/travel/trips/B-1001/cancel")
    expect(confirm.text).toContain(">Yes, cancel booking B-1001</button>")
    expect(bookingById((await travelState(s, tenant)).state, "B-1001")!.status).toBe("confirmed")
    expect((await browser.post("/travel/trips/B-1001/cancel", {})).path).toBe("/travel/trips/B-1001/cancel")
    const cancelled = await browser.post("/travel/trips/B-1001/cancel", { confirm: "yes" })
    expect(textOf(cancelled)).toContain("Your booking has been cancelled.")
    expect(textOf(cancelled)).toContain("Status: Cancelled")
    const snap = await travelState(s, tenant)
    expect(bookingById(snap.state, "B-1001")!.status).toBe("cancelled")
    expect(confirmedBookings(snap.state)).toHaveLength(0)
    expect(textOf(await browser.get("/travel/trips"))).toContain("Cancelled trips")

    const again = await browser.post("/travel/booking/start", {
      kind: "flight",
      flightId: f.id,
      date: base.dates[0]!,
      passengers: "1",
      returnDate: "",
      again: "B-1001"
    })
    expect(again.path).toBe("/travel/booking/1")
    expect((await travelState(s, tenant)).state.draft!.persons[0]).toEqual({ ...alice, email: "alice@new.example" })
  })

  test("saved travellers: add (invalid, then valid), edit, save from step 2, prefill a second passenger", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "travel", 34)
    const base = travel.base(34)
    const bad = await browser.post("/travel/travellers", { name: "", email: "x", dob: "1990-02-30", passport: "" })
    expect(bad.status).toBe(422)
    for (const f of ["name", "email", "dob"]) expect(bad.text).toContain(`id="${f}-error"`)
    expect(textOf(await browser.post("/travel/travellers", bob))).toContain("Traveller saved.")
    expect(travellerByName((await travelState(s, tenant)).state, "bob moreau")).toEqual({ id: "T-2", ...bob })
    const edited = await browser.post("/travel/travellers/T-2", { ...bob, email: "bob@elsewhere.example" })
    expect(textOf(edited)).toContain("Traveller updated.")
    expect((await travelState(s, tenant)).state.travellers[1]!.email).toBe("bob@elsewhere.example")

    await browser.post("/travel/booking/start", {
      kind: "flight",
      flightId: base.flights[3]!.id,
      date: base.dates[2]!,
      passengers: "2",
      returnDate: ""
    })
    await browser.post("/travel/booking/1", { fare: "business" })
    const filled = await browser.post("/travel/booking/2/prefill", { traveller: "T-2", slot: "2" })
    expect(filled.text).toContain('id="p2-name" name="p2-name" type="text" value="Bob Moreau"')
    await browser.post("/travel/booking/2", {
      ...personForm(1, alice),
      "p1-save": "1",
      ...personForm(2, { ...bob, email: "bob@elsewhere.example" })
    })
    const snap = await travelState(s, tenant)
    expect(snap.state.travellers.map((t) => t.name)).toEqual([base.traveller.name, "Bob Moreau", "Alice Moreau"])
    expect(snap.state.draft).toMatchObject({ step: 3, fare: "business", persons: [alice, { ...bob, email: "bob@elsewhere.example" }] })
  })
})

describe("travel: isolation", () => {
  test("parallel episodes never see each other's drafts, bookings or travellers", async () => {
    const s = env.server()
    const base = travel.base(40)
    const eps = await Promise.all(Array.from({ length: 6 }, () => startEpisode(s, "travel", 40)))
    await Promise.all(
      eps.map(async (e, i) => {
        await e.browser.post("/travel/booking/start", {
          kind: "flight",
          flightId: base.flights[i]!.id,
          date: base.dates[i]!,
          passengers: "1",
          returnDate: ""
        })
        await e.browser.post("/travel/booking/1", { fare: "economy" })
        await e.browser.post("/travel/booking/2", personForm(1, { ...alice, name: `Traveller ${i}` }))
        await e.browser.post("/travel/booking/3", {})
        if (i % 2 === 0) await e.browser.post("/travel/booking/confirm", {})
      })
    )
    await Promise.all(
      eps.map(async (e, i) => {
        const st = (await travelState(s, e.tenant)).state
        expect(st.bookings.map((b) => b.flightId)).toEqual(i % 2 === 0 ? [base.flights[i]!.id] : [])
        expect(st.draft === null).toBe(i % 2 === 0)
        const trips = textOf(await e.browser.get("/travel/trips"))
        expect(trips.includes("B-1001")).toBe(i % 2 === 0)
      })
    )
  })
})
