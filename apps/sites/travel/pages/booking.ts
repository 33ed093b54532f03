/** The booking wizard: starting a draft, steps 1 (fare or room), 3 (seats and extras) and 4 (review), confirming; step 2 lives in ./details.ts. */
import { html } from "../../framework/html.ts"
import {
  clock,
  extrasOf,
  FARES,
  farePrice,
  flightById,
  formatPrice,
  hotelById,
  personErrors,
  priceLines,
  SEATS,
  stopsText
} from "../model.ts"
import type { Draft, Fare, Person, Seat } from "../types.ts"
import { actionButton, errorSummary, notFound, radios, select, travelPage } from "../ui.ts"
import type { Errors, TravelCtx } from "../ui.ts"
import { detailsPage, saveDetails } from "./details.ts"
import { tripDetails, wizardPage } from "./wizard.ts"

const blank = (): Person => ({ name: "", email: "", dob: "", passport: "" })
const intIn = (s: string | null, lo: number, hi: number): number | null => {
  const n = Number(s ?? "")
  return s !== null && s !== "" && Number.isInteger(n) && n >= lo && n <= hi ? n : null
}

const cannotStart = (ctx: TravelCtx, why: string): Response =>
  travelPage(ctx, {
    title: "Booking not started",
    status: 422,
    body: html`<h1>We could not start this booking</h1><p role="alert">${why}</p><p><a href="${ctx.href("/")}">Back to the home page</a></p>`
  })

/** POST /booking/start: a new draft from a search result, a flight or hotel page, a deal, or "book again" (which copies the people). */
export const startBooking = (ctx: TravelCtx): Response => {
  const b = ctx.base
  const f = (k: string): string => (ctx.form.get(k) ?? "").trim()
  const again = ctx.state.bookings.find((x) => x.id === f("again"))
  const common = { returnFlightId: null, fare: null, seats: [], extras: [], step: 1 }
  let draft: Draft
  if (f("kind") === "flight") {
    const flight = flightById(b, f("flightId"))
    const people = intIn(f("passengers"), 1, 6)
    if (!flight) return cannotStart(ctx, "There is no such flight.")
    if (!b.dates.includes(f("date"))) return cannotStart(ctx, "Choose a departure date in the calendar.")
    if (people === null) return cannotStart(ctx, "Choose between 1 and 6 passengers.")
    const ret = f("returnDate")
    if (ret !== "" && (!b.dates.includes(ret) || ret < f("date")))
      return cannotStart(ctx, "The return date must be in the calendar and not before the departure date.")
    draft = {
      ...common,
      kind: "flight",
      people,
      flightId: flight.id,
      date: f("date"),
      returnDate: ret === "" ? null : ret,
      hotelId: null,
      roomId: null,
      checkIn: null,
      nights: null,
      persons: Array.from({ length: people }, blank)
    }
  } else if (f("kind") === "hotel") {
    const hotel = hotelById(b, f("hotelId"))
    const people = intIn(f("guests"), 1, 4)
    const nights = intIn(f("nights"), 1, 14)
    if (!hotel) return cannotStart(ctx, "There is no such hotel.")
    if (!b.dates.includes(f("checkIn"))) return cannotStart(ctx, "Choose a check-in date in the calendar.")
    if (people === null || nights === null) return cannotStart(ctx, "Choose 1 to 4 guests and 1 to 14 nights.")
    const room = hotel.rooms.find((r) => r.id === f("roomId") && r.capacity >= people)
    draft = {
      ...common,
      kind: "hotel",
      people,
      flightId: null,
      date: null,
      returnDate: null,
      hotelId: hotel.id,
      roomId: room?.id ?? null,
      checkIn: f("checkIn"),
      nights,
      persons: [blank()]
    }
  } else return cannotStart(ctx, "Choose a flight or a hotel first.")
  if (again && again.kind === draft.kind) draft.persons = draft.persons.map((p, i) => (again.persons[i] ? { ...again.persons[i]! } : p))
  ctx.state.draft = draft
  return ctx.redirect("/booking/1")
}

const noDraft = (ctx: TravelCtx): Response =>
  travelPage(ctx, {
    title: "No booking in progress",
    body: html`<h1>No booking in progress</h1><p>Start by searching for <a href="${ctx.href("/flights")}">flights</a> or <a href="${ctx.href("/hotels")}">hotels</a>, or book again from <a href="${ctx.href("/trips")}">My trips</a>.</p>`
  })

const step1 = (ctx: TravelCtx, d: Draft, values: Record<string, string>, errors: Errors): Response => {
  const b = ctx.base
  const labels = { fare: "Fare", returnFlightId: "Return flight", roomId: "Room" }
  let form
  if (d.kind === "flight") {
    const out = flightById(b, d.flightId)!
    const backs = b.flights
      .filter((x) => x.from === out.to && x.to === out.from)
      .sort((x, y) => x.depart - y.depart || x.id.localeCompare(y.id))
    const fareOf = (fare: Fare) =>
      farePrice(out, fare) + (flightById(b, values.returnFlightId ?? "") ? farePrice(flightById(b, values.returnFlightId!)!, fare) : 0)
    form = html`${radios({ name: "fare", legend: "Fare", value: values.fare ?? "", errors, options: (Object.keys(FARES) as Array<Fare>).map((k) => [k, html`${FARES[k].label}: ${formatPrice(fareOf(k))} per passenger${d.returnDate ? " (outbound, plus the return fare)" : ""}`] as const) })}
${d.returnDate && radios({ name: "returnFlightId", legend: "Return flight", value: values.returnFlightId ?? "", errors, options: backs.map((x) => [x.id, `${x.id}, departs ${clock(x.depart)}, ${stopsText(x.stops)}, economy ${formatPrice(x.price)}`] as const) })}`
  } else {
    const h = hotelById(b, d.hotelId)!
    form = radios({
      name: "roomId",
      legend: "Room",
      value: values.roomId ?? "",
      errors,
      options: h.rooms
        .filter((r) => r.capacity >= d.people)
        .map((r) => [r.id, `${r.name}, sleeps ${r.capacity}, ${formatPrice(r.price)} per night`] as const)
    })
  }
  return wizardPage(ctx, d, 1, {
    status: Object.keys(errors).length > 0 ? 422 : 200,
    errors: Object.keys(errors).length > 0,
    body: html`${errorSummary(errors, labels)}<form method="post" action="${ctx.href("/booking/1")}" novalidate aria-label="Step 1">${form}<button type="submit">Continue to step 2</button></form>
${actionButton(ctx, { action: "/booking/discard", fields: {}, label: "Discard this booking" })}`
  })
}

const saveStep1 = (ctx: TravelCtx, d: Draft): Response => {
  const values = {
    fare: ctx.form.get("fare") ?? "",
    returnFlightId: ctx.form.get("returnFlightId") ?? "",
    roomId: ctx.form.get("roomId") ?? ""
  }
  const errors: Record<string, string> = {}
  if (d.kind === "flight") {
    if (!(values.fare in FARES)) errors.fare = "Choose a fare."
    const out = flightById(ctx.base, d.flightId)!
    const back = flightById(ctx.base, values.returnFlightId)
    if (d.returnDate && (!back || back.from !== out.to || back.to !== out.from)) errors.returnFlightId = "Choose a return flight."
    if (Object.keys(errors).length > 0) return step1(ctx, d, values, errors)
    d.fare = values.fare as Fare
    d.returnFlightId = d.returnDate ? values.returnFlightId : null
  } else {
    const room = hotelById(ctx.base, d.hotelId)!.rooms.find((r) => r.id === values.roomId && r.capacity >= d.people)
    if (!room) return step1(ctx, d, values, { roomId: "Choose a room." })
    d.roomId = room.id
  }
  d.step = Math.max(d.step, 2)
  return ctx.redirect("/booking/2")
}

const step3 = (ctx: TravelCtx, d: Draft): Response =>
  wizardPage(ctx, d, 3, {
    body: html`<form method="post" action="${ctx.href("/booking/3")}" aria-label="Step 3">
${d.kind === "flight" && html`<fieldset><legend>Seat preference</legend>${d.persons.map((p, i) => html`<p>${select({ name: `seat-${i + 1}`, label: `Seat for passenger ${i + 1} (${p.name})`, value: d.seats[i] ?? "none", options: Object.entries(SEATS) })}</p>`)}</fieldset>`}
<fieldset><legend>Extras</legend>${extrasOf(d.kind).map(
      (e) =>
        html`<p><input type="checkbox" id="extra-${e.id}" name="extras" value="${e.id}"${d.extras.includes(e.id) ? html` checked` : ""}> <label for="extra-${e.id}">${e.label} (${formatPrice(e.price)} ${e.per === "person" ? `per ${d.kind === "flight" ? "passenger" : "guest"}` : e.per === "night" ? "per guest per night" : "per stay"})</label></p>`
    )}</fieldset>
<p><a href="${ctx.href("/booking/2")}">Back to step 2</a> <button type="submit">Continue to review</button></p></form>`
  })

const saveStep3 = (ctx: TravelCtx, d: Draft): Response => {
  d.seats =
    d.kind === "flight"
      ? d.persons.map((_, i) => {
          const s = ctx.form.get(`seat-${i + 1}`) ?? "none"
          return (s in SEATS ? s : "none") as Seat
        })
      : []
  const chosen = ctx.form.getAll("extras")
  d.extras = extrasOf(d.kind)
    .map((e) => e.id)
    .filter((id) => chosen.includes(id))
  d.step = Math.max(d.step, 4)
  return ctx.redirect("/booking/4")
}

const step4 = (ctx: TravelCtx, d: Draft): Response =>
  wizardPage(ctx, d, 4, {
    body: html`<p><a href="${ctx.href("/booking/1")}">Change ${d.kind === "flight" ? "fare" : "room"} (step 1)</a> · <a href="${ctx.href("/booking/2")}">Change details (step 2)</a> · <a href="${ctx.href("/booking/3")}">Change ${d.kind === "flight" ? "seats and extras" : "extras"} (step 3)</a></p>
${tripDetails(ctx, d)}
<form method="post" action="${ctx.href("/booking/confirm")}" aria-label="Confirm booking"><button type="submit">Confirm and book for ${formatPrice(priceLines(ctx.base, d).total)}</button></form>`
  })

const stepOf = (ctx: TravelCtx): number | null => intIn(ctx.params.step ?? "", 1, 4)

export const bookingStep = (ctx: TravelCtx): Response => {
  const step = stepOf(ctx)
  if (step === null) return notFound(ctx, "There is no such booking step.")
  const d = ctx.state.draft
  if (!d) return noDraft(ctx)
  if (step > d.step) return ctx.redirect(`/booking/${d.step}`)
  if (step === 1) return step1(ctx, d, { fare: d.fare ?? "", returnFlightId: d.returnFlightId ?? "", roomId: d.roomId ?? "" }, {})
  if (step === 2) return detailsPage(ctx, d)
  return step === 3 ? step3(ctx, d) : step4(ctx, d)
}

export const saveBookingStep = (ctx: TravelCtx): Response => {
  const step = stepOf(ctx)
  if (step === null || step === 4) return notFound(ctx, "There is no such booking step.")
  const d = ctx.state.draft
  if (!d) return noDraft(ctx)
  if (step > d.step) return ctx.redirect(`/booking/${d.step}`)
  return step === 1 ? saveStep1(ctx, d) : step === 2 ? saveDetails(ctx, d) : saveStep3(ctx, d)
}

export const confirmBooking = (ctx: TravelCtx): Response => {
  const d = ctx.state.draft
  if (!d) return noDraft(ctx)
  if (d.step < 4) return ctx.redirect(`/booking/${d.step}`)
  if (d.persons.some((p) => Object.keys(personErrors(ctx.base, p, d.kind === "flight")).length > 0)) return ctx.redirect("/booking/2")
  const { step: _step, ...trip } = d
  const id = `B-${1001 + ctx.state.bookings.length}`
  ctx.state.bookings.push({ ...trip, id, status: "confirmed", total: priceLines(ctx.base, d).total })
  ctx.state.draft = null
  return ctx.redirect(`/trips/${id}?m=booked`)
}

export const discardBooking = (ctx: TravelCtx): Response => {
  ctx.state.draft = null
  return ctx.redirect("/?m=discarded")
}
