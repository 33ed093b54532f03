/**
 * Given paths whose nodes share label functions or fill one form in another order, when
 * compared, verdicts asked and undone goals judged, then paths are one by meaning and an
 * undo does not pass — pure, the sandbox stood in for by tables.
 */
import { describe, expect, test } from "bun:test"
import {
  acceptUnlessUndone,
  addNode,
  addPath,
  distinctPaths,
  emptyGraph,
  goalRedoneElsewhere,
  goalUndone,
  graphVerdict,
  pressedAgain,
  valuesOverwritten,
  acceptUnlessRedone,
  hasPathByMeaning,
  nodeByMeaning,
  nodeIdOf,
  normalizeKey,
  pathIdOf,
  pathSignature,
  queryKey,
  renderGraph
} from "../mod.ts"
import type { GraphNode, LfQuery, LfResult, SemanticKey, StrategyGraph, VerdictRules } from "../mod.ts"
import { act, el, trajectory } from "./fixtures.ts"

const source = { kind: "demo" as const, id: "d1" }

/** A node: `name` keys it, `lf` names its label function, `kind` and `page` complete its meaning. */
const node = (name: string, lf: string, kind: SemanticKey["actionKind"] = "click", page: string | null = "/a"): GraphNode => {
  const semanticKey = normalizeKey({ actionKind: kind, role: "button", name, value: null, urlPattern: page })
  return { nodeId: nodeIdOf(semanticKey), lfId: lf, description: name, semanticKey, how: "demo", source }
}

const graphOf = (nodes: ReadonlyArray<GraphNode>, paths: ReadonlyArray<ReadonlyArray<GraphNode>>): StrategyGraph => {
  let g = emptyGraph("t1")
  for (const n of nodes) g = addNode(g, n)
  for (const p of paths) {
    const ids = p.map((n) => n.nodeId)
    g = addPath(g, { pathId: pathIdOf("t1", ids), nodeIds: ids, source })
  }
  return g
}

const run = (g: StrategyGraph, answer: (q: LfQuery) => LfResult, rules: VerdictRules = {}) => {
  const known = new Map<string, LfResult>()
  for (let i = 0; i < 50; i++) {
    const step = graphVerdict(g, (q) => known.get(queryKey(q)), rules)
    if (step.kind === "done") return step.verdict
    for (const q of step.queries) known.set(queryKey(q), answer(q))
  }
  throw new Error("no progress")
}

const at =
  (steps: Record<string, ReadonlyArray<number>>) =>
  (q: LfQuery): LfResult => ({ satisfiedAt: (steps[q.lfId] ?? []).find((s) => s >= q.from) ?? -1 })

describe("path identity by label functions", () => {
  const onCategory = node("open kitchen", "lf-open", "click", "/category/kitchen")
  const onHome = node("open kitchen", "lf-open", "click", "/")
  const done = node("complete", "lf-done", "status", "/category/kitchen")
  const from = node("from", "lf-from", "type", "/flights")
  const to = node("to", "lf-to", "type", "/flights")
  const search = node("search", "lf-search", "click", "/flights")

  test.each([
    ["one LF on two pages is one meaning", [onCategory, done], [onHome, done], true],
    ["form fields in another order on one page are one meaning", [from, to, search], [to, from, search], true],
    ["another LF is another meaning", [onCategory, done], [search, done], false],
    ["fields on different pages do not commute", [from, to], [to, node("from", "lf-from", "type", "/hotels")], false],
    ["a click between two fields keeps their order", [from, search, to], [to, search, from], false]
  ] as const)("given %s: same signature or not as the table says", (_, a, b, same) => {
    const g = graphOf([onCategory, onHome, done, from, to, search, node("from", "lf-from", "type", "/hotels")], [])
    expect(
      pathSignature(
        g,
        a.map((n) => n.nodeId)
      ) ===
        pathSignature(
          g,
          b.map((n) => n.nodeId)
        )
    ).toBe(same)
  })

  test("given three paths of which two verify identically, then two distinct paths, and the text rendering says which repeats", () => {
    const g = graphOf(
      [onCategory, onHome, done, search],
      [
        [onCategory, done],
        [onHome, done],
        [search, done]
      ]
    )
    expect(g.paths.length).toBe(3)
    expect(distinctPaths(g)).toBe(2)
    expect(hasPathByMeaning(g, [onHome.nodeId, done.nodeId])).toBe(true)
    expect(hasPathByMeaning(g, [search.nodeId])).toBe(false)
    const text = renderGraph(g, "text")
    expect(text).toContain("3 path(s), 2 distinct by label functions")
    expect(text).toContain(`same label functions as ${g.paths[0]!.pathId}`)
  })

  test("given a node with an LF and kind, then nodeByMeaning finds it; another kind does not", () => {
    const g = graphOf([onCategory], [])
    expect(nodeByMeaning(g, "lf-open", "click")?.nodeId).toBe(onCategory.nodeId)
    expect(nodeByMeaning(g, "lf-open", "type")).toBeUndefined()
  })
})

describe("a verdict where form fields commute", () => {
  const from = node("from", "lf-from", "type", "/flights")
  const to = node("to", "lf-to", "type", "/flights")
  const search = node("search", "lf-search", "click", "/flights")
  const g = graphOf([from, to, search], [[from, to, search]])

  test.each([
    ["To filled before From, in order-only rules", { "lf-from": [1], "lf-to": [0], "lf-search": [2] }, {}, "partial"],
    ["To filled before From, with commuting fields", { "lf-from": [1], "lf-to": [0], "lf-search": [2] }, { commute: true }, "pass"],
    ["From and To in order, with commuting fields", { "lf-from": [0], "lf-to": [1], "lf-search": [2] }, { commute: true }, "pass"],
    ["search before the fields", { "lf-from": [1], "lf-to": [2], "lf-search": [0] }, { commute: true }, "partial"],
    ["both fields at one step", { "lf-from": [1], "lf-to": [1], "lf-search": [2] }, { commute: true }, "partial"]
  ] as const)("given %s, then the verdict the table gives", (_, steps, rules, verdict) => {
    const v = run(g, at(steps), rules)
    expect(v.verdict).toBe(verdict)
    if (verdict === "pass") expect(v.matched.map((m) => m.satisfiedAt)).toEqual([0, 1, 2])
  })
})

describe("no pass after an undo", () => {
  const up = (pressed: boolean) => el("button", "Upvote post 'Tea'", { checked: pressed })
  const down = (pressed: boolean) => el("button", "Downvote post 'Tea'", { checked: pressed })
  const comment = (value: string) => el("textbox", "Comment", { value })
  const page = (u: boolean, d: boolean, c = "") => [up(u), down(d), comment(c), el("button", "Post comment")]
  const trajectories = {
    "upvote, downvote, complete": trajectory(
      "/post/1",
      [
        { action: act("click", { role: "button", name: "Upvote post 'Tea'" }), elements: page(true, false) },
        { action: act("click", { role: "button", name: "Downvote post 'Tea'" }), elements: page(false, true) },
        { action: act("status", { status: "complete" }), elements: page(false, true) }
      ],
      page(false, false)
    ),
    "upvote, upvote again (toggled off), complete": trajectory(
      "/post/1",
      [
        { action: act("click", { role: "button", name: "Upvote post 'Tea'" }), elements: page(true, false) },
        { action: act("click", { role: "button", name: "Upvote post 'Tea'" }), elements: page(false, false) },
        { action: act("status", { status: "complete" }), elements: page(false, false) }
      ],
      page(false, false)
    ),
    "upvote, comment, complete": trajectory(
      "/post/1",
      [
        { action: act("click", { role: "button", name: "Upvote post 'Tea'" }), elements: page(true, false) },
        { action: act("type", { role: "textbox", name: "Comment", typed: "nice" }), elements: page(true, false, "nice") },
        { action: act("click", { role: "button", name: "Post comment" }), elements: page(true, false) },
        { action: act("status", { status: "complete" }), elements: page(true, false) }
      ],
      page(false, false)
    ),
    "upvote, complete": trajectory(
      "/post/1",
      [
        { action: act("click", { role: "button", name: "Upvote post 'Tea'" }), elements: page(true, false) },
        { action: act("status", { status: "complete" }), elements: page(true, false) }
      ],
      page(false, false)
    )
  }
  const upvote = node("upvote post 'tea'", "lf-up", "click", "/post/1")
  const complete = node("complete", "lf-done", "status", "/post/1")
  const g = graphOf([upvote, complete], [[upvote, complete]])

  test.each([
    ["upvote, downvote, complete", 0, 2, true, "partial"],
    ["upvote, upvote again (toggled off), complete", 0, 2, true, "partial"],
    ["upvote, comment, complete", 0, 3, false, "pass"],
    ["upvote, complete", 0, 1, false, "pass"]
  ] as const)("given %s, then undone and the verdict as the table says", (name, goal, claim, undone, verdict) => {
    const t = trajectories[name]
    expect(goalUndone(t, goal, claim)).toBe(undone)
    const v = run(g, at({ "lf-up": [goal], "lf-done": [claim] }), { accept: acceptUnlessUndone(g, t) })
    expect(v.verdict).toBe(verdict)
    expect(v.refused ?? []).toEqual(undone ? [g.paths[0]!.pathId] : [])
  })

  test("given an undo the first rules do not look for, then it still passes there (old runs keep their verdicts)", () => {
    expect(run(g, at({ "lf-up": [0], "lf-done": [2] })).verdict).toBe("pass")
  })

  test("given a goal that left the page (nothing to compare), then it is not judged undone", () => {
    const t = trajectory(
      "/post/1",
      [
        { action: act("click", { role: "button", name: "Delete" }), urlAfter: "/", elements: [el("link", "Home")] },
        { action: act("status", { status: "complete" }), elements: [el("link", "Home")] }
      ],
      [el("button", "Delete")]
    )
    expect(goalUndone(t, 0, 1)).toBe(false)
  })
})

describe("data rules 8: no pass once the goal's fields were filled again with other values", () => {
  const email = (typed: string) => ({ action: act("type", { role: "textbox", name: "Email", typed }) })
  const save = { action: act("click", { role: "button", name: "Save" }) }
  const search = (typed: string) => ({
    action: act("type", { role: "searchbox", name: "Search", typed, submit: true }),
    urlAfter: `/search?q=${typed}`
  })
  const done = { action: act("status", { status: "complete" }) }
  // The path's matched key steps are 0 (the email) and 1 (Save, the goal); the claim is the last step.
  const cases: ReadonlyArray<[string, ReadonlyArray<Parameters<typeof trajectory>[1][number]>, number, boolean]> = [
    ["the email changed, saved, complete", [email("ann@x.org"), save, done], 2, false],
    ["changed, saved, then changed to another address and saved", [email("ann@x.org"), save, email("bob@x.org"), save, done], 4, true],
    ["changed, saved, the same address typed again", [email("ann@x.org"), save, email("ann@x.org"), done], 3, false],
    [
      "changed, saved, then searches (a submitted field holds nothing)",
      [email("ann@x.org"), save, search("tea"), search("cake"), done],
      4,
      false
    ],
    ["changed, saved, complete, and only then another address", [email("ann@x.org"), save, done, email("bob@x.org")], 2, false]
  ]
  for (const [name, steps, claim, overwritten] of cases)
    test(name, () => expect(valuesOverwritten(trajectory("/account", steps), [0, 1], 1, claim)).toBe(overwritten))

  test("as a verdict rule: the path refused when overwritten, and accepted otherwise", () => {
    const field = node("email", "lf-email", "type", "/account")
    const saved = node("save", "lf-save", "click", "/account")
    const complete = node("complete", "lf-done", "status", "/account")
    const g = graphOf([field, saved, complete], [[field, saved, complete]])
    const twice = trajectory("/account", [email("ann@x.org"), save, email("bob@x.org"), save, done])
    const once = trajectory("/account", [email("ann@x.org"), save, done])
    expect(run(g, at({ "lf-email": [0], "lf-save": [1], "lf-done": [4] }), { accept: acceptUnlessRedone(g, twice) }).verdict).toBe(
      "partial"
    )
    expect(run(g, at({ "lf-email": [0], "lf-save": [1], "lf-done": [2] }), { accept: acceptUnlessRedone(g, once) }).verdict).toBe("pass")
  })
})

describe("data rules 8: no pass once the goal control was pressed again on another page", () => {
  const publish = (_from: string, to: string) => ({ action: act("click", { role: "button", name: "Publish post" }), urlAfter: to })
  const open = (to: string) => ({ action: act("click", { role: "link", name: to }), urlAfter: to })
  const done = { action: act("status", { status: "complete" }) }
  const cases: ReadonlyArray<[string, ReadonlyArray<Parameters<typeof trajectory>[1][number]>, number, boolean]> = [
    ["published, complete", [publish("/submit?b=books", "/post/1"), done], 1, false],
    [
      "published, then the same post published on another board",
      [publish("/submit?b=books", "/post/1"), open("/submit?b=photo"), publish("/submit?b=photo", "/post/2"), done],
      3,
      true
    ],
    // Started on /submit?b=books: a double click on the same page is the undo rule's to judge.
    [
      "published twice from the same page",
      [publish("/submit?b=books", "/submit?b=books"), publish("/submit?b=books", "/post/1"), done],
      2,
      false
    ]
  ]
  for (const [name, steps, claim, redone] of cases)
    test(name, () => expect(goalRedoneElsewhere(trajectory("/submit?b=books", steps), 0, claim)).toBe(redone))

  test("a goal that followed a link is not judged: going there again from elsewhere changes nothing", () => {
    const t = trajectory("/", [open("/b/books"), open("/"), open("/b/books"), done])
    expect(goalRedoneElsewhere(t, 0, 3)).toBe(false)
  })
})

describe("data rules 8: no pass once a matched control was pressed again where it was, changing the page", () => {
  const cart = (n: number) => [el("link", `Cart (${n})`), el("button", "Add to cart")]
  const add = (n: number, urlAfter = "/p/1?added=cart") => ({
    action: act("click", { role: "button", name: "Add to cart" }),
    urlAfter,
    elements: cart(n)
  })
  const wish = { action: act("click", { role: "button", name: "Add to wish list" }), elements: [el("button", "Add to wish list")] }
  const done = { action: act("status", { status: "complete" }), elements: cart(3) }
  const cases: ReadonlyArray<[string, Parameters<typeof trajectory>[1], ReadonlyArray<number>, number, boolean]> = [
    ["added once, complete", [add(3), done], [0, 1], 1, false],
    ["added, then added again right away: the cart changed again", [add(3), add(4), done], [0, 2], 2, true],
    ["added again by a path that left the button out: the step before is the same press", [add(3), add(4), done], [2], 2, true],
    ["pressed twice, the second changing nothing (already on the wish list)", [wish, wish, done], [0, 2], 2, false],
    ["both presses are the path's own nodes (a stepper pressed twice by the demo)", [add(3), add(4), done], [0, 1, 2], 2, false]
  ]
  for (const [name, steps, matched, claim, again] of cases)
    test(name, () => expect(pressedAgain(trajectory("/p/1", steps), matched, claim)).toBe(again))
})
