/**
 * Given a run's graph and an evaluation trajectory that fills one form in another order,
 * when `eval labels --run` judges it, then it is judged by the rules the run verified its
 * own trajectories with: a run whose data rules let form fields commute passes it, the
 * first rules do not. Real label functions in the real sandbox.
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { addNode, addPath, emptyGraph, nodeIdOf, normalizeKey, pathIdOf } from "@core/domain"
import type { GraphNode, LfTrajectory, SemanticKey } from "@core/domain"
import { labelSandbox } from "@core/pipeline"
import { labelTrajectoriesWithGraphs } from "../LabelAccuracy.ts"
import type { LabelEvalSet } from "../LabelEvalSet.ts"

const node = (name: string, kind: SemanticKey["actionKind"], lf: string): GraphNode => {
  const semanticKey = normalizeKey({
    actionKind: kind,
    role: kind === "select" ? "combobox" : "button",
    name,
    value: null,
    urlPattern: "/travel/"
  })
  return { nodeId: nodeIdOf(semanticKey), lfId: lf, description: name, semanticKey, how: "demo", source: { kind: "demo", id: "d1" } }
}
const nodes = [node("From", "select", "lf-from"), node("To", "select", "lf-to"), node("Search flights", "click", "lf-search")]
const ids = nodes.map((n) => n.nodeId)
const graph = addPath(
  nodes.reduce((g, n) => addNode(g, n), emptyGraph("travel-t")),
  { pathId: pathIdOf("travel-t", ids), nodeIds: ids, source: { kind: "demo", id: "d1" } }
)
const lf = (call: string) => `function labelFunction(t) {\n  return ${call}\n}\n`
const codes = new Map([
  ["lf-from", lf(`validateSelect(t, "prague", "From")`)],
  ["lf-to", lf(`validateSelect(t, "barcelona", "To")`)],
  ["lf-search", lf(`validateClick(t, "button", "Search flights")`)]
])

const step = (index: number, action: Partial<LfTrajectory["steps"][number]["action"]>, urlAfter = "/travel/") => ({
  index,
  action: { kind: "click", role: null, name: null, text: null, value: null, typed: null, answer: null, status: null, ...action } as any,
  urlBefore: "/travel/",
  urlAfter,
  appBefore: null,
  appAfter: null,
  elements: [],
  error: null
})
// To before From: the same form, filled in the other order.
const trajectory: LfTrajectory = {
  startUrl: "/travel/",
  initialElements: null,
  steps: [
    step(0, { kind: "select", role: "combobox", name: "To", value: "barcelona" }),
    step(1, { kind: "select", role: "combobox", name: "From", value: "prague" }),
    step(2, { kind: "click", role: "button", name: "Search flights" }, "/travel/flights?from=prague&to=barcelona")
  ]
}
const set: LabelEvalSet = {
  tasks: [],
  trajectories: [
    {
      id: "travel-t/other-path/to-first",
      taskId: "travel-t",
      kind: "other-path",
      family: "to-first",
      trajectory,
      checker: true,
      note: "",
      partial: false
    }
  ]
}

test("given fields filled in another order, then the run's rules judge it: commuting fields pass it, the first rules do not", async () => {
  const judge = (commute: boolean) =>
    Effect.runPromise(
      labelTrajectoriesWithGraphs(
        set,
        new Map([["travel-t", graph]]),
        codes,
        () => {},
        () => (commute ? { commute: true } : {})
      ).pipe(
        Effect.map((labels) => labels.map((l) => l.pass)),
        Effect.provide(labelSandbox())
      )
    )
  expect(await judge(false)).toEqual([false])
  expect(await judge(true)).toEqual([true])
}, 60_000)
