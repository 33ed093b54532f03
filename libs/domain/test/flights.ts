/**
 * A flight list as a demo filtered it and as another way scanned it: the demo searched,
 * set "Nonstop only" and "Price: lowest first", applied them and selected BW810 on the
 * filtered list; the unfiltered list it saw first already showed BW810's button. Shared by
 * the survived-filter tests and the synthesis and data rules' cases.
 */
import type { LfElement } from "../LfTrajectory.ts"
import { act, el, trajectory } from "./fixtures.ts"

const SEARCH = "/travel/flights?trip=oneway&from=prague&to=barcelona&date=2029-07-25&return=&passengers=1"
const FILTERED = `${SEARCH}&stops=0&maxPrice=&airline=&sort=price`
const list = (...codes: ReadonlyArray<string>): ReadonlyArray<LfElement> => [
  el("radio", "Nonstop only"),
  el("combobox", "Sort by", { value: "relevance" }),
  el("button", "Apply filters"),
  ...codes.map((c) => el("button", `Select flight ${c}`))
]
const searched = {
  action: act("click", { role: "button", name: "Search flights" }),
  urlAfter: SEARCH,
  elements: list("PL420", "BW810", "SO472")
}
const booked = (code: string) => [
  {
    action: act("click", { role: "button", name: `Select flight ${code}` }),
    urlAfter: "/travel/booking/1",
    elements: [el("button", "Continue to step 2")]
  },
  { action: act("status", { status: "complete" }) }
]

/** The demo: searched, filtered and sorted, then BW810 selected on the filtered list. Key steps 1, 2, 3, 4, 5. */
export const flightsDemo = trajectory("/travel/", [
  searched,
  { action: act("click", { role: "radio", name: "Nonstop only" }), elements: list("PL420", "BW810", "SO472") },
  { action: act("select", { role: "combobox", name: "Sort by", value: "price" }), elements: list("PL420", "BW810", "SO472") },
  { action: act("click", { role: "button", name: "Apply filters" }), urlAfter: FILTERED, elements: list("BW810") },
  ...booked("BW810")
])
export const FLIGHTS_KEY_STEPS = [1, 2, 3, 4, 5]

/** Another way: the unfiltered list scanned, `code` selected there (on `date`, the demo's by default). */
export const flightsScan = (code = "BW810", date = "2029-07-25") =>
  trajectory("/travel/", [{ ...searched, urlAfter: SEARCH.replace("2029-07-25", date) }, ...booked(code)])
