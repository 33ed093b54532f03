/**
 * Given a recorded answer that reports a value read off its page and the live page's
 * accessibility snapshot (texts as the bundled sites render them), when the retrieval policy
 * answers for another instance, then version 2 reads the corresponding value and version 1
 * copies the recorded one — pure functions of their inputs and the draws, so no mocks.
 */
import { describe, expect, test } from "bun:test"
import { prng } from "@core/engine"
import type { Action } from "@core/events"
import { RETRIEVAL, retrievalRulesAt, versionOf } from "@core/domain"
import type { RetrievalVersion } from "@core/domain"
import { readAnswer, retrievalAction, trainRetrieval } from "../../mod.ts"
import { act, at, episode, site } from "./shop.ts"

/** A product page's snapshot, as Playwright writes the bundled shop's (header and reviews cut short). */
const productAria = (name: string, price: string, reviews: number) => `- banner:
  - search:
    - text: Search products
    - searchbox "Search products"
    - button "Search"
- main:
  - navigation "Breadcrumb":
    - list:
      - listitem:
        - link "Home":
          - /url: /shop/
      - listitem:
        - link "${name}":
          - /url: /shop/product/x
  - article "${name}":
    - heading "${name}" [level=1]
    - paragraph:
      - text: "Price:"
      - strong: ${price}
    - paragraph: Rated 4.5 out of 5 (${reviews} reviews)
    - spinbutton "Quantity": "1"
    - button "Add to cart"`

/** Search results: the header's box still holds the query; the wanted product is the second result. */
const resultsAria = `- banner:
  - search:
    - searchbox "Search products": Granite Deluxe Skillet
- main:
  - heading "Results for “Granite Deluxe Skillet”" [level=1]
  - list "Search results":
    - listitem:
      - heading "Granite Deluxe Skillet Lid" [level=3]:
        - link "Granite Deluxe Skillet Lid"
      - paragraph: $12.00
    - listitem:
      - heading "Granite Deluxe Skillet" [level=3]:
        - link "Granite Deluxe Skillet"
      - paragraph: $141.99
      - paragraph: Rated 4.5 out of 5 (2 reviews)`

/** A forum board listing: each post's title link, then its meta line with the comment count. */
const boardAria = `- main:
  - list "Posts":
    - listitem:
      - link "Anyone else obsessed with raised beds?"
      - paragraph: Score 14 · by fern_lee · 3 comments
    - listitem:
      - link "My experience with stock after a year"
      - paragraph: Score 9 · by cook42 · 12 comments`

describe("readAnswer", () => {
  const cases: ReadonlyArray<readonly [string, string, ReadonlyArray<string>, string, string, string | null]> = [
    [
      "a price after the product's name on its page",
      "It costs $24.99.",
      ["Granite Deluxe Skillet"],
      "What is the price of Granite Deluxe Skillet?",
      productAria("Granite Deluxe Skillet", "$141.99", 2),
      "It costs $141.99."
    ],
    [
      "the exact name before a longer one, never the search box's typed value",
      "$24.99",
      ["Granite Deluxe Skillet"],
      "What is the price of Granite Deluxe Skillet?",
      resultsAria,
      "$141.99"
    ],
    [
      "a bare count, labelled by a word of the instruction",
      "7",
      ["Granite Deluxe Skillet"],
      "How many customer reviews does Granite Deluxe Skillet have?",
      productAria("Granite Deluxe Skillet", "$141.99", 2),
      "2"
    ],
    [
      "a count in the recorded wording, labelled by the word beside it",
      "It has 5 comments.",
      ["My experience with stock after a year"],
      'How many comments does "My experience with stock after a year" have?',
      boardAria,
      "It has 12 comments."
    ],
    [
      "the page does not show the thing the instruction names",
      "It costs $24.99.",
      ["Lumen Classic Headphones"],
      "What is the price of Lumen Classic Headphones?",
      productAria("Granite Deluxe Skillet", "$141.99", 2),
      null
    ],
    ["an answer that reports no value", "Books", ["Granite Deluxe Skillet"], "Which category?", resultsAria, null],
    ["two numbers: which one was read is not clear", "3 of 5", ["Granite Deluxe Skillet"], "How many?", resultsAria, null],
    [
      "no value was put in for a recorded one (the same instance)",
      "It costs $24.99.",
      [],
      "What is the price of Granite Deluxe Skillet?",
      resultsAria,
      null
    ],
    [
      "a count without a label word nearby",
      "7",
      ["Granite Deluxe Skillet"],
      "What is the weight of Granite Deluxe Skillet?",
      productAria("Granite Deluxe Skillet", "$141.99", 2),
      null
    ]
  ]
  for (const [name, recorded, values, instruction, aria, expected] of cases) {
    test(name, () => expect(readAnswer(recorded, values, instruction, aria)).toBe(expected))
  }
})

describe("the retrieval policy's answer, by version", () => {
  const s = site("r-")
  /** Demos of one template for two products: search, open it, answer its price. */
  const priceOf = (name: string, price: string) =>
    episode(`What is the price of ${name}?`, [
      [s.home(), act.type("searchbox", "Search products", name, true)],
      [s.search(name, [name]), act.click("link", name)],
      [s.product(name), act.answer(`It costs ${price}.`)]
    ])
  const model = trainRetrieval([...priceOf("Acme Compact Kettle", "$24.99"), ...priceOf("Lumen Classic Headphones", "$89.00")])
  const live = site("l-", "http://127.0.0.1:5300")
  const product = "Harbor Pocket Atlas"
  const history: ReadonlyArray<Action> = [
    { kind: "type", target: { role: "searchbox", name: "Search products", elementId: "x", text: null }, text: product, submit: true },
    { kind: "click", target: { role: "link", name: product, elementId: "y", text: product } }
  ]
  const input = at(`What is the price of ${product}?`, live.product(product), history)
  const aria = productAria(product, "$13.50", 4)
  const seed = (i: number): string => new Bun.CryptoHasher("sha256").update(`reading-${i}`).digest("hex")
  const decide = (version: RetrievalVersion | undefined, page: string | null, i = 0) =>
    retrievalAction(model, input, prng(seed(i)), version === undefined ? {} : { rules: retrievalRulesAt(version), page })

  test("version 2 answers with the value its page shows, in the recorded wording", () => {
    expect(decide("2", aria)).toEqual({ kind: "answer", text: "It costs $13.50." })
  })

  test("version 1 (and no version: runs from before versions) never reads the page", () => {
    for (let i = 0; i < 20; i++) {
      const v1 = decide("1", aria, i)
      expect(v1).toEqual(decide(undefined, null, i))
      expect(v1?.kind === "answer" ? v1.text : "").not.toContain("$13.50")
    }
  })

  test("version 2 without a snapshot, or on a page that does not show the product, decides as version 1", () => {
    for (let i = 0; i < 20; i++) {
      expect(decide("2", null, i)).toEqual(decide("1", null, i))
      expect(decide("2", productAria("Acme Wooden Chess Set", "$5.00", 1), i)).toEqual(decide("1", null, i))
    }
  })

  test("is a pure function of its inputs and the draws", () => {
    for (let i = 0; i < 10; i++) expect(decide("2", aria, i)).toEqual(decide("2", aria, i))
  })

  test("new runs record version 2; a run without one, or with an unknown one, reads as 1", () => {
    expect(RETRIEVAL.current).toBe("2")
    expect([versionOf(RETRIEVAL, "2"), versionOf(RETRIEVAL, undefined), versionOf(RETRIEVAL, "3"), versionOf(RETRIEVAL, 2)]).toEqual([
      "2",
      "1",
      "1",
      "1"
    ])
  })
})
