/**
 * Undo (docs/method.md, "Rollouts and verification"): a trajectory that reached its goal
 * step and then put the page back as it was before its claim did not do the task. Upvote,
 * downvote, "complete" reached the upvote's key step and undid it; upvote, comment,
 * "complete" left the vote standing.
 *
 * The goal's effect is read off the page, not off the action: the elements present before
 * and after the goal step (one role and name each) whose state — checked or pressed, a
 * field's value — the goal changed. The goal is undone when, just before the claim, every
 * one of them still on the page is back to its state before the goal. Nothing is judged
 * when the goal changed no such element (it moved to another page, say): the rule only
 * refuses what it can see reversed, and the expansion's stricter rule 4 still guards new
 * paths.
 *
 * @example
 * graphVerdict(graph, known, { commute: true, accept: acceptUnlessUndone(graph, trajectory) })
 */
import { terminalNodes } from "./Expansion.ts"
import type { LfElement, LfTrajectory } from "./LfTrajectory.ts"
import type { GraphPath, GraphVerdict, StrategyGraph } from "./StrategyGraph.ts"

const CLOSING = new Set(["status", "answer"])

const keyOf = (e: LfElement): string => `${e.role}\u0000${e.name}`
const stateOf = (e: LfElement): string => JSON.stringify([e.checked, e.value])

/** Elements by role and name, leaving out any name the page shows twice (which one changed is then unknown). */
const byKey = (elements: ReadonlyArray<LfElement>): ReadonlyMap<string, string> => {
  const seen = new Map<string, string>()
  const twice = new Set<string>()
  for (const e of elements) {
    const k = keyOf(e)
    if (seen.has(k)) twice.add(k)
    seen.set(k, stateOf(e))
  }
  for (const k of twice) seen.delete(k)
  return seen
}

/** The elements after the step whose index is `at`; `at` −1 is the start. Null when not recorded. */
const elementsAfter = (t: LfTrajectory, at: number): ReadonlyArray<LfElement> | null =>
  at < 0 ? t.initialElements : (t.steps.find((s) => s.index === at)?.elements ?? null)

/** The index of the step before the one at `at`, or −1 for the first step. */
const previousIndex = (t: LfTrajectory, at: number): number => {
  const position = t.steps.findIndex((s) => s.index === at)
  return position <= 0 ? -1 : t.steps[position - 1]!.index
}

/**
 * Did the steps after the goal step (index `goalAt`) put back what it changed before the
 * step at index `claimAt` (the claim; past the last step for a path without one)?
 */
export const goalUndone = (t: LfTrajectory, goalAt: number, claimAt: number): boolean => {
  const before = elementsAfter(t, previousIndex(t, goalAt))
  const after = elementsAfter(t, goalAt)
  const lastBeforeClaim = t.steps.filter((s) => s.index < claimAt).at(-1)
  if (before === null || after === null || lastBeforeClaim === undefined || lastBeforeClaim.index <= goalAt) return false
  const end = lastBeforeClaim.elements
  if (end === null) return false
  const was = byKey(before)
  const now = byKey(after)
  const effect = [...now].filter(([k, state]) => was.has(k) && was.get(k) !== state).map(([k]) => k)
  const atEnd = byKey(end)
  const still = effect.filter((k) => atEnd.has(k))
  return still.length > 0 && still.every((k) => atEnd.get(k) === was.get(k))
}

/**
 * A verdict rule (`VerdictRules.accept`): refuse a full match whose goal step — a path's
 * last node, or the one before a final status or answer — was undone before the claim.
 */
export const acceptUnlessUndone =
  (g: StrategyGraph, t: LfTrajectory) =>
  (path: GraphPath, matched: GraphVerdict["matched"]): boolean => {
    const terminal = terminalNodes(g, path.nodeIds)
    // A path that is only a closing step has no goal step to undo.
    if (terminal.length === 0 || CLOSING.has(terminal[0]!.semanticKey.actionKind)) return true
    const at = (nodeId: string) => matched.find((m) => m.nodeId === nodeId)?.satisfiedAt
    const goalAt = at(terminal[0]!.nodeId)
    const claimAt = terminal.length === 2 ? at(terminal[1]!.nodeId) : (t.steps.at(-1)?.index ?? 0) + 1
    if (goalAt === undefined || claimAt === undefined) return true
    return !goalUndone(t, goalAt, claimAt)
  }
