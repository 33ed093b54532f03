/**
 * Data rules 11's cases: a demo's graph as round 0 holds it, its LFs synthesized as synthesis
 * 10 writes them, judged on other ways to the same outcome under a version before the rule
 * and the rule's: the cart's quantity set in the cart, and the flight selected on the
 * unfiltered list.
 *
 * @example
 * goalStateReading.filtersSurvived // { run, before: [...], after: [...] }
 */
import {
  addNode,
  addPath,
  dataRulesAt,
  emptyGraph,
  fromStep,
  goalStateOf,
  goalStateReadingOf,
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
import { flightsDemo, flightsScan } from "../../../../domain/test/flights.ts"
import { notesByMissingPage, notesDemo } from "../../../../domain/test/notes.ts"
import type { Table } from "./Cases.ts"

/** A demo's graph as round 0 holds it under the data rules `v`: its path, and its goal-state path. */
const demoGraph = (
  v: string,
  demo: LfTrajectory,
  synthesisVersion: string
): { graph: StrategyGraph; codes: ReadonlyMap<string, string> } => {
  // The LFs as one synthesis version writes them whatever `v`: the rule under test is the path.
  const synthesis = synthesisRulesAt(synthesisVersion)
  const keys = identifyKeySteps(demo, keyStepOptionsOf(synthesis))
  const source = { kind: "demo", id: "demo" } as const
  const nodes: Array<GraphNode> = keys.map((k) => {
    const semanticKey = semanticKeyOf(demo, k.stepIndex)
    return { nodeId: nodeIdOf(semanticKey), lfId: `lf-${k.stepIndex}`, description: k.description, semanticKey, how: "demo", source }
  })
  const codes = new Map(keys.map((k) => [`lf-${k.stepIndex}`, synthesizeCandidates(demo, k, synthesis)[0]!.code]))
  const rules = dataRulesAt(v)
  const nodeIds = nodes.map((n) => n.nodeId)
  const goal = goalStateOf(
    demo,
    keys.map((k) => k.stepIndex),
    nodeIds,
    goalStateReadingOf(rules)
  )
  let graph = addPath(
    nodes.reduce((g, n) => addNode(g, n), emptyGraph("task")),
    { pathId: pathIdOf("task", nodeIds), nodeIds, source }
  )
  if (goal !== null) graph = addPath(graph, { pathId: pathIdOf("task", goal.nodeIds), ...goal, source, evidence: "goal-state" })
  return { graph, codes }
}

/** The demo's graph's verdict on `t`, each LF run natively from the step the verdict asks. */
const verdictOn = (v: string, demo: LfTrajectory, t: LfTrajectory, synthesisVersion = "10"): string => {
  const { graph, codes } = demoGraph(v, demo, synthesisVersion)
  const known = (q: { lfId: string; from: number }): LfResult => ({
    satisfiedAt: nativeLabelFunction(codes.get(q.lfId)!)(q.from === 0 ? t : fromStep(t, q.from)) as number
  })
  const step = graphVerdict(graph, known, verdictRules(dataRulesAt(v), graph, t))
  return step.kind === "done" ? step.verdict.verdict : "pending"
}

export const goalStateReading: Pick<Table["data"], "goalStateByEchoes" | "filtersSurvived" | "namedSaves"> = {
  namedSaves: {
    // Synthesis 11's LFs: the demo; the record opened at its missing page and edited; another record so; no text typed.
    run: (v) => [
      verdictOn(v, notesDemo, notesDemo, "11"),
      verdictOn(v, notesDemo, notesByMissingPage(), "11"),
      verdictOn(v, notesDemo, notesByMissingPage({ title: "Guest Log" }), "11"),
      verdictOn(v, notesDemo, notesByMissingPage({ text: false }), "11")
    ],
    before: ["pass", "partial", "partial", "partial"],
    after: ["pass", "pass", "partial", "partial"]
  },
  goalStateByEchoes: {
    // The demo; the quantity set in the cart and saved; the same for another item's field.
    run: (v) => [
      verdictOn(v, cartDemo, cartDemo),
      verdictOn(v, cartDemo, cartWay()),
      verdictOn(v, cartDemo, cartWay({ item: "Blue Kettle" }))
    ],
    before: ["pass", "partial", "partial"],
    after: ["pass", "pass", "partial"]
  },
  filtersSurvived: {
    // The demo; BW810 selected on the unfiltered list; another flight there; BW810 on another date.
    run: (v) => [
      verdictOn(v, flightsDemo, flightsDemo),
      verdictOn(v, flightsDemo, flightsScan()),
      verdictOn(v, flightsDemo, flightsScan("PL420")),
      verdictOn(v, flightsDemo, flightsScan("BW810", "2029-07-26"))
    ],
    before: ["pass", "partial", "partial", "partial"],
    after: ["pass", "pass", "partial", "partial"]
  }
}
