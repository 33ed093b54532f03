/**
 * Given strategy graphs built from demos, when key steps are keyed, merged, verdicts asked
 * and graphs rendered, then… — pure, the sandbox stood in for by tables or native LFs.
 */
import { describe, expect, test } from "bun:test"
import {
  addNode,
  addPath,
  distinctPaths,
  emptyGraph,
  fromStep,
  graphVerdict,
  hasPath,
  identifyKeySteps,
  lfIdsOf,
  nativeLabelFunction,
  nodeIdOf,
  normalizeKey,
  pathIdOf,
  queryKey,
  renderGraph,
  semanticKeyOf,
  synthesizeCandidates,
  urlPattern
} from "../mod.ts"
import type { GraphNode, GraphVerdict, LfQuery, LfResult, LfTrajectory, SemanticKey, StrategyGraph } from "../mod.ts"
import { act, buyDemo, trajectory } from "./fixtures.ts"

const source = { kind: "demo" as const, id: "d1" }

const key = (name: string, more: Partial<SemanticKey> = {}): SemanticKey => ({
  actionKind: "click",
  role: "button",
  name,
  value: null,
  urlPattern: null,
  ...more
})

const node = (name: string, lfId = `lf-${name}`, description = `Click '${name}'.`): GraphNode => ({
  nodeId: nodeIdOf(key(name)),
  lfId,
  description,
  semanticKey: normalizeKey(key(name)),
  how: "demo",
  source
})

/** A graph of named nodes and paths over them (by name). */
const graph = (paths: ReadonlyArray<ReadonlyArray<string>>, taskId = "t1"): StrategyGraph => {
  let g = emptyGraph(taskId)
  for (const name of paths.flat()) g = addNode(g, node(name))
  for (const p of paths) {
    const ids = p.map((n) => nodeIdOf(key(n)))
    g = addPath(g, { pathId: pathIdOf(taskId, ids), nodeIds: ids, source })
  }
  return g
}

/** Drives the incremental verdict against a table `lfId -> from -> result`; records each round's queries. */
const run = (g: StrategyGraph, answer: (q: LfQuery) => LfResult) => {
  const known = new Map<string, LfResult>()
  const rounds: Array<ReadonlyArray<string>> = []
  for (;;) {
    const step = graphVerdict(g, (q) => known.get(queryKey(q)))
    if (step.kind === "done") return { verdict: step.verdict, rounds }
    rounds.push(step.queries.map(queryKey))
    for (const q of step.queries) {
      expect(known.has(queryKey(q))).toBe(false) // never asked twice
      known.set(queryKey(q), answer(q))
    }
    if (rounds.length > 50) throw new Error("no progress")
  }
}

/** Each LF holds at a fixed list of steps; from `f` it answers the first of them ≥ f. */
const at =
  (steps: Record<string, ReadonlyArray<number>>) =>
  (q: LfQuery): LfResult => ({ satisfiedAt: (steps[q.lfId] ?? []).find((s) => s >= q.from) ?? -1 })

describe("semantic keys: what makes two key steps the same node", () => {
  test("given a demo's Add-to-cart click, when keyed, then kind, role, name and the page it happened on", () => {
    expect(semanticKeyOf(buyDemo(), 5)).toEqual({
      actionKind: "click",
      role: "button",
      name: "add to cart",
      value: null,
      urlPattern: urlPattern("/shop/product/red-kettle")
    })
  })

  test("given a step index the trajectory lacks, when keyed, then a RangeError", () => {
    expect(() => semanticKeyOf(buyDemo(), 99)).toThrow(RangeError)
  })

  test("given the same step in two demos of different quantities, then one node id; another product is another node", () => {
    expect(nodeIdOf(semanticKeyOf(buyDemo("Red Kettle", "red-kettle", "2"), 5))).toBe(
      nodeIdOf(semanticKeyOf(buyDemo("Red Kettle", "red-kettle", "3"), 5))
    )
    expect(nodeIdOf(semanticKeyOf(buyDemo("Red Kettle"), 5))).not.toBe(nodeIdOf(semanticKeyOf(buyDemo("Blue Mug", "blue-mug"), 5)))
  })

  test("given names differing in case, spacing and a count, then one id; a different typed value is another", () => {
    // buyDemo step 6 clicks "Cart (2)" or "Cart (3)": the count is the page's state.
    const k2 = semanticKeyOf(buyDemo("Red Kettle", "red-kettle", "2"), 6)
    expect(k2.name).toBe("cart (#)")
    expect(nodeIdOf(k2)).toBe(nodeIdOf(semanticKeyOf(buyDemo("Red Kettle", "red-kettle", "3"), 6)))
    expect(nodeIdOf(key(" Add  to\nCart "))).toBe(nodeIdOf(key("add to cart")))
    expect(nodeIdOf(key("x", { actionKind: "type", value: "Red Kettle" }))).toBe(
      nodeIdOf(key("x", { actionKind: "type", value: "red  kettle" }))
    )
    expect(nodeIdOf(key("x", { actionKind: "type", value: "Red Kettle" }))).not.toBe(
      nodeIdOf(key("x", { actionKind: "type", value: "Blue Mug" }))
    )
    expect(nodeIdOf(key("x"))).toMatch(/^n-[0-9a-f]{16}$/)
  })

  test("given a click on a page a button added a query to, then the key names the page's path only (as the LF does)", () => {
    // Step 6 happens on /shop/product/red-kettle?added=cart, reached by the Add-to-cart button.
    expect(semanticKeyOf(buyDemo(), 6).urlPattern).toBe(urlPattern("/shop/product/red-kettle"))
  })

  test("given answers on different pages, then one node (an answer has no place); statuses on different pages, then two (where a run ended)", () => {
    const a = trajectory("/a", [{ action: act("status", { status: "complete" }) }, { action: act("answer", { answer: "42" }) }])
    const b = trajectory("/b/elsewhere", [{ action: act("status", { status: "complete" }) }, { action: act("answer", { answer: "42" }) }])
    expect(nodeIdOf(semanticKeyOf(a, 1))).toBe(nodeIdOf(semanticKeyOf(b, 1)))
    expect(nodeIdOf(semanticKeyOf(a, 0))).not.toBe(nodeIdOf(semanticKeyOf(b, 0)))
    expect(semanticKeyOf(a, 0)).toMatchObject({ actionKind: "status", value: "complete", urlPattern: "^/a(\\?.*)?$" })
    expect(semanticKeyOf(a, 1)).toMatchObject({ actionKind: "answer", value: "42", urlPattern: null })
  })

  test("given a key, when normalised twice, then the same key (idempotent); the URL pattern keeps its case", () => {
    const k = key("Cart (3)", { urlPattern: "^/Orders/O-\\d+$", value: " Hello  World " })
    expect(normalizeKey(normalizeKey(k))).toEqual(normalizeKey(k))
    expect(normalizeKey(k)).toMatchObject({ name: "cart (#)", value: "hello world", urlPattern: "^/Orders/O-\\d+$" })
  })
})

describe("graph values: nodes merged by meaning, paths distinct", () => {
  test("given a node already there, when added again with another LF, then the same graph (the first LF wins)", () => {
    const g = addNode(emptyGraph("t1"), node("Buy", "lf-1"))
    expect(addNode(g, node("Buy", "lf-2"))).toBe(g)
    expect(lfIdsOf(g)).toEqual(["lf-1"])
  })

  test("given a known path, when added again, then the same graph; an unknown node or an empty path is a RangeError", () => {
    const g = graph([["A", "B"]])
    const ids = ["A", "B"].map((n) => nodeIdOf(key(n)))
    expect(addPath(g, { pathId: "p-other", nodeIds: ids, source })).toBe(g)
    expect(hasPath(g, ids)).toBe(true)
    expect(hasPath(g, [ids[1]!, ids[0]!])).toBe(false)
    expect(() => addPath(g, { pathId: "p-x", nodeIds: [ids[0]!, "n-unknown"], source })).toThrow(RangeError)
    expect(() => addPath(g, { pathId: "p-x", nodeIds: [], source })).toThrow(RangeError)
  })

  test("given two paths sharing a node, then nodes are counted once and paths twice; ids are deterministic", () => {
    const g = graph([
      ["A", "B", "D"],
      ["C", "B", "D"]
    ])
    expect(g.nodes.length).toBe(4)
    expect(distinctPaths(g)).toBe(2)
    expect(lfIdsOf(g)).toEqual(["lf-A", "lf-B", "lf-D", "lf-C"])
    expect(g.paths[0]!.pathId).toBe(pathIdOf("t1", g.paths[0]!.nodeIds))
    expect(g.paths[0]!.pathId).toMatch(/^p-[0-9a-f]{16}$/)
    expect(pathIdOf("t2", g.paths[0]!.nodeIds)).not.toBe(g.paths[0]!.pathId)
  })
})

describe("the graph verdict: some path in order, asked incrementally", () => {
  test("given an empty graph, then fail with no evidence and no queries", () => {
    const step = graphVerdict(emptyGraph("t1"), () => undefined)
    expect(step).toEqual({ kind: "done", verdict: { verdict: "fail", pathId: null, path: null, matched: [], evidence: [] } })
  })

  test("given nothing known, then the first round asks every LF from 0 (evidence and each path's first node), once each", () => {
    const step = graphVerdict(
      graph([
        ["A", "B"],
        ["C", "B"]
      ]),
      () => undefined
    )
    expect(step.kind).toBe("need")
    expect(step.kind === "need" && step.queries.map(queryKey)).toEqual(["lf-A@0", "lf-B@0", "lf-C@0"])
  })

  test("given LFs in order, then pass with the path and its strictly increasing steps", () => {
    const g = graph([["A", "B"]])
    const { verdict, rounds } = run(g, at({ "lf-A": [2], "lf-B": [1, 4] }))
    expect(verdict).toMatchObject({ verdict: "pass", pathId: g.paths[0]!.pathId, path: g.paths[0]!.nodeIds })
    expect(verdict.matched).toEqual([
      { nodeId: nodeIdOf(key("A")), lfId: "lf-A", satisfiedAt: 2 },
      { nodeId: nodeIdOf(key("B")), lfId: "lf-B", satisfiedAt: 4 }
    ])
    expect(rounds).toEqual([["lf-A@0", "lf-B@0"], ["lf-B@3"]])
    expect(verdict.evidence).toEqual([
      { lfId: "lf-A", satisfiedAt: 2, error: null },
      { lfId: "lf-B", satisfiedAt: 1, error: null }
    ])
  })

  test("given both LFs holding but out of order, then partial (the order is checked)", () => {
    const { verdict } = run(graph([["A", "B"]]), at({ "lf-A": [3], "lf-B": [1] }))
    expect(verdict).toMatchObject({ verdict: "partial", pathId: null, path: null, matched: [] })
  })

  test("given no LF holding, then fail with evidence for each", () => {
    const { verdict } = run(graph([["A", "B"]]), at({}))
    expect(verdict.verdict).toBe("fail")
    expect(verdict.evidence.map((e) => e.satisfiedAt)).toEqual([-1, -1])
  })

  test("given an LF that broke, then it counts as not holding and its error is kept as evidence", () => {
    const { verdict } = run(graph([["A", "B"]]), (q) => (q.lfId === "lf-B" ? { error: "budget exceeded" } : { satisfiedAt: 0 }))
    expect(verdict.verdict).toBe("partial")
    expect(verdict.evidence).toEqual([
      { lfId: "lf-A", satisfiedAt: 0, error: null },
      { lfId: "lf-B", satisfiedAt: -1, error: "budget exceeded" }
    ])
  })

  test("given several paths, then later nodes are asked in one batch for all paths, and the first passing path in order wins", () => {
    const g = graph([
      ["A", "B"],
      ["C", "D"],
      ["C", "B"]
    ])
    const { verdict, rounds } = run(g, at({ "lf-A": [5], "lf-B": [1], "lf-C": [0], "lf-D": [2] }))
    // Round 2 continues all three paths at once; path 2 (C at 0, D at 2) passes before path 3 would.
    expect(rounds).toEqual([
      ["lf-A@0", "lf-B@0", "lf-C@0", "lf-D@0"],
      ["lf-B@6", "lf-D@1", "lf-B@1"]
    ])
    expect(verdict).toMatchObject({ verdict: "pass", pathId: g.paths[1]!.pathId })
    expect(verdict.matched.map((m) => m.satisfiedAt)).toEqual([0, 2])
  })

  test("given the first path passes, then later paths are not walked further", () => {
    const g = graph([["A"], ["C", "D"]])
    const { rounds, verdict } = run(g, at({ "lf-A": [0], "lf-C": [0], "lf-D": [3] }))
    expect(verdict.pathId).toBe(g.paths[0]!.pathId)
    expect(rounds).toEqual([["lf-A@0", "lf-C@0", "lf-D@0"]])
  })

  test("given an LF whose suffix answer differs from its from-0 answer, then the suffix is asked, not derived", () => {
    // B holds at 1 from step 0 but, asked from step 3 (evidence combined differently), at 4.
    const answer = (q: LfQuery): LfResult => (q.lfId === "lf-A" ? { satisfiedAt: 2 } : { satisfiedAt: q.from === 0 ? 1 : 4 })
    const { verdict, rounds } = run(graph([["A", "B"]]), answer)
    expect(rounds[1]).toEqual(["lf-B@3"])
    expect(verdict.matched.map((m) => m.satisfiedAt)).toEqual([2, 4])
  })

  test("given an LF that answers a step before the suffix it was shown, then it does not hold there", () => {
    const { verdict } = run(graph([["A", "B"]]), (q) => ({ satisfiedAt: q.lfId === "lf-A" ? 2 : 1 }))
    expect(verdict.verdict).toBe("partial")
  })
})

describe("the verdict over a demo's own synthesized LFs", () => {
  const demo = buyDemo()
  const nodes = identifyKeySteps(demo).map((k) => {
    const code = synthesizeCandidates(demo, k)[0]!.code
    const semanticKey = semanticKeyOf(demo, k.stepIndex)
    return {
      nodeId: nodeIdOf(semanticKey),
      lfId: `lf-${k.stepIndex}`,
      description: k.description,
      semanticKey,
      how: "demo" as const,
      source,
      code
    }
  })
  let g = nodes.reduce((acc, n) => addNode(acc, n), emptyGraph("buy"))
  g = addPath(g, {
    pathId: pathIdOf(
      "buy",
      nodes.map((n) => n.nodeId)
    ),
    nodeIds: nodes.map((n) => n.nodeId),
    source
  })
  const lfs = new Map(nodes.map((n) => [n.lfId, nativeLabelFunction(n.code)]))
  const verdictOn = (t: LfTrajectory): GraphVerdict =>
    run(g, (q) => ({ satisfiedAt: lfs.get(q.lfId)!(fromStep(t, q.from)) as number })).verdict

  test("given the demo itself, then it passes at its key steps", () => {
    const v = verdictOn(demo)
    expect(v.verdict).toBe("pass")
    expect(v.matched.map((m) => m.satisfiedAt)).toEqual(identifyKeySteps(demo).map((k) => k.stepIndex))
  })

  test("given only the first half of the demo, then partial", () => {
    expect(verdictOn({ ...demo, steps: demo.steps.slice(0, 6) }).verdict).toBe("partial")
  })
})

describe("rendering: text, dot and mermaid", () => {
  // Two paths sharing node B; B's description has quotes, a backslash and a line break.
  let g = emptyGraph("t1")
  for (const n of [node("A"), node("B", "lf-B", `Type "red \\ kettle"\ninto 'Search'.`), node("C"), node("D")]) g = addNode(g, n)
  for (const p of [
    ["A", "B", "D"],
    ["C", "B", "D"]
  ]) {
    const ids = p.map((n) => nodeIdOf(key(n)))
    g = addPath(g, { pathId: pathIdOf("t1", ids), nodeIds: ids, source })
  }
  const [a, b, c, d] = ["A", "B", "C", "D"].map((n) => nodeIdOf(key(n)))

  test("given text, then the task, each node with how, key and LF id, and each path start to end", () => {
    const text = renderGraph(g, "text")
    expect(text).toContain("strategy graph t1: 4 node(s), 2 path(s)")
    expect(text).toContain(`${a} [demo] Click 'A'.`)
    expect(text).toContain(`key: click button "a"`)
    expect(text).toContain("lf: lf-A")
    expect(text).toContain(
      `${g.paths[1]!.pathId}: start → ${c} "Click 'C'." → ${b} "Type \\"red \\\\ kettle\\"\\ninto 'Search'." → ${d} "Click 'D'." → end`
    )
  })

  test("given dot, then a digraph with quoted ids, escaped labels and each edge once", () => {
    const dot = renderGraph(g, "dot")
    expect(dot.startsWith(`digraph "strategy graph t1" {`)).toBe(true)
    expect(dot.trimEnd().endsWith("}")).toBe(true)
    expect(dot).toContain(`"${b}" [shape=box, label="Type \\"red \\\\ kettle\\"\\ninto 'Search'.\\ndemo · ${b}"];`)
    expect(dot.match(new RegExp(`"${b}" -> "${d}"`, "g"))?.length).toBe(1)
    expect(dot.match(new RegExp(`"${d}" -> "@end"`, "g"))?.length).toBe(1)
    expect(dot).toContain(`"@start" -> "${a}";`)
    expect(dot).toContain(`"@start" -> "${c}";`)
    expect(dot.split("\n").filter((l) => l.includes("->")).length).toBe(6)
    // No raw line break inside a statement.
    expect(dot.split("\n").every((l) => l === "" || /^(digraph .* \{|\s+.*;|\})$/.test(l))).toBe(true)
  })

  test("given mermaid, then a flowchart with start/finish circles, #quot; labels and each edge once", () => {
    const m = renderGraph(g, "mermaid")
    expect(m.startsWith("flowchart LR\n")).toBe(true)
    expect(m).toContain("  start((start))")
    expect(m).toContain("  finish((end))") // `end` is a reserved word in mermaid
    expect(m).toContain(`  ${b}["Type #quot;red \\ kettle#quot; into 'Search'."]`)
    expect(m.match(new RegExp(`${b} --> ${d}`, "g"))?.length).toBe(1)
    expect(m).toContain(`start --> ${a}`)
    expect(m).toContain(`${d} --> finish`)
    expect(m.split("\n").filter((l) => l.includes("-->")).length).toBe(6)
  })
})
