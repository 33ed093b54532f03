/** Travel checker helpers over the state API. EVALUATION CODE ONLY (see ./state.ts). */
import type { Booking, Flight, TravelBase, TravelState, Traveller } from "../travel/types.ts"
import { fetchState } from "./state.ts"
import type { Snapshot, StateApi } from "./state.ts"

export const travelState = (api: StateApi, tenant: string): Promise<Snapshot<TravelState, TravelBase>> =>
  fetchState<TravelState, TravelBase>(api, tenant, { base: true })

export const bookingById = (s: TravelState, id: string): Booking | undefined => s.bookings.find((b) => b.id === id)

/** Bookings that are not cancelled, optionally only one kind; oldest first. */
export const confirmedBookings = (s: TravelState, kind?: Booking["kind"]): ReadonlyArray<Booking> =>
  s.bookings.filter((b) => b.status === "confirmed" && (kind === undefined || b.kind === kind))

export const travellerByName = (s: TravelState, name: string): Traveller | undefined =>
  s.travellers.find((t) => t.name.toLowerCase() === name.toLowerCase())

export const flightByNumber = (base: TravelBase, id: string): Flight | undefined =>
  base.flights.find((f) => f.id.toLowerCase() === id.toLowerCase())
