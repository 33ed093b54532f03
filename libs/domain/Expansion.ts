/**
 * Strategy Graph Expansion (docs/method.md, "Expansion"): which partially passing trajectories solved the
 * task anyway, decided without a ground-truth checker, and the path such a trajectory adds.
 *
 * The rule ("reached the terminal key steps"): a partial trajectory counts as solved when
 *  1. it ended with the policy's own claim of success — `status complete`, or an `answer`
 *     where the path ends with an answer;
 *  2. some path of the graph has its **terminal key steps** satisfied: its last node, and —
 *     when that last node is the final status or answer — the node before it, the step that
 *     achieved the goal (the demo's purchase, post, booking, the page it ended on);
 *  3. those hold in order: the goal step strictly before the final status or answer;
 *  4. nothing changed state between them (`undoneAfterGoal`): a run that upvoted, then
 *     downvoted, then said "complete" reached the goal step and undid it.
 * With `answerAlone` (data rules 4), a path that ends with an answer has that answer as its
 * only terminal key step: the answer is what the task asks for, and the page the demo read
 * it on is one way to it — a results list may show the price the product page shows.
 * The steps before the goal are what may differ: that is the other way being learned.
 * With no-op paths dropped (data rules 5, {@link noOpSteps}), a path whose extra key steps
 * changed nothing — an empty search that stayed on the page, then the answer — is refused:
 * it is a way the graph has, with a detour.
 * The agreement of three signals — the policy's claim, the goal step's LF and the final
 * LF — stands in for the checker; an `infeasible` claim never expands a graph.
 *
 * @example
 * const hit = reachedTerminal(graph, evidence, lastAction)
 * hit?.terminal // [{ nodeId, lfId, satisfiedAt }, …] the goal step, then the final status
 */
import type { Action } from "@core/events"
import { shown } from "./KeySteps.ts"
import type { IdentifiedKeyStep } from "./KeySteps.ts"
import type { LfTrajectory } from "./LfTrajectory.ts"
import type { GraphNode, StrategyGraph } from "./StrategyGraph.ts"

const closing = new Set(["status", "answer"])

/** A path's terminal key steps: its last node, and the one before it when the last is the final status or answer. */
export const terminalNodes = (g: StrategyGraph, nodeIds: ReadonlyArray<string>): ReadonlyArray<GraphNode> => {
  const byId = new Map(g.nodes.map((n) => [n.nodeId, n]))
  const nodes = nodeIds.map((id) => byId.get(id)).filter((n) => n !== undefined)
  const last = nodes.at(-1)
  if (last === undefined) return []
  return closing.has(last.semanticKey.actionKind) && nodes.length >= 2 ? [nodes.at(-2)!, last] : [last]
}

export interface TerminalHit {
  readonly pathId: string
  readonly terminal: ReadonlyArray<{ readonly nodeId: string; readonly lfId: string; readonly satisfiedAt: number }>
}

/**
 * The first path (graph order) whose terminal key steps the trajectory satisfied, given each
 * LF's step from the verification evidence (evaluated from step 0); null when the rule fails.
 */
export const reachedTerminal = (
  g: StrategyGraph,
  evidence: ReadonlyMap<string, number>,
  lastAction: Action | null,
  options: { readonly answerAlone?: boolean } = {}
): TerminalHit | null => {
  if (lastAction === null) return null
  const claimed = lastAction.kind === "answer" || (lastAction.kind === "status" && lastAction.status === "complete")
  if (!claimed) return null
  for (const path of g.paths) {
    const all = terminalNodes(g, path.nodeIds)
    const terminal = options.answerAlone === true && all.at(-1)?.semanticKey.actionKind === "answer" ? all.slice(-1) : all
    if (terminal.length === 0) continue
    const final = terminal.at(-1)!
    // An answer path needs an answer; a status path a status: the claim must be of the same kind.
    if (closing.has(final.semanticKey.actionKind) && final.semanticKey.actionKind !== lastAction.kind) continue
    const steps = terminal.map((n) => evidence.get(n.lfId) ?? -1)
    if (steps.some((s) => s < 0)) continue
    if (steps.length === 2 && !(steps[0]! < steps[1]!)) continue
    return { pathId: path.pathId, terminal: terminal.map((n, i) => ({ nodeId: n.nodeId, lfId: n.lfId, satisfiedAt: steps[i]! })) }
  }
  return null
}

/**
 * Rule 4: a state-changing key step of the trajectory (KeySteps.ts) strictly between the
 * goal step and the final status or answer — what the goal did may have been undone.
 */
export const undoneAfterGoal = (keySteps: ReadonlyArray<IdentifiedKeyStep>, hit: TerminalHit): boolean => {
  if (hit.terminal.length < 2) return false
  const goal = hit.terminal[0]!.satisfiedAt
  const final = hit.terminal.at(-1)!.satisfiedAt
  return keySteps.some((k) => k.reason === "state-changing" && k.stepIndex > goal && k.stepIndex < final)
}

/**
 * The node sequence a solved trajectory adds: its own key steps (with their nodes), plus any
 * terminal node it satisfied at a step that is not one of its key steps, ordered by step; a
 * node repeated back to back is kept once. A terminal node satisfied at a key step is that
 * key step by another meaning (the product page reached from the home page instead of from
 * the search results): the key step's own node stands for it, since two nodes cannot hold
 * at one step in a path.
 */
export const expansionPath = (
  keyStepNodes: ReadonlyArray<{ readonly stepIndex: number; readonly nodeId: string }>,
  hit: TerminalHit
): ReadonlyArray<string> => {
  const have = new Set(keyStepNodes.map((k) => k.nodeId))
  const at = new Set(keyStepNodes.map((k) => k.stepIndex))
  const all = [
    ...keyStepNodes,
    ...hit.terminal
      .filter((t) => !have.has(t.nodeId) && !at.has(t.satisfiedAt))
      .map((t) => ({ stepIndex: t.satisfiedAt, nodeId: t.nodeId }))
  ].sort((a, b) => a.stepIndex - b.stepIndex)
  const out: Array<string> = []
  for (const k of all) if (out.at(-1) !== k.nodeId) out.push(k.nodeId)
  return out
}

/**
 * Did step `stepIndex` of `t` change nothing: the same page (URL and app) and the same
 * elements — none came or went, no field's value or checked state moved? An answer or a
 * status says something, so it is never a no-op here; a step whose elements (before or
 * after) were not recorded cannot be shown to do nothing, so it counts as a change.
 */
export const changesNothing = (t: LfTrajectory, stepIndex: number): boolean => {
  const at = t.steps.findIndex((s) => s.index === stepIndex)
  const s = t.steps[at]
  if (s === undefined || closing.has(s.action.kind)) return false
  if (s.urlAfter !== s.urlBefore || s.appAfter !== s.appBefore) return false
  const before = at > 0 ? t.steps[at - 1]!.elements : t.initialElements
  return before !== null && s.elements !== null && shown(before) === shown(s.elements)
}

/**
 * The paths a new path would join: those of `g` that end where it ends, and the one whose
 * terminal key steps it reached. What it has beyond all of their nodes is its own.
 */
const joinedNodes = (g: StrategyGraph, nodeIds: ReadonlyArray<string>, hit: TerminalHit): ReadonlySet<string> =>
  new Set(g.paths.filter((p) => p.pathId === hit.pathId || p.nodeIds.at(-1) === nodeIds.at(-1)).flatMap((p) => p.nodeIds))

/**
 * A no-op path: the trajectory steps of its extra key steps — its nodes none of the paths it
 * would join has — when there is at least one and every one of them changed nothing
 * ({@link changesNothing}); null when the path does something of its own. A node stands for
 * the key steps it was made from (`keyStepNodes`) and, for a terminal node, the step it held
 * at; a node with no step to show for it counts as a change. A path with no extra node at
 * all is a shorter way to the same end, not a detour: it is not a no-op path.
 */
export const noOpSteps = (
  g: StrategyGraph,
  t: LfTrajectory,
  keyStepNodes: ReadonlyArray<{ readonly stepIndex: number; readonly nodeId: string }>,
  hit: TerminalHit,
  nodeIds: ReadonlyArray<string>
): ReadonlyArray<number> | null => {
  const joined = joinedNodes(g, nodeIds, hit)
  const extra = [...new Set(nodeIds.filter((id) => !joined.has(id)))]
  if (extra.length === 0) return null
  const stepsOf = (nodeId: string) => [
    ...keyStepNodes.filter((k) => k.nodeId === nodeId).map((k) => k.stepIndex),
    ...hit.terminal.filter((k) => k.nodeId === nodeId).map((k) => k.satisfiedAt)
  ]
  const steps: Array<number> = []
  for (const nodeId of extra) {
    const own = stepsOf(nodeId)
    if (own.length === 0 || !own.every((i) => changesNothing(t, i))) return null
    steps.push(...own)
  }
  return [...new Set(steps)].sort((a, b) => a - b)
}
