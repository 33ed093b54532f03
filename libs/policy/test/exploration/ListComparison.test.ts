/**
 * Given an instruction that asks for an order and a list as a bundled site shows it, when
 * the explorer compares the values the list shows, then it picks the entry a person would.
 */
import { describe, expect, test } from "bun:test"
import { comparedPick, listEntries } from "../../exploration/ListComparison.ts"
import { categories, cycling, flights, hotels, kitchen } from "./lists.ts"

describe("the entry an order picks by comparing values", () => {
  const cases: ReadonlyArray<readonly [string, string, string, string | null]> = [
    ["Find the cheapest product in the Kitchen category and add it to my cart.", kitchen, "$15.00", "Copperleaf Ultra Cutting Board"],
    ["Open the highest-rated product in Kitchen.", kitchen, "3.8", "Harbor Smart Teapot"],
    // The cheapest flight is a 1-stop at $42.00: "nonstop" is a quality some entries show, so only those compare.
    [
      "Find the cheapest nonstop flight from Athens to Barcelona on 2029-02-01 and start booking it.",
      flights,
      "$105.99",
      "Details of flight BW935"
    ],
    ["Find the earliest flight from Athens to Barcelona.", flights, "11:10", "Details of flight BW935"],
    // "Hotel" is in one hotel's name only: a name's words are no quality.
    ["What is the lowest nightly room price at any hotel in Athens?", hotels, "$75.00", "Park Lodge Athens"],
    ["Open the hotel with the highest guest score in Athens.", hotels, "9.8", "Cathedral Residence Athens"],
    // The subject after "about" narrows to the posts whose titles carry it; the titles' own numbers are no scores.
    [
      "Find the highest-scored post about tubeless tires in the Cycling board and open it.",
      cycling,
      "128",
      "My experience with tubeless tires after a year"
    ],
    ["Open the most commented post in Cycling.", cycling, "10", "Help: trouble with tubeless tires"],
    ["Open the latest post in Cycling.", cycling, "2024-04-30 07:33", "Tips for getting started with chain wear?"]
  ]
  test.each(cases.map((c) => [`${c[0]} → ${c[3]}`, ...c] as const))("%s", (_, instruction, page, value, link) => {
    expect(comparedPick(instruction, page)).toEqual(link === null ? null : expect.objectContaining({ link, value }))
  })

  test("no order asked, no list with values, or a tie: no pick", () => {
    expect(comparedPick("Open the Kitchen category.", kitchen)).toBe(null)
    expect(comparedPick("Find the cheapest product.", categories)).toBe(null)
    expect(comparedPick("Find the cheapest product.", null)).toBe(null)
    const tie = `- list:\n  - listitem:\n    - link "A"\n    - paragraph: $5.00\n  - listitem:\n    - link "B"\n    - paragraph: $5.00`
    expect(comparedPick("Find the cheapest product.", tie)).toBe(null)
    // A quality no entry shows tells none apart; a subject no entry carries leaves none to compare.
    expect(comparedPick("Find the cheapest red-eye nonstop flight.", flights)).toEqual(
      expect.objectContaining({ link: "Details of flight BW935" })
    )
    expect(comparedPick("Find the highest-scored post about tomatoes in the Cycling board.", cycling)).toBe(null)
  })
})

test("a list's entries are its outermost items that name a link; a navigation list has no values to compare", () => {
  const entries = listEntries(`${categories}\n${hotels}`)
  expect(entries.map((e) => e.link)).toEqual([
    "Kitchen",
    "Electronics",
    "Park Lodge Athens",
    "Cathedral Residence Athens",
    "Harbor Hotel Athens",
    "Harbor Residence Athens"
  ])
  expect(entries[2]!.shown).toContain("$75.00")
  expect(entries[2]!.shown).not.toContain("Park Lodge Athens")
})
