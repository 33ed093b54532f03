/** The travel site: flights, hotels, a four-step booking wizard, My trips and saved travellers. */
import { defineSite } from "../framework/site.ts"
import type { Route } from "../framework/site.ts"
import { travelBase, travelInitial } from "./data.ts"
import { bookingStep, confirmBooking, discardBooking, saveBookingStep, startBooking } from "./pages/booking.ts"
import { prefillDetails } from "./pages/details.ts"
import { flightPage, flightsPage } from "./pages/flights.ts"
import { cityPage, home } from "./pages/home.ts"
import { hotelPage, hotelsPage } from "./pages/hotels.ts"
import { addTraveller, travellerPage, travellersPage, updateTraveller } from "./pages/travellers.ts"
import { cancelPage, cancelTrip, changeEmail, tripPage, tripsPage } from "./pages/trips.ts"
import type { TravelBase, TravelState } from "./types.ts"
import { notFound } from "./ui.ts"

const routes: ReadonlyArray<Route<TravelBase, TravelState>> = [
  { method: "GET", path: "/", handler: home },
  { method: "GET", path: "/cities/:id", handler: cityPage },
  { method: "GET", path: "/flights", handler: flightsPage },
  { method: "GET", path: "/flights/:id", handler: flightPage },
  { method: "GET", path: "/hotels", handler: hotelsPage },
  { method: "GET", path: "/hotels/:id", handler: hotelPage },
  // Fixed booking paths come before "/booking/:step", which would otherwise match them.
  { method: "POST", path: "/booking/start", handler: startBooking },
  { method: "POST", path: "/booking/confirm", handler: confirmBooking },
  { method: "POST", path: "/booking/discard", handler: discardBooking },
  { method: "POST", path: "/booking/2/prefill", handler: prefillDetails },
  { method: "GET", path: "/booking/:step", handler: bookingStep },
  { method: "POST", path: "/booking/:step", handler: saveBookingStep },
  { method: "GET", path: "/trips", handler: tripsPage },
  { method: "GET", path: "/trips/:id", handler: tripPage },
  { method: "POST", path: "/trips/:id/email", handler: changeEmail },
  { method: "GET", path: "/trips/:id/cancel", handler: cancelPage },
  { method: "POST", path: "/trips/:id/cancel", handler: cancelTrip },
  { method: "GET", path: "/travellers", handler: travellersPage },
  { method: "POST", path: "/travellers", handler: addTraveller },
  { method: "GET", path: "/travellers/:id", handler: travellerPage },
  { method: "POST", path: "/travellers/:id", handler: updateTraveller }
]

export const travel = defineSite<TravelBase, TravelState>({
  name: "travel",
  title: "CORE Travel",
  base: travelBase,
  initial: travelInitial,
  routes,
  notFound: (ctx) => notFound(ctx)
})

export type { TravelBase, TravelState } from "./types.ts"
