/** The home page (both search forms, destinations, deals) and the city pages that give a second way into flights and hotels. */
import { html } from "../../framework/html.ts"
import type { Html } from "../../framework/html.ts"
import { cityById, cityName, formatPrice, parseFlightQuery, searchHotels } from "../model.ts"
import type { Flight, TravelBase } from "../types.ts"
import { actionButton, breadcrumb, notFound, travelPage } from "../ui.ts"
import type { TravelCtx } from "../ui.ts"
import { dateText, flightSearchForm, flightSummary } from "./flights.ts"
import { hotelCard, hotelSearchForm, parseStay } from "./hotels.ts"

/** The cheapest flight into a city from each origin, each with its deal date. */
export const dealsTo = (b: TravelBase, city: string): Array<{ flight: Flight; date: string }> => {
  const best = new Map<string, Flight>()
  for (const f of b.flights) {
    if (f.to !== city) continue
    const cur = best.get(f.from)
    if (!cur || f.price < cur.price || (f.price === cur.price && f.id < cur.id)) best.set(f.from, f)
  }
  return [...best.values()]
    .sort((x, y) => x.price - y.price || x.id.localeCompare(y.id))
    .map((flight) => ({ flight, date: b.dates[(b.flights.indexOf(flight) * 7) % b.dates.length]! }))
}

const dealList = (ctx: TravelCtx, deals: ReadonlyArray<{ flight: Flight; date: string }>): Html =>
  html`<ul class="results" aria-label="Flight deals">${deals.map(
    ({ flight: f, date }) => html`<li><h3>${cityName(ctx.base, f.from)} to ${cityName(ctx.base, f.to)}: ${formatPrice(f.price)}</h3>
<p>Flight ${f.id} on ${dateText(date)} · ${flightSummary(ctx, f)}</p>
<p><a href="${ctx.href(`/flights/${f.id}?date=${date}`)}" aria-label="Details of flight ${f.id}">Flight details</a>
${actionButton(ctx, { action: "/booking/start", fields: { kind: "flight", flightId: f.id, date, passengers: "1", returnDate: "" }, label: "Book this deal", ariaLabel: `Book deal: flight ${f.id} from ${cityName(ctx.base, f.from)} on ${date}` })}</p></li>`
  )}</ul>`

export const home = (ctx: TravelCtx): Response => {
  const b = ctx.base
  const month = `${b.dates[0]!.slice(0, 7)}`
  const featured = b.cities.slice(0, 3)
  return travelPage(ctx, {
    title: "Home",
    message: ctx.query.get("m") === "discarded" ? "Your booking in progress was discarded." : undefined,
    body: html`<h1>Welcome to CORE Travel</h1><p>Book flights and hotels for ${month}. Every flight operates daily.</p>
${flightSearchForm(ctx, parseFlightQuery(b, new URLSearchParams()))}
${hotelSearchForm(ctx, parseStay(b, new URLSearchParams()))}
<section aria-labelledby="destinations"><h2 id="destinations">Destinations</h2><ul>${b.cities.map(
      (c) => html`<li><a href="${ctx.href(`/cities/${c.id}`)}">${c.name}</a>, ${c.country}</li>`
    )}</ul></section>
<section aria-labelledby="deals"><h2 id="deals">Top deals</h2>${dealList(ctx, featured.map((c) => dealsTo(b, c.id)[0]!).filter(Boolean))}</section>`
  })
}

export const cityPage = (ctx: TravelCtx): Response => {
  const b = ctx.base
  const c = cityById(b, ctx.params.id ?? "")
  if (!c) return notFound(ctx, "There is no such city.")
  const stay = { ...parseStay(b, new URLSearchParams()), city: c.id }
  const hotels = searchHotels(b, c.id, 1, 1, "score")
  return travelPage(ctx, {
    title: `${c.name}, ${c.country}`,
    body: html`${breadcrumb(ctx, [
      ["/", "Home"],
      [`/cities/${c.id}`, c.name]
    ])}<h1>${c.name}, ${c.country}</h1><p>Airport code ${c.code}.</p>
<section aria-labelledby="city-deals"><h2 id="city-deals">Flight deals to ${c.name}</h2>${dealList(ctx, dealsTo(b, c.id))}</section>
<section aria-labelledby="city-hotels"><h2 id="city-hotels">Hotels in ${c.name}</h2><ul class="results" aria-label="Hotels in ${c.name}">${hotels.map((h) => hotelCard(ctx, h, stay))}</ul>
<p><a href="${ctx.href(`/hotels?city=${c.id}`)}">Search hotels in ${c.name}</a></p></section>`
  })
}
