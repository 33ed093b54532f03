/** Pieces shared by the booking wizard and My trips: step navigation and the summary of what is booked. */
import { html } from "../../framework/html.ts"
import type { Html, Part } from "../../framework/html.ts"
import {
  arrival,
  checkOut,
  cityName,
  clock,
  extrasOf,
  FARES,
  flightById,
  formatPrice,
  hotelById,
  priceLines,
  roomOf,
  SEATS
} from "../model.ts"
import type { Draft, Trip } from "../types.ts"
import { travelPage } from "../ui.ts"
import type { TravelCtx } from "../ui.ts"
import { dateText } from "./flights.ts"

export const stepNames = (kind: Trip["kind"]): ReadonlyArray<string> =>
  kind === "flight"
    ? ["Select fare", "Passenger details", "Seats and extras", "Review and confirm"]
    : ["Select room", "Guest details", "Extras", "Review and confirm"]

export const personLabel = (t: Trip, i: number): string => (t.kind === "hotel" ? "Lead guest" : `Passenger ${i + 1}`)

/** A wizard page: the step list (reached steps are links) above the step's own content. */
export const wizardPage = (
  ctx: TravelCtx,
  d: Draft,
  step: number,
  opts: { body: Part; status?: number; message?: Part; errors?: boolean }
): Response => {
  const names = stepNames(d.kind)
  return travelPage(ctx, {
    title: `${opts.errors ? "Please fix the errors — " : ""}Step ${step} of 4: ${names[step - 1]}`,
    status: opts.status,
    message: opts.message,
    body: html`<nav aria-label="Booking steps"><ol>${names.map((n, i) =>
      i + 1 === step
        ? html`<li><a href="${ctx.href(`/booking/${i + 1}`)}" aria-current="step">Step ${i + 1}: ${n}</a></li>`
        : i + 1 <= d.step
          ? html`<li><a href="${ctx.href(`/booking/${i + 1}`)}">Step ${i + 1}: ${n}</a></li>`
          : html`<li>Step ${i + 1}: ${n} (not reached yet)</li>`
    )}</ol></nav>
<h1>Step ${step} of 4: ${names[step - 1]}</h1>${tripSummary(ctx, d)}${opts.body}`
  })
}

/** What is booked, where and when (without the people). */
export const tripSummary = (ctx: TravelCtx, t: Trip): Html => {
  const b = ctx.base
  if (t.kind === "flight") {
    const legs = [
      ["Outbound", flightById(b, t.flightId), t.date],
      ["Return", flightById(b, t.returnFlightId), t.returnDate]
    ] as const
    return html`<section aria-labelledby="trip-summary"><h2 id="trip-summary">Your trip</h2><ul>${legs.map(([name, f, date]) =>
      f && date
        ? html`<li>${name}: flight ${f.id}, ${cityName(b, f.from)} to ${cityName(b, f.to)}, ${dateText(date)}, departs ${clock(f.depart)}, arrives ${arrival(f)}</li>`
        : name === "Return" && t.returnDate
          ? html`<li>Return: ${dateText(t.returnDate)}, flight not chosen yet</li>`
          : ""
    )}<li>${t.people} ${t.people === 1 ? "passenger" : "passengers"}${t.fare && html`, ${FARES[t.fare].label}`}</li></ul></section>`
  }
  const h = hotelById(b, t.hotelId)
  const room = roomOf(h, t.roomId)
  return html`<section aria-labelledby="trip-summary"><h2 id="trip-summary">Your stay</h2><ul><li>${h?.name}, ${cityName(b, h?.city ?? null)}</li>
<li>Check-in ${dateText(t.checkIn ?? "")}, check-out ${dateText(checkOut(t) ?? "")} (${t.nights} ${t.nights === 1 ? "night" : "nights"})</li>
<li>${t.people} ${t.people === 1 ? "guest" : "guests"}${room && html`, ${room.name}`}</li></ul></section>`
}

/** People, seats, extras and prices: the review step and the booking page. */
export const tripDetails = (ctx: TravelCtx, t: Trip): Html => {
  const { lines, total } = priceLines(ctx.base, t)
  const extras = extrasOf(t.kind).filter((e) => t.extras.includes(e.id))
  return html`<section aria-labelledby="people-title"><h2 id="people-title">${t.kind === "flight" ? "Passengers" : "Guest"}</h2>
<table><caption>${t.kind === "flight" ? "Passenger details" : "Lead guest details"}</caption><thead><tr><th scope="col">Traveller</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Date of birth</th><th scope="col">Passport</th>${t.kind === "flight" && html`<th scope="col">Seat</th>`}</tr></thead><tbody>
${t.persons.map((p, i) => html`<tr><th scope="row">${personLabel(t, i)}</th><td>${p.name}</td><td>${p.email}</td><td>${p.dob}</td><td>${p.passport || "—"}</td>${t.kind === "flight" && html`<td>${SEATS[t.seats[i] ?? "none"]}</td>`}</tr>`)}</tbody></table></section>
<section aria-labelledby="extras-title"><h2 id="extras-title">Extras</h2>${extras.length === 0 ? html`<p>No extras.</p>` : html`<ul>${extras.map((e) => html`<li>${e.label}</li>`)}</ul>`}</section>
<section aria-labelledby="price-title"><h2 id="price-title">Price</h2><table><caption>Price breakdown</caption><tbody>${lines.map((l) => html`<tr><th scope="row">${l.label}</th><td>${formatPrice(l.amount)}</td></tr>`)}
<tr><th scope="row">Total</th><td><strong>${formatPrice(total)}</strong></td></tr></tbody></table></section>`
}
