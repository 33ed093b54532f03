/**
 * Given an instruction and a sort select's options (the bundled sites' own lists), when
 * the explorer asks which option gives the order the instruction asks for, then…
 */
import { describe, expect, test } from "bun:test"
import { instructionOrder, optionOrder, sortOptionFor } from "../../mod.ts"

const SHOP = ["Relevance", "Price: low to high", "Price: high to low", "Customer rating", "Name"]
const FORUM = ["Newest", "Top score", "Relevance"]
const FLIGHTS = ["Price: lowest first", "Duration: shortest first", "Departure: earliest first"]
const HOTELS = ["Price: lowest first", "Guest score: highest first", "Stars: most first"]

describe("the option that gives the asked order", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string | null]> = [
    ["Find the cheapest product in the Clothing category and add it to my cart.", SHOP, "Price: low to high"],
    ["Find the highest-scored post about winter riding in the Cycling board and open it.", FORUM, "Top score"],
    ["Find the cheapest nonstop flight from Rome to Oslo on 2029-07-01.", FLIGHTS, "Price: lowest first"],
    ["What is the lowest nightly room price at any hotel in Paris?", HOTELS, "Price: lowest first"],
    ["Open the best-scored hotel in Paris.", HOTELS, "Guest score: highest first"],
    ["Show the newest posts in Cooking.", FORUM, "Newest"],
    ["Find the shortest flight from Rome to Oslo.", FLIGHTS, "Duration: shortest first"],
    // No superlative: no order asked, whatever the options.
    ["Open the Books board.", FORUM, null],
    // "at least" bounds a value; it asks for no order.
    ["Find a hotel in Paris with at least 4 stars.", HOTELS, null],
    // An order no option gives.
    ["Find the priciest product.", FORUM, null],
    // Two options give it: none is chosen.
    ["Find the cheapest product.", ["Price: low to high", "Lowest price"], null]
  ]
  test.each(cases)("%p among %p → %p", (instruction, options, expected) => {
    expect(sortOptionFor(instruction, options)).toBe(expected)
  })
})

describe("orders read off words", () => {
  test("given a superlative, then its direction and what it orders, in base forms", () => {
    expect(instructionOrder("the highest-scored post")).toEqual({ direction: "high", orders: new Set(["score", "post"]) })
    expect(instructionOrder("the cheapest shoes")).toEqual({ direction: "low", orders: new Set(["price", "shoe"]) })
    expect(instructionOrder("Open the Books board")).toBe(null)
  })

  test("given an option, then its first direction word and the rest; none without a direction", () => {
    expect(optionOrder("Price: high to low")).toEqual({ direction: "high", orders: new Set(["price"]) })
    expect(optionOrder("Top score")).toEqual({ direction: "high", orders: new Set(["score"]) })
    expect(optionOrder("Newest")).toEqual({ direction: "new", orders: new Set() })
    expect(optionOrder("Relevance")).toBe(null)
  })
})
