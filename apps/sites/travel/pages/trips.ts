/** My trips: the list of bookings, a booking's page, changing a passenger's email, cancelling (with a confirmation step) and booking again. */
import { html } from "../../framework/html.ts"
import { cityName, EMAIL, flightById, formatPrice, hotelById } from "../model.ts"
import type { Booking } from "../types.ts"
import { actionButton, breadcrumb, errorSummary, field, notFound, select, travelPage } from "../ui.ts"
import type { Errors, TravelCtx } from "../ui.ts"
import { dateText } from "./flights.ts"
import { personLabel, tripDetails, tripSummary } from "./wizard.ts"

export const tripTitle = (ctx: TravelCtx, t: Booking): string => {
  if (t.kind === "flight") {
    const f = flightById(ctx.base, t.flightId)
    return `${t.returnFlightId ? "Return flight" : "Flight"} ${cityName(ctx.base, f?.from ?? null)} to ${cityName(ctx.base, f?.to ?? null)}, ${t.date}`
  }
  return `${hotelById(ctx.base, t.hotelId)?.name}, from ${t.checkIn}`
}

export const tripsPage = (ctx: TravelCtx): Response => {
  const list = [...ctx.state.bookings].reverse()
  const item = (t: Booking) =>
    html`<li><a href="${ctx.href(`/trips/${t.id}`)}">Booking ${t.id}</a>: ${tripTitle(ctx, t)} · ${formatPrice(t.total)}${t.status === "cancelled" ? " · Cancelled" : ""}</li>`
  return travelPage(ctx, {
    title: "My trips",
    body: html`<h1>My trips</h1>${
      list.length === 0
        ? html`<p>You have no trips yet. Search for <a href="${ctx.href("/flights")}">flights</a> or <a href="${ctx.href("/hotels")}">hotels</a>.</p>`
        : html`<section aria-labelledby="upcoming"><h2 id="upcoming">Upcoming trips</h2>${list.some((t) => t.status === "confirmed") ? html`<ul aria-label="Upcoming trips">${list.filter((t) => t.status === "confirmed").map(item)}</ul>` : html`<p>No upcoming trips.</p>`}</section>
${list.some((t) => t.status === "cancelled") && html`<section aria-labelledby="cancelled"><h2 id="cancelled">Cancelled trips</h2><ul aria-label="Cancelled trips">${list.filter((t) => t.status === "cancelled").map(item)}</ul></section>`}`
    }`
  })
}

const messages: Record<string, string> = {
  booked: "Your booking is confirmed.",
  email: "The email address has been updated.",
  cancelled: "Your booking has been cancelled."
}
const labels = { passenger: "Traveller", email: "New email address" }

const bookingBody = (ctx: TravelCtx, t: Booking, values: { passenger: string; email: string }, errors: Errors) => {
  const again: Record<string, string> =
    t.kind === "flight"
      ? {
          kind: "flight",
          flightId: t.flightId ?? "",
          date: t.date ?? "",
          passengers: String(t.people),
          returnDate: t.returnDate ?? "",
          again: t.id
        }
      : {
          kind: "hotel",
          hotelId: t.hotelId ?? "",
          roomId: t.roomId ?? "",
          checkIn: t.checkIn ?? "",
          nights: String(t.nights),
          guests: String(t.people),
          again: t.id
        }
  return html`${breadcrumb(ctx, [
    ["/trips", "My trips"],
    [`/trips/${t.id}`, `Booking ${t.id}`]
  ])}
<h1>Booking ${t.id}</h1><p>Status: <strong>${t.status === "confirmed" ? "Confirmed" : "Cancelled"}</strong> · Total paid ${formatPrice(t.total)}</p>
${tripSummary(ctx, t)}${tripDetails(ctx, t)}
${
  t.status === "confirmed" &&
  html`<section aria-labelledby="change-email"><h2 id="change-email">Change email address</h2>${errorSummary(errors, labels)}
<form method="post" action="${ctx.href(`/trips/${t.id}/email`)}" novalidate aria-labelledby="change-email">
<p>${select({ name: "passenger", label: labels.passenger, value: values.passenger, errors, options: t.persons.map((p, i) => [String(i + 1), `${personLabel(t, i)}: ${p.name}`] as const) })}</p>
${field({ name: "email", label: labels.email, value: values.email, errors, type: "email", required: true })}
<button type="submit">Update email</button></form></section>
<section aria-labelledby="cancel-title"><h2 id="cancel-title">Cancel</h2><p><a href="${ctx.href(`/trips/${t.id}/cancel`)}">Cancel booking ${t.id}</a></p></section>`
}
<section aria-labelledby="again-title"><h2 id="again-title">Book again</h2><p>Start a new booking of the same ${t.kind} with the same travellers filled in.</p>
${actionButton(ctx, { action: "/booking/start", fields: again, label: "Book again", ariaLabel: `Book again: ${tripTitle(ctx, t)}` })}</section>`
}

const find = (ctx: TravelCtx): Booking | undefined => ctx.state.bookings.find((b) => b.id === ctx.params.id)

export const tripPage = (ctx: TravelCtx): Response => {
  const t = find(ctx)
  if (!t) return notFound(ctx, "There is no such booking in your trips.")
  const m = ctx.query.get("m") ?? ""
  return travelPage(ctx, {
    title: m === "booked" ? `Booking ${t.id} confirmed` : `Booking ${t.id}`,
    message: messages[m] && html`${messages[m]} Booking reference <strong>${t.id}</strong>.`,
    body: bookingBody(ctx, t, { passenger: "1", email: "" }, {})
  })
}

export const changeEmail = (ctx: TravelCtx): Response => {
  const t = find(ctx)
  if (!t) return notFound(ctx, "There is no such booking in your trips.")
  const values = { passenger: ctx.form.get("passenger") ?? "1", email: (ctx.form.get("email") ?? "").trim() }
  const i = Number(values.passenger) - 1
  const errors: Record<string, string> = {}
  if (t.status !== "confirmed") errors.email = "A cancelled booking cannot be changed."
  else if (!Number.isInteger(i) || !t.persons[i]) errors.passenger = "Choose a traveller."
  if (values.email === "") errors.email = "Enter the new email address."
  else if (!EMAIL.test(values.email)) errors.email = "Enter an email address like name@example.com."
  if (Object.keys(errors).length > 0)
    return travelPage(ctx, { title: `Booking ${t.id} — please fix the errors`, status: 422, body: bookingBody(ctx, t, values, errors) })
  t.persons[i]!.email = values.email
  return ctx.redirect(`/trips/${t.id}?m=email`)
}

export const cancelPage = (ctx: TravelCtx): Response => {
  const t = find(ctx)
  if (!t) return notFound(ctx, "There is no such booking in your trips.")
  if (t.status === "cancelled") return ctx.redirect(`/trips/${t.id}`)
  return travelPage(ctx, {
    title: `Cancel booking ${t.id}?`,
    body: html`${breadcrumb(ctx, [
      ["/trips", "My trips"],
      [`/trips/${t.id}`, `Booking ${t.id}`],
      [`/trips/${t.id}/cancel`, "Cancel"]
    ])}
<h1>Cancel booking ${t.id}?</h1><p>${tripTitle(ctx, t)}${t.kind === "flight" && t.date ? `, departing ${dateText(t.date)}` : ""}. This cannot be undone.</p>
<form method="post" action="${ctx.href(`/trips/${t.id}/cancel`)}" aria-label="Confirm cancellation"><input type="hidden" name="confirm" value="yes"><button type="submit">Yes, cancel booking ${t.id}</button></form>
<p><a href="${ctx.href(`/trips/${t.id}`)}">No, keep my booking</a></p>`
  })
}

export const cancelTrip = (ctx: TravelCtx): Response => {
  const t = find(ctx)
  if (!t) return notFound(ctx, "There is no such booking in your trips.")
  if (ctx.form.get("confirm") !== "yes") return ctx.redirect(`/trips/${t.id}/cancel`)
  t.status = "cancelled"
  return ctx.redirect(`/trips/${t.id}?m=cancelled`)
}
