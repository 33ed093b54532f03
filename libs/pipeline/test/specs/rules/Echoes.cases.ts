/**
 * Data rules 11's case: a demo's graph, its LFs synthesized from the demo as today's
 * synthesizer writes them, judged on another way to the same cart (the product added
 * first, the quantity set in the cart) under a version before the rule and the rule's.
 *
 * @example
 * echoes.goalStateByEchoes // { run, before: [...], after: [...] }
 */
import {
  addNode,
  addPath,
  dataRulesAt,
  emptyGraph,
  fromStep,
  goalStatePath,
  graphVerdict,
  identifyKeySteps,
  keyStepOptionsOf,
  nativeLabelFunction,
  nodeIdOf,
  pathIdOf,
  semanticKeyOf,
  synthesisRulesAt,
  synthesizeCandidates
} from "@core/domain"
import type { GraphNode, LfResult, LfTrajectory, StrategyGraph } from "@core/domain"
import { verdictRules } from "../../../Verification.ts"
import { cartDemo, cartWay } from "../../../../domain/test/cart.ts"
import type { Table } from "./Cases.ts"

/** The cart demo's graph as round 0 holds it under the data rules `v`: its path, and its goal-state path. */
const cartGraph = (v: string): { graph: StrategyGraph; codes: ReadonlyMap<string, string> } => {
  // The LFs as synthesis 10 writes them, echoes and all: the rule under test is the path.
  const synthesis = synthesisRulesAt("10")
  const keys = identifyKeySteps(cartDemo, keyStepOptionsOf(synthesis))
  const source = { kind: "demo", id: "cart" } as const
  const nodes: Array<GraphNode> = keys.map((k) => {
    const semanticKey = semanticKeyOf(cartDemo, k.stepIndex)
    return { nodeId: nodeIdOf(semanticKey), lfId: `lf-${k.stepIndex}`, description: k.description, semanticKey, how: "demo", source }
  })
  const codes = new Map(keys.map((k) => [`lf-${k.stepIndex}`, synthesizeCandidates(cartDemo, k, synthesis)[0]!.code]))
  const rules = dataRulesAt(v)
  const nodeIds = nodes.map((n) => n.nodeId)
  const goal = goalStatePath(
    cartDemo,
    keys.map((k) => k.stepIndex),
    nodeIds,
    { byQueries: rules.goalStateByQueries, echoes: rules.goalStateByEchoes }
  )
  let graph = addPath(
    nodes.reduce((g, n) => addNode(g, n), emptyGraph("shop-buy")),
    { pathId: pathIdOf("shop-buy", nodeIds), nodeIds, source }
  )
  if (goal !== null) graph = addPath(graph, { pathId: pathIdOf("shop-buy", goal), nodeIds: goal, source, evidence: "goal-state" })
  return { graph, codes }
}

/** The graph's verdict on `t`, each LF run natively from the step the verdict asks. */
const verdictOn = (v: string, t: LfTrajectory): string => {
  const { graph, codes } = cartGraph(v)
  const known = (q: { lfId: string; from: number }): LfResult => ({
    satisfiedAt: nativeLabelFunction(codes.get(q.lfId)!)(q.from === 0 ? t : fromStep(t, q.from)) as number
  })
  const step = graphVerdict(graph, known, verdictRules(dataRulesAt(v), graph, t))
  return step.kind === "done" ? step.verdict.verdict : "pending"
}

export const echoes: Pick<Table["data"], "goalStateByEchoes"> = {
  goalStateByEchoes: {
    // The demo; the quantity set in the cart and saved; the same for another item's field.
    run: (v) => [verdictOn(v, cartDemo), verdictOn(v, cartWay()), verdictOn(v, cartWay({ item: "Blue Kettle" }))],
    before: ["pass", "partial", "partial"],
    after: ["pass", "pass", "partial"]
  }
}
