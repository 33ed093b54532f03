/** Given a control pressed on a filtered list, when the unfiltered list before showed it too, then the filters were the way. */
import { describe, expect, test } from "bun:test"
import { survivedPage } from "../SurvivedFilters.ts"
import { act, el, trajectory } from "./fixtures.ts"
import { flightsDemo } from "./flights.ts"

describe("the page a control was pressed on, without the filters it survived", () => {
  test("the flight's button was on the unfiltered results: the filters and the sort are left out, and the empty parameters", () => {
    expect(survivedPage(flightsDemo, flightsDemo.steps[4]!)).toBe(
      "/travel/flights?trip=oneway&from=prague&to=barcelona&date=2029-07-25&passengers=1"
    )
  })

  const pressed = (before: string, shown: string, after: string) =>
    trajectory("/s", [
      { action: act("click", { role: "button", name: "Go" }), urlAfter: before, elements: [el("button", shown)] },
      { action: act("click", { role: "button", name: "Filter" }), urlAfter: after, elements: [el("button", "Buy A")] },
      { action: act("click", { role: "button", name: "Buy A" }), urlAfter: "/done" }
    ])
  const cases: ReadonlyArray<readonly [string, string | null, ReturnType<typeof pressed>]> = [
    ["a narrower list that showed it", "/list?q=a", pressed("/list?q=a", "Buy A", "/list?q=a&f=1")],
    ["the control not on the wider list: the filter found it", null, pressed("/list?q=a", "Buy B", "/list?q=a&f=1")],
    ["another value of a parameter, not a part of the query", null, pressed("/list?q=b", "Buy A", "/list?q=a&f=1")],
    ["another path", null, pressed("/other?q=a", "Buy A", "/list?q=a&f=1")],
    ["the same query: nothing was filtered", null, pressed("/list?q=a&f=1", "Buy A", "/list?q=a&f=1")]
  ]
  test.each(cases)("%s → %p", (_, page, t) => {
    expect(survivedPage(t, t.steps[2]!)).toBe(page)
  })

  test("a control pressed on a page with no query survived nothing", () => {
    const t = trajectory("/list", [
      { action: act("click", { role: "button", name: "Go" }), urlAfter: "/list", elements: [el("link", "A")] },
      { action: act("click", { role: "link", name: "A" }), urlAfter: "/a" }
    ])
    expect(survivedPage(t, t.steps[1]!)).toBe(null)
  })
})
