/** Flights: the search form, results with filters and sorting, and the flight details page. */
import { html } from "../../framework/html.ts"
import type { Html } from "../../framework/html.ts"
import {
  airlineName,
  arrival,
  cityName,
  clock,
  FLIGHT_SORTS,
  flightById,
  flightTitle,
  formatPrice,
  hours,
  parseFlightQuery,
  searchFlights,
  stopsText
} from "../model.ts"
import type { FlightFilters } from "../model.ts"
import type { Flight, TravelBase } from "../types.ts"
import { actionButton, breadcrumb, errorSummary, notFound, radios, select, travelPage } from "../ui.ts"
import type { Errors, TravelCtx } from "../ui.ts"

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
export const dateText = (d: string): string => {
  const [y, m, day] = d.split("-").map(Number)
  return `${WEEKDAYS[new Date(Date.UTC(y!, m! - 1, day!)).getUTCDay()]} ${d}`
}
export const dateOptions = (b: TravelBase): Array<readonly [string, string]> => b.dates.map((d) => [d, dateText(d)] as const)
export const cityOptions = (b: TravelBase, empty: string): Array<readonly [string, string]> => [
  ["", empty],
  ...b.cities.map((c) => [c.id, `${c.name} (${c.code})`] as const)
]
export const peopleOptions = (max: number): Array<readonly [string, string]> =>
  Array.from({ length: max }, (_, i) => [String(i + 1), String(i + 1)] as const)

const labels = { from: "From", to: "To", date: "Departure date", return: "Return date" }

/** The search form; also on the home page. */
export const flightSearchForm = (ctx: TravelCtx, f: FlightFilters, errors: Errors = {}): Html =>
  html`<form method="get" action="${ctx.href("/flights")}" aria-labelledby="flight-search-title" novalidate><h2 id="flight-search-title">Search flights</h2>
${radios({
  name: "trip",
  legend: "Trip type",
  value: f.trip,
  options: [
    ["oneway", "One way"],
    ["return", "Return"]
  ]
})}
<p>${select({ name: "from", label: labels.from, value: f.from, options: cityOptions(ctx.base, "Choose a departure city"), errors })}</p>
<p>${select({ name: "to", label: labels.to, value: f.to, options: cityOptions(ctx.base, "Choose a destination"), errors })}</p>
<p>${select({ name: "date", label: labels.date, value: f.date, options: dateOptions(ctx.base), errors })}</p>
<p>${select({ name: "return", label: "Return date (return trips only)", value: f.returnDate, options: [["", "No return"], ...dateOptions(ctx.base)], errors })}</p>
<p>${select({ name: "passengers", label: "Passengers", value: String(f.passengers), options: peopleOptions(6) })}</p>
<button type="submit">Search flights</button></form>`

export const flightSummary = (ctx: TravelCtx, fl: Flight): Html =>
  html`${airlineName(ctx.base, fl.airline)} · departs ${clock(fl.depart)}, arrives ${arrival(fl)} · ${hours(fl.duration)} · ${stopsText(fl.stops)}`

const validate = (b: TravelBase, f: FlightFilters): Record<string, string> => {
  const e: Record<string, string> = {}
  if (!b.cities.some((c) => c.id === f.from)) e.from = "Choose a departure city."
  if (!b.cities.some((c) => c.id === f.to)) e.to = "Choose a destination."
  else if (f.to === f.from) e.to = "Choose a destination different from the departure city."
  if (!b.dates.includes(f.date)) e.date = "Choose a date in the calendar."
  if (f.trip === "return") {
    if (!b.dates.includes(f.returnDate)) e.return = "Choose a return date for a return trip."
    else if (f.returnDate < f.date) e.return = "The return date must not be before the departure date."
  }
  return e
}

const filterForm = (ctx: TravelCtx, f: FlightFilters): Html => {
  const keep: Record<string, string> = {
    from: f.from,
    to: f.to,
    date: f.date,
    passengers: String(f.passengers),
    trip: f.trip,
    return: f.returnDate
  }
  return html`<form method="get" action="${ctx.href("/flights")}" aria-labelledby="filters-title"><h2 id="filters-title">Filter and sort</h2>
${Object.entries(keep).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
${radios({
  name: "stops",
  legend: "Stops",
  value: f.stops,
  options: [
    ["any", "Any number of stops"],
    ["0", "Nonstop only"],
    ["1", "At most 1 stop"]
  ]
})}
<p><label for="maxPrice">Maximum price per passenger (US dollars)</label> <input id="maxPrice" name="maxPrice" type="number" min="0" step="1" value="${f.maxPrice ?? ""}"></p>
<p>${select({ name: "airline", label: "Airline", value: f.airline, options: [["", "All airlines"], ...ctx.base.airlines.map((a) => [a.code, a.name] as const)] })}</p>
<p>${select({ name: "sort", label: "Sort by", value: f.sort, options: Object.entries(FLIGHT_SORTS) })}</p>
<button type="submit">Apply filters</button></form>`
}

const resultList = (ctx: TravelCtx, f: FlightFilters, flights: ReadonlyArray<Flight>): Html => {
  if (flights.length === 0) return html`<p>No flights found. Try other filters or another route.</p>`
  const detailQuery = new URLSearchParams({
    date: f.date,
    passengers: String(f.passengers),
    ...(f.trip === "return" ? { return: f.returnDate } : {})
  })
  return html`<ul class="results" aria-label="Flights">${flights.map(
    (fl) => html`<li><h3>${fl.id}: ${cityName(ctx.base, fl.from)} to ${cityName(ctx.base, fl.to)}</h3><p>${flightSummary(ctx, fl)}</p>
<p>From <strong>${formatPrice(fl.price)}</strong> per passenger</p>
<p><a href="${ctx.href(`/flights/${fl.id}?${detailQuery}`)}" aria-label="Details of flight ${fl.id}">Flight details</a>
${actionButton(ctx, { action: "/booking/start", fields: { kind: "flight", flightId: fl.id, date: f.date, passengers: String(f.passengers), returnDate: f.trip === "return" ? f.returnDate : "" }, label: "Select", ariaLabel: `Select flight ${fl.id}` })}</p></li>`
  )}</ul>`
}

export const flightsPage = (ctx: TravelCtx): Response => {
  const b = ctx.base
  const f = parseFlightQuery(b, ctx.query)
  if (!ctx.query.has("from")) return travelPage(ctx, { title: "Flights", body: html`<h1>Flights</h1>${flightSearchForm(ctx, f)}` })
  const errors = validate(b, f)
  if (Object.keys(errors).length > 0) {
    return travelPage(ctx, {
      title: "Flights — please fix the search",
      status: 422,
      body: html`<h1>Flights</h1>${errorSummary(errors, labels)}${flightSearchForm(ctx, f, errors)}`
    })
  }
  const flights = searchFlights(b, f, f.from, f.to)
  const heading = `${cityName(b, f.from)} to ${cityName(b, f.to)}`
  return travelPage(ctx, {
    title: `Flights: ${heading}`,
    body: html`<h1>Flights from ${heading}</h1>
<p>${dateText(f.date)}${f.trip === "return" ? html`, returning ${dateText(f.returnDate)} (choose the return flight in the next step)` : ", one way"} · ${f.passengers} ${f.passengers === 1 ? "passenger" : "passengers"}</p>
<details><summary>Change search</summary>${flightSearchForm(ctx, f)}</details>
${filterForm(ctx, f)}
<h2 id="results-title">${flights.length} ${flights.length === 1 ? "flight" : "flights"}</h2>${resultList(ctx, f, flights)}`
  })
}

export const flightPage = (ctx: TravelCtx): Response => {
  const b = ctx.base
  const fl = flightById(b, ctx.params.id ?? "")
  if (!fl) return notFound(ctx, "There is no such flight.")
  const date = b.dates.includes(ctx.query.get("date") ?? "") ? ctx.query.get("date")! : b.dates[0]!
  const passengers = ctx.query.get("passengers") ?? "1"
  return travelPage(ctx, {
    title: `Flight ${flightTitle(b, fl)}`,
    body: html`${breadcrumb(ctx, [
      ["/", "Home"],
      [`/cities/${fl.to}`, cityName(b, fl.to)],
      [`/flights/${fl.id}`, `Flight ${fl.id}`]
    ])}
<article aria-labelledby="flight-title"><h1 id="flight-title">Flight ${flightTitle(b, fl)}</h1>
<dl><dt>Airline</dt><dd>${airlineName(b, fl.airline)}</dd><dt>Departs</dt><dd>${clock(fl.depart)} from ${cityName(b, fl.from)}</dd><dt>Arrives</dt><dd>${arrival(fl)} in ${cityName(b, fl.to)}</dd>
<dt>Duration</dt><dd>${hours(fl.duration)}</dd><dt>Stops</dt><dd>${stopsText(fl.stops)}</dd><dt>Economy fare</dt><dd>${formatPrice(fl.price)} per passenger</dd></dl>
<p>This flight operates every day.</p></article>
<form method="post" action="${ctx.href("/booking/start")}" aria-labelledby="book-title"><h2 id="book-title">Book this flight</h2>
<input type="hidden" name="kind" value="flight"><input type="hidden" name="flightId" value="${fl.id}">
<p>${select({ name: "date", label: "Departure date", value: date, options: dateOptions(b) })}</p>
<p>${select({ name: "returnDate", label: "Return date (optional)", value: ctx.query.get("return") ?? "", options: [["", "One way"], ...dateOptions(b)] })}</p>
<p>${select({ name: "passengers", label: "Passengers", value: passengers, options: peopleOptions(6) })}</p>
<button type="submit">Book this flight</button></form>
<p><a href="${ctx.href(`/flights?from=${fl.from}&to=${fl.to}&date=${date}`)}">Other flights on this route</a></p>`
  })
}
