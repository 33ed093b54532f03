/** Hotels: search with a star filter and sorting, and the hotel page with its rooms. */
import { html } from "../../framework/html.ts"
import type { Html } from "../../framework/html.ts"
import { cityName, formatPrice, fromPrice, hotelById, HOTEL_SORTS, searchHotels } from "../model.ts"
import type { HotelSort } from "../model.ts"
import type { Hotel, TravelBase } from "../types.ts"
import { actionButton, breadcrumb, errorSummary, notFound, select, travelPage } from "../ui.ts"
import type { TravelCtx } from "../ui.ts"
import { cityOptions, dateOptions, dateText, peopleOptions } from "./flights.ts"

export interface Stay {
  readonly city: string
  readonly checkIn: string
  readonly nights: number
  readonly guests: number
}

const intIn = (s: string | null, lo: number, hi: number, fallback: number): number => {
  const n = Number(s ?? "")
  return s !== null && s !== "" && Number.isInteger(n) && n >= lo && n <= hi ? n : fallback
}

export const parseStay = (b: TravelBase, q: URLSearchParams): Stay => ({
  city: q.get("city") ?? "",
  checkIn: b.dates.includes(q.get("checkIn") ?? "") ? q.get("checkIn")! : b.dates[0]!,
  nights: intIn(q.get("nights"), 1, 14, 1),
  guests: intIn(q.get("guests"), 1, 4, 1)
})

const stayQuery = (s: Stay): string =>
  new URLSearchParams({ checkIn: s.checkIn, nights: String(s.nights), guests: String(s.guests) }).toString()

const stayFields = (b: TravelBase, s: Stay): Html =>
  html`<p>${select({ name: "checkIn", label: "Check-in date", value: s.checkIn, options: dateOptions(b) })}</p>
<p>${select({ name: "nights", label: "Nights", value: String(s.nights), options: peopleOptions(14) })}</p>
<p>${select({ name: "guests", label: "Guests", value: String(s.guests), options: peopleOptions(4) })}</p>`

export const hotelSearchForm = (ctx: TravelCtx, s: Stay, error?: string): Html =>
  html`<form method="get" action="${ctx.href("/hotels")}" aria-labelledby="hotel-search-title" novalidate><h2 id="hotel-search-title">Search hotels</h2>
<p>${select({ name: "city", label: "City", value: s.city, options: cityOptions(ctx.base, "Choose a city"), errors: error ? { city: error } : {} })}</p>
${stayFields(ctx.base, s)}<button type="submit">Search hotels</button></form>`

export const hotelCard = (ctx: TravelCtx, h: Hotel, s: Stay): Html =>
  html`<li><h3><a href="${ctx.href(`/hotels/${h.id}?${stayQuery(s)}`)}">${h.name}</a></h3>
<p>${h.stars} stars · guest score ${h.score.toFixed(1)} of 10 · ${h.area}, ${cityName(ctx.base, h.city)}</p><p>From <strong>${formatPrice(fromPrice(h))}</strong> per night</p></li>`

export const hotelsPage = (ctx: TravelCtx): Response => {
  const b = ctx.base
  const s = parseStay(b, ctx.query)
  if (!ctx.query.has("city")) return travelPage(ctx, { title: "Hotels", body: html`<h1>Hotels</h1>${hotelSearchForm(ctx, s)}` })
  if (!b.cities.some((c) => c.id === s.city)) {
    const error = "Choose a city."
    return travelPage(ctx, {
      title: "Hotels — please fix the search",
      status: 422,
      body: html`<h1>Hotels</h1>${errorSummary({ city: error }, { city: "City" })}${hotelSearchForm(ctx, s, error)}`
    })
  }
  const sortParam = ctx.query.get("sort") ?? ""
  const sort: HotelSort = sortParam in HOTEL_SORTS ? (sortParam as HotelSort) : "price"
  const minStars = intIn(ctx.query.get("stars"), 1, 5, 1)
  const hotels = searchHotels(b, s.city, s.guests, minStars, sort)
  return travelPage(ctx, {
    title: `Hotels in ${cityName(b, s.city)}`,
    body: html`<h1>Hotels in ${cityName(b, s.city)}</h1><p>Check-in ${dateText(s.checkIn)} · ${s.nights} ${s.nights === 1 ? "night" : "nights"} · ${s.guests} ${s.guests === 1 ? "guest" : "guests"}</p>
<details><summary>Change search</summary>${hotelSearchForm(ctx, s)}</details>
<form method="get" action="${ctx.href("/hotels")}" aria-labelledby="hotel-filters-title"><h2 id="hotel-filters-title">Filter and sort</h2>
${Object.entries({ city: s.city, checkIn: s.checkIn, nights: String(s.nights), guests: String(s.guests) }).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<p>${select({
      name: "stars",
      id: "min-stars",
      label: "Minimum stars",
      value: String(minStars),
      options: [
        ["1", "Any"],
        ["3", "3 stars or more"],
        ["4", "4 stars or more"],
        ["5", "5 stars"]
      ]
    })}</p>
<p>${select({ name: "sort", id: "hotel-sort", label: "Sort by", value: sort, options: Object.entries(HOTEL_SORTS) })}</p><button type="submit">Apply filters</button></form>
<h2>${hotels.length} ${hotels.length === 1 ? "hotel" : "hotels"}</h2>${hotels.length === 0 ? html`<p>No hotels found.</p>` : html`<ul class="results" aria-label="Hotels">${hotels.map((h) => hotelCard(ctx, h, s))}</ul>`}`
  })
}

export const hotelPage = (ctx: TravelCtx): Response => {
  const b = ctx.base
  const h = hotelById(b, ctx.params.id ?? "")
  if (!h) return notFound(ctx, "There is no such hotel.")
  const s = { ...parseStay(b, ctx.query), city: h.city }
  return travelPage(ctx, {
    title: h.name,
    body: html`${breadcrumb(ctx, [
      ["/", "Home"],
      [`/cities/${h.city}`, cityName(b, h.city)],
      [`/hotels/${h.id}`, h.name]
    ])}
<article aria-labelledby="hotel-title"><h1 id="hotel-title">${h.name}</h1><p>${h.stars} stars · guest score ${h.score.toFixed(1)} of 10 · ${h.area}, ${cityName(b, h.city)}</p>
<h2>Amenities</h2><ul>${h.amenities.map((a) => html`<li>${a}</li>`)}</ul></article>
<form method="get" action="${ctx.href(`/hotels/${h.id}`)}" aria-labelledby="stay-title"><h2 id="stay-title">Your stay</h2>${stayFields(b, s)}<button type="submit">Update stay</button></form>
<section aria-labelledby="rooms-title"><h2 id="rooms-title">Rooms</h2>
<table><caption>Rooms at ${h.name} for ${s.nights} ${s.nights === 1 ? "night" : "nights"} from ${s.checkIn}</caption><thead><tr><th scope="col">Room</th><th scope="col">Sleeps</th><th scope="col">Per night</th><th scope="col">Book</th></tr></thead><tbody>
${h.rooms.map(
  (r) =>
    html`<tr><th scope="row">${r.name}</th><td>${r.capacity}</td><td>${formatPrice(r.price)}</td><td>${
      r.capacity >= s.guests
        ? actionButton(ctx, {
            action: "/booking/start",
            fields: { kind: "hotel", hotelId: h.id, roomId: r.id, checkIn: s.checkIn, nights: String(s.nights), guests: String(s.guests) },
            label: "Book this room",
            ariaLabel: `Book ${r.name}`
          })
        : html`Too small for ${s.guests} guests`
    }</td></tr>`
)}</tbody></table></section>`
  })
}
