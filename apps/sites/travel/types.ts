/** The travel site's data: `TravelBase` is seed-derived and shared, `TravelState` is one episode's own (what checkers read). */

export interface City {
  /** Also the URL slug: /travel/cities/<id>. */
  readonly id: string
  readonly name: string
  readonly country: string
  /** Three-letter airport code. */
  readonly code: string
}

export interface Airline {
  readonly code: string
  readonly name: string
}

/** A scheduled flight: it operates every day of the seeded month. */
export interface Flight {
  /** The flight number, e.g. "AU123"; also the URL slug. */
  readonly id: string
  readonly airline: string
  readonly from: string
  readonly to: string
  /** Minutes after midnight, local time. */
  readonly depart: number
  /** Minutes. */
  readonly duration: number
  readonly stops: number
  /** Economy fare per passenger, cents. */
  readonly price: number
}

export interface Room {
  readonly id: string
  readonly name: string
  readonly capacity: number
  /** Per night, cents. */
  readonly price: number
}

export interface Hotel {
  readonly id: string
  readonly name: string
  readonly city: string
  readonly stars: number
  /** Guest score 0–10, one decimal. */
  readonly score: number
  readonly area: string
  readonly amenities: ReadonlyArray<string>
  readonly rooms: ReadonlyArray<Room>
}

export interface TravelBase {
  readonly seed: number
  /** The one bookable month: every date is "YYYY-MM-DD" inside it. */
  readonly year: number
  readonly month: number
  readonly dates: ReadonlyArray<string>
  readonly cities: ReadonlyArray<City>
  readonly airlines: ReadonlyArray<Airline>
  readonly flights: ReadonlyArray<Flight>
  readonly hotels: ReadonlyArray<Hotel>
  readonly user: { readonly name: string; readonly email: string }
  /** The traveller every episode starts with in its saved travellers. */
  readonly traveller: Traveller
}

export type Fare = "economy" | "premium" | "business"
export type Seat = "none" | "window" | "aisle" | "middle"

/** Details of one passenger or hotel guest. */
export interface Person {
  name: string
  email: string
  /** "YYYY-MM-DD". */
  dob: string
  /** Two capital letters and seven digits, e.g. "AB1234567"; may be empty for hotel guests. */
  passport: string
}

export interface Traveller extends Person {
  /** "T-1", "T-2", … per episode. */
  id: string
}

/** What is being booked; shared by the wizard's draft and the finished booking. */
export interface Trip {
  kind: "flight" | "hotel"
  /** Flights: passengers; hotels: guests. */
  people: number
  flightId: string | null
  date: string | null
  /** Set for return trips. */
  returnFlightId: string | null
  returnDate: string | null
  fare: Fare | null
  hotelId: string | null
  roomId: string | null
  checkIn: string | null
  nights: number | null
  /** Flights: one per passenger; hotels: the lead guest only. */
  persons: Array<Person>
  /** Flights: one per passenger. */
  seats: Array<Seat>
  /** Extra ids in EXTRAS order. */
  extras: Array<string>
}

export interface Draft extends Trip {
  /** The furthest wizard step reached (1–4); later steps redirect back to it. */
  step: number
}

export interface Booking extends Trip {
  /** "B-1001", "B-1002", … per episode. */
  id: string
  status: "confirmed" | "cancelled"
  /** Total price in cents when booked. */
  total: number
}

export interface TravelState {
  user: { name: string; email: string }
  travellers: Array<Traveller>
  /** The booking in progress, or null. */
  draft: Draft | null
  /** Oldest first. */
  bookings: Array<Booking>
}
