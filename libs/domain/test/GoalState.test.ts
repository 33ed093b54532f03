/** Goal-state evidence (GoalState.ts): which key steps a goal-state path keeps, and the pages it holds them to. */
import { describe, expect, test } from "bun:test"
import {
  acceptOnTheirPages,
  addNode,
  addPath,
  emptyGraph,
  goalStateAnchors,
  goalStateSteps,
  nodeIdOf,
  normalizeKey,
  pathIdOf
} from "../mod.ts"
import type { GraphNode, GraphPath, SemanticKey, StrategyGraph } from "../mod.ts"
import { act, trajectory } from "./fixtures.ts"
import { CART_KEY_STEPS, cartDemo } from "./cart.ts"
import { FLIGHTS_KEY_STEPS, flightsDemo } from "./flights.ts"

const search = (typed: string) => ({
  action: act("type", { role: "searchbox", name: "Search", typed, submit: true }),
  urlAfter: `/search?q=${typed}`
})
const link = (name: string, to: string) => ({ action: act("click", { role: "link", name }), urlAfter: to })
const press = (name: string, to?: string) => ({
  action: act("click", { role: "button", name }),
  ...(to === undefined ? {} : { urlAfter: to })
})
const fill = (name: string, typed: string) => ({ action: act("type", { role: "textbox", name, typed }) })
const done = { action: act("status", { status: "complete" }) }
const answer = { action: act("answer", { answer: "3" }) }

describe("the key steps a goal-state path keeps: what changed in place, the goal and the claim", () => {
  const cases: ReadonlyArray<[string, Parameters<typeof trajectory>[1], ReadonlyArray<number>]> = [
    ["search, open the post, upvote, complete", [search("tea"), link("Tea", "/post/1"), press("Upvote"), done], [2, 3]],
    ["browse to a board, complete there (a navigation task)", [link("Cycling", "/b/cycling"), done], [0, 1]],
    ["search, open the post, answer: the answer alone", [search("tea"), link("Tea", "/post/1"), answer], [2]],
    [
      "a form: open it, fill two fields, publish (a new page), complete",
      [link("New post", "/submit"), fill("Title", "Hi"), fill("Body", "Text"), press("Publish", "/post/9"), done],
      [1, 2, 3, 4]
    ],
    [
      "an Apply button that loads a page is a way, not a change",
      [link("Shop", "/shop"), press("Apply", "/shop?sort=price"), link("Kit", "/p/3"), press("Add to cart"), done],
      [3, 4]
    ]
  ]
  for (const [name, steps, kept] of cases)
    test(name, () => {
      const t = trajectory("/", steps)
      expect(
        goalStateSteps(
          t,
          t.steps.map((s) => s.index)
        )
      ).toEqual(kept)
    })
})

describe("read by queries (data rules 10): a query's fields are the way, a button that chose is kept", () => {
  const pick = (name: string, value: string) => ({ action: act("select", { role: "combobox", name, value }) })
  const cases: ReadonlyArray<[string, Parameters<typeof trajectory>[1], ReadonlyArray<number>, ReadonlyArray<number>]> = [
    [
      "a sort its Apply carried into the URL found the post: the post's page is the outcome",
      [link("Cycling", "/b/cycling"), pick("Sort by", "top"), press("Apply", "/b/cycling?sort=top"), link("Tea", "/post/1"), done],
      [1, 3, 4],
      [3, 4]
    ],
    [
      "dates a search carried to the hotel's page, whose pattern checks them: the Book button holds them",
      [
        pick("Check-in", "2029-07-28"),
        press("Search hotels", "/hotels?checkIn=2029-07-28"),
        link("Harbor Inn", "/hotels/harbor-inn?checkIn=2029-07-28"),
        press("Book Twin Room", "/booking/1"),
        fill("Full name", "Noor"),
        press("Confirm", "/trips/B-1?m=booked"),
        done
      ],
      [0, 4, 5, 6],
      [3, 4, 5, 6]
    ],
    [
      "a date on a results page a button reached, which no pattern checks: the date stays",
      [pick("Date", "2029-07-04"), press("Search flights", "/flights?date=2029-07-04"), press("Select flight MR634", "/booking/1"), done],
      [0, 2, 3],
      [0, 2, 3]
    ],
    [
      "a quantity the next button did not carry is a change, and the button that took it is kept",
      [
        link("Kit", "/p/3"),
        fill("Quantity", "3"),
        press("Add to cart", "/p/3?added=cart"),
        link("Cart", "/cart"),
        press("Place order", "/orders/9"),
        done
      ],
      [1, 4, 5],
      [1, 2, 4, 5]
    ]
  ]
  for (const [name, steps, nine, ten] of cases)
    test(name, () => {
      const t = trajectory("/", steps)
      const all = t.steps.map((s) => s.index)
      expect([goalStateSteps(t, all), goalStateSteps(t, all, { byQueries: true })]).toEqual([nine, ten])
    })
})

describe("a goal-state path's match holds only on the demo's pages", () => {
  const node = (k: Omit<SemanticKey, "value"> & { value?: string | null }, lf: string): GraphNode => {
    const semanticKey = normalizeKey({ value: null, ...k })
    return { nodeId: nodeIdOf(semanticKey), lfId: lf, description: lf, semanticKey, how: "demo", source: { kind: "demo", id: "d" } }
  }
  const upvote = node({ actionKind: "click", role: "button", name: "Upvote", urlPattern: "^/post/1(\\?.*)?$" }, "lf-up")
  const claim = node({ actionKind: "status", role: null, name: null, value: "complete", urlPattern: "^/post/1(\\?.*)?$" }, "lf-done")
  const path: GraphPath = {
    pathId: pathIdOf("t", [upvote.nodeId, claim.nodeId]),
    nodeIds: [upvote.nodeId, claim.nodeId],
    source: { kind: "demo", id: "d" },
    evidence: "goal-state"
  }
  let g: StrategyGraph = addNode(addNode(emptyGraph("t"), upvote), claim)
  g = addPath(g, path)
  const matched = [
    { nodeId: upvote.nodeId, lfId: "lf-up", satisfiedAt: 1 },
    { nodeId: claim.nodeId, lfId: "lf-done", satisfiedAt: 2 }
  ]
  test("upvoted on the post's page, reached by browsing: accepted", () => {
    const t = trajectory("/", [link("Tea", "/post/1"), press("Upvote"), done])
    expect(acceptOnTheirPages(g, t)(path, matched)).toBe(true)
  })
  test("the same button pressed on another post's page: refused", () => {
    const t = trajectory("/", [link("Cake", "/post/2"), press("Upvote"), done])
    expect(acceptOnTheirPages(g, t)(path, matched)).toBe(false)
  })
  test("a way's whole path is not held to pages here", () => {
    const t = trajectory("/", [link("Cake", "/post/2"), press("Upvote"), done])
    expect(acceptOnTheirPages(g, t)({ ...path, evidence: undefined } as GraphPath, matched)).toBe(true)
  })
  test("a navigation goal is not anchored where it was clicked: its LF checks where it led", () => {
    const open = node({ actionKind: "click", role: "link", name: "Tea", urlPattern: "^/search(\\?.*)?$" }, "lf-open")
    const read = node({ actionKind: "answer", role: null, name: null, value: "3", urlPattern: null }, "lf-answer")
    const p: GraphPath = { pathId: "p", nodeIds: [open.nodeId, read.nodeId], source: { kind: "demo", id: "d" }, evidence: "goal-state" }
    const h = addPath(addNode(addNode(emptyGraph("t"), open), read), p)
    const t = trajectory("/", [link("Cycling", "/b/cycling"), link("Tea", "/post/1"), answer])
    expect(
      acceptOnTheirPages(h, t)(p, [
        { nodeId: open.nodeId, lfId: "lf-open", satisfiedAt: 1 },
        { nodeId: read.nodeId, lfId: "lf-answer", satisfiedAt: 2 }
      ])
    ).toBe(true)
  })
})

describe("read by echoes and survived filters (data rules 11)", () => {
  const v10 = { byQueries: true }
  const v11 = { byQueries: true, echoes: true, survived: true }
  test("the quantity the cart showed goes after Add to cart, where its echo holds", () => {
    expect(goalStateSteps(cartDemo, CART_KEY_STEPS, v10)).toEqual([0, 1, 4, 5])
    expect(goalStateSteps(cartDemo, CART_KEY_STEPS, v11)).toEqual([1, 0, 4, 5])
  })
  test("the filter, the sort and their Apply are the way BW810 survived; the choice is held to the unfiltered list", () => {
    expect(goalStateSteps(flightsDemo, FLIGHTS_KEY_STEPS, v10)).toEqual([1, 2, 4, 5])
    expect(goalStateSteps(flightsDemo, FLIGHTS_KEY_STEPS, v11)).toEqual([4, 5])
    const ids = FLIGHTS_KEY_STEPS.map((i) => `n${i}`)
    expect(goalStateAnchors(flightsDemo, FLIGHTS_KEY_STEPS, ids, v11)).toEqual({
      n4: "^/travel/flights(?=.*[?&]trip=oneway(&|$))(?=.*[?&]from=prague(&|$))(?=.*[?&]to=barcelona(&|$))(?=.*[?&]date=2029-07-25(&|$))(?=.*[?&]passengers=1(&|$))\\?.*$"
    })
    expect(goalStateAnchors(flightsDemo, FLIGHTS_KEY_STEPS, ids, v10)).toEqual({})
  })
})
