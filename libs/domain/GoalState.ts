/**
 * Goal-state evidence (data rules 9; docs/method.md, "The strategy graph"): beside the
 * demo's path, a path of only what the task's outcome rests on — the demo's steps that
 * changed what the app holds (a field filled, an option chosen, a control pressed that left
 * the page where it was), its goal step and its claim — without the steps that only found
 * the way (a search, the links followed; for a question, the page the answer was read on). A trajectory that reached the same outcome by
 * another route holds it, though it never searched; the demo's own way still holds the
 * full path, which comes first.
 *
 * Leaving out the way must not leave out which item: so on a goal-state path every node
 * kept for what it changed, and the claim, must hold on a page of the same pattern as the
 * demo's (`acceptOnTheirPages`) — the upvote on that post's page, the "complete" on that
 * product's page. A navigation goal is not anchored: its LF checks where the click led.
 *
 * @example
 * const kept = goalStateSteps(demo, [0, 1, 2, 3]) // [2, 3]: the upvote and the claim, not the search and the link
 */
import { terminalNodes } from "./Expansion.ts"
import { sitePath } from "./LfTrajectory.ts"
import type { LfStep, LfTrajectory } from "./LfTrajectory.ts"
import type { GraphPath, GraphVerdict, StrategyGraph } from "./StrategyGraph.ts"

/** A step that changed what the app holds and stayed on its page: typing (not a submitted search), selecting, pressing a control that is no link. */
const changedInPlace = (s: LfStep): boolean => {
  const a = s.action
  const stayed = s.urlAfter === s.urlBefore
  if (a.kind === "type") return !a.submit && stayed
  if (a.kind === "select") return stayed
  return a.kind === "click" && a.role !== null && a.role !== "link" && stayed
}

/**
 * Of the demo's key steps (`keySteps`, step indices in path order), those a goal-state path
 * keeps: each that changed something in place, the goal step (the last before a closing
 * status, or the last) and the claim. An answer is its own goal: the page it was read on
 * is one way to it. The same list when nothing is left out: there is then
 * no second path to add.
 */
export const goalStateSteps = (demo: LfTrajectory, keySteps: ReadonlyArray<number>): ReadonlyArray<number> => {
  const step = (i: number) => demo.steps.find((s) => s.index === i)
  const last = keySteps.at(-1)
  if (last === undefined) return []
  const kind = step(last)?.action.kind ?? ""
  // An answer is the outcome itself, whatever page it was read on (as expansion reads it from data rules 4).
  const terminal = new Set(kind === "status" && keySteps.length >= 2 ? [keySteps.at(-2)!, last] : [last])
  return keySteps.filter((i) => terminal.has(i) || (step(i) !== undefined && changedInPlace(step(i)!)))
}

/**
 * The goal-state path of a demo's path (`nodeIds`, one per key step of `keySteps`): its
 * nodes whose key steps `goalStateSteps` keeps; null when that leaves out nothing or all.
 */
export const goalStatePath = (
  demo: LfTrajectory,
  keySteps: ReadonlyArray<number>,
  nodeIds: ReadonlyArray<string>
): ReadonlyArray<string> | null => {
  const kept = new Set(goalStateSteps(demo, keySteps))
  const goal = nodeIds.filter((_, i) => kept.has(keySteps[i]!))
  return goal.length > 0 && goal.length < nodeIds.length ? goal : null
}

/** The nodes of a goal-state path held to their pages: what each changed, and the claim. */
const anchored = (g: StrategyGraph, path: GraphPath) => {
  const [goal] = terminalNodes(g, path.nodeIds)
  const navigation = goal !== undefined && goal.semanticKey.actionKind === "click" && goal.semanticKey.role === "link" ? goal.nodeId : null
  return g.nodes.filter((n) => path.nodeIds.includes(n.nodeId) && n.nodeId !== navigation && n.semanticKey.urlPattern !== null)
}

/** Did the step happen on a page of `pattern`, read as `pageOf` (StrategyGraph.ts) wrote it: a URL pattern, or an app screen? */
const onPage = (s: LfStep | undefined, pattern: string): boolean => {
  if (s === undefined) return false
  if (pattern.startsWith("app:")) return pattern === `app:${s.appBefore}`
  const page = sitePath(s.urlBefore)
  return page !== null && new RegExp(pattern).test(page)
}

/**
 * A verdict rule (`VerdictRules.accept`): a goal-state path's match is accepted only when each
 * anchored node held on a page matching its pattern; any other path is left as it is.
 */
export const acceptOnTheirPages =
  (g: StrategyGraph, t: LfTrajectory) =>
  (path: GraphPath, matched: GraphVerdict["matched"]): boolean => {
    if (path.evidence !== "goal-state") return true
    return anchored(g, path).every((node) => {
      const at = matched.find((m) => m.nodeId === node.nodeId)?.satisfiedAt
      return onPage(
        t.steps.find((s) => s.index === at),
        node.semanticKey.urlPattern!
      )
    })
  }
