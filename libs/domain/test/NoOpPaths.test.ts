/**
 * Given a solved trajectory and the path it would add, when expansion asks whether the
 * path's extra key steps changed anything (Expansion.ts `changesNothing`, `noOpSteps`),
 * then… — pure: a step that left the page, its fields and its elements as they were is a
 * no-op, and a path made only of such steps beyond the paths it joins is a no-op path.
 */
import { describe, expect, test } from "bun:test"
import { addNode, addPath, changesNothing, emptyGraph, nodeIdOf, noOpSteps, normalizeKey } from "../mod.ts"
import type { GraphNode, LfElement, LfTrajectory, SemanticKey, StrategyGraph } from "../mod.ts"
import { act, el, trajectory } from "./fixtures.ts"

const home: ReadonlyArray<LfElement> = [
  el("searchbox", "Search", { value: "" }),
  el("button", "Search"),
  el("checkbox", "In stock only", { checked: false }),
  el("combobox", "Sort by", { value: "Relevance" }),
  el("link", "Red Kettle")
]
const withField = (role: string, name: string, more: Partial<LfElement>) =>
  home.map((e) => (e.role === role && e.name === name ? { ...e, ...more } : e))

/** One step from the home page ("/"), its URL after and its elements after. */
const oneStep = (
  action: ReturnType<typeof act>,
  urlAfter: string,
  elements: ReadonlyArray<LfElement>,
  initial: ReadonlyArray<LfElement> | null = home
) => trajectory("/", [{ action, urlAfter, elements }], initial)

const emptySearch = act("type", { role: "searchbox", name: "Search", typed: "", submit: true })

describe("changesNothing: a step that left everything as it was", () => {
  const cases: ReadonlyArray<{ name: string; t: LfTrajectory; nothing: boolean }> = [
    { name: "an empty search that stayed on the page", t: oneStep(emptySearch, "/", home), nothing: true },
    {
      name: "a click on a button that changed nothing",
      t: oneStep(act("click", { role: "button", name: "Search" }), "/", home),
      nothing: true
    },
    {
      name: "choosing the option already chosen",
      t: oneStep(act("select", { role: "combobox", name: "Sort by", value: "Relevance" }), "/", home),
      nothing: true
    },
    { name: "an empty search that landed on a results page", t: oneStep(emptySearch, "/search?q=", home), nothing: false },
    {
      name: "typing into a field (its value changed)",
      t: oneStep(
        act("type", { role: "searchbox", name: "Search", typed: "kettle" }),
        "/",
        withField("searchbox", "Search", { value: "kettle" })
      ),
      nothing: false
    },
    {
      name: "checking a box",
      t: oneStep(act("click", { role: "checkbox", name: "In stock only" }), "/", withField("checkbox", "In stock only", { checked: true })),
      nothing: false
    },
    {
      name: "choosing another option",
      t: oneStep(
        act("select", { role: "combobox", name: "Sort by", value: "Price" }),
        "/",
        withField("combobox", "Sort by", { value: "Price" })
      ),
      nothing: false
    },
    {
      name: "a click that showed more elements",
      t: oneStep(act("click", { role: "button", name: "Search" }), "/", [...home, el("link", "Blue Kettle")]),
      nothing: false
    },
    { name: "a step whose page before was not recorded", t: oneStep(emptySearch, "/", home, null), nothing: false },
    { name: "an answer", t: oneStep(act("answer", { answer: "42" }), "/", home), nothing: false }
  ]
  for (const c of cases) {
    test(`given ${c.name}, then ${c.nothing ? "a no-op" : "a change"}`, () => expect(changesNothing(c.t, 0)).toBe(c.nothing))
  }

  test("given a later step, then it is compared with the step before it, not the start", () => {
    const t = trajectory(
      "/",
      [
        {
          action: act("type", { role: "searchbox", name: "Search", typed: "kettle" }),
          elements: withField("searchbox", "Search", { value: "kettle" })
        },
        { action: act("click", { role: "button", name: "Search" }), elements: withField("searchbox", "Search", { value: "kettle" }) }
      ],
      home
    )
    expect(changesNothing(t, 0)).toBe(false)
    expect(changesNothing(t, 1)).toBe(true)
  })
})

const source = { kind: "demo" as const, id: "d1" }
const node = (kind: "click" | "type" | "answer", name: string, value: string | null = null): GraphNode => {
  const key: SemanticKey = { actionKind: kind, role: kind === "answer" ? null : "x", name, value, urlPattern: null }
  return { nodeId: nodeIdOf(key), lfId: `lf-${name}-${value}`, description: name, semanticKey: normalizeKey(key), how: "demo", source }
}
const SEARCH = node("type", "search", "red kettle")
const OPEN = node("click", "red kettle")
const ANSWER = node("answer", "", "42")
const EMPTY = node("type", "search", "")
const SORT = node("click", "sort")

/** The demo's way: search, open the product, answer its price. */
const graph: StrategyGraph = [SEARCH, OPEN, ANSWER, EMPTY, SORT].reduce(addNode, emptyGraph("t1"))
const demoGraph = addPath(graph, { pathId: "p0", nodeIds: [SEARCH.nodeId, OPEN.nodeId, ANSWER.nodeId], source })
/** Reached by its answer alone, at step `at`. */
const hitAt = (at: number) => ({ pathId: "p0", terminal: [{ nodeId: ANSWER.nodeId, lfId: ANSWER.lfId, satisfiedAt: at }] })
const said = act("answer", { answer: "42" })

describe("noOpSteps: a path whose extra key steps did nothing", () => {
  const cases: ReadonlyArray<{
    name: string
    t: LfTrajectory
    nodes: ReadonlyArray<{ stepIndex: number; nodeId: string }>
    hit?: ReturnType<typeof hitAt>
    expected: ReadonlyArray<number> | null
  }> = [
    {
      name: "an empty search that stayed on the page, then the answer",
      t: trajectory(
        "/",
        [
          { action: emptySearch, elements: home },
          { action: said, elements: home }
        ],
        home
      ),
      nodes: [
        { stepIndex: 0, nodeId: EMPTY.nodeId },
        { stepIndex: 1, nodeId: ANSWER.nodeId }
      ],
      expected: [0]
    },
    {
      name: "an empty search that landed on a results page, then the answer",
      t: trajectory(
        "/",
        [
          { action: emptySearch, urlAfter: "/search?q=", elements: home },
          { action: said, elements: home }
        ],
        home
      ),
      nodes: [
        { stepIndex: 0, nodeId: EMPTY.nodeId },
        { stepIndex: 1, nodeId: ANSWER.nodeId }
      ],
      expected: null
    },
    {
      name: "a no-op and a step that changed the page",
      t: trajectory(
        "/",
        [
          { action: emptySearch, elements: home },
          { action: act("click", { role: "x", name: "sort" }), urlAfter: "/?sort=price", elements: home },
          { action: said, elements: home }
        ],
        home
      ),
      nodes: [
        { stepIndex: 0, nodeId: EMPTY.nodeId },
        { stepIndex: 1, nodeId: SORT.nodeId },
        { stepIndex: 2, nodeId: ANSWER.nodeId }
      ],
      hit: hitAt(2),
      expected: null
    },
    {
      name: "only nodes the demo's path has (a shorter way, not a detour)",
      t: trajectory(
        "/",
        [
          { action: emptySearch, elements: home },
          { action: said, elements: home }
        ],
        home
      ),
      nodes: [
        { stepIndex: 0, nodeId: SEARCH.nodeId },
        { stepIndex: 1, nodeId: ANSWER.nodeId }
      ],
      expected: null
    }
  ]
  for (const c of cases) {
    test(`given ${c.name}, then ${c.expected === null ? "not a no-op path" : "a no-op path"}`, () => {
      const nodeIds = c.nodes.map((n) => n.nodeId)
      expect(noOpSteps(demoGraph, c.t, c.nodes, c.hit ?? hitAt(1), nodeIds)).toEqual(c.expected)
    })
  }

  test("given an extra node with no step to show for it, then a change: nothing proves it did nothing", () => {
    const t = trajectory(
      "/",
      [
        { action: emptySearch, elements: home },
        { action: said, elements: home }
      ],
      home
    )
    expect(noOpSteps(demoGraph, t, [{ stepIndex: 1, nodeId: ANSWER.nodeId }], hitAt(1), [EMPTY.nodeId, ANSWER.nodeId])).toBeNull()
  })

  test("given another path of the graph that ends at the same answer, then its nodes are not extra", () => {
    const t = trajectory(
      "/",
      [
        { action: act("click", { role: "x", name: "sort" }), urlAfter: "/?sort=price", elements: home },
        { action: emptySearch, elements: home },
        { action: said, elements: home }
      ],
      home
    )
    const both = addPath(demoGraph, { pathId: "p1", nodeIds: [SORT.nodeId, ANSWER.nodeId], source })
    const nodes = [
      { stepIndex: 0, nodeId: SORT.nodeId },
      { stepIndex: 1, nodeId: EMPTY.nodeId },
      { stepIndex: 2, nodeId: ANSWER.nodeId }
    ]
    // Sorting is p1's: with it joined, the empty search is the only extra step, and it did nothing.
    expect(
      noOpSteps(
        both,
        t,
        nodes,
        hitAt(2),
        nodes.map((n) => n.nodeId)
      )
    ).toEqual([1])
    expect(
      noOpSteps(
        demoGraph,
        t,
        nodes,
        hitAt(2),
        nodes.map((n) => n.nodeId)
      )
    ).toBeNull()
  })
})
