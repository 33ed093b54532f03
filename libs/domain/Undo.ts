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
import { sitePath } from "./LfTrajectory.ts"
import type { LfElement, LfStep, LfTrajectory } from "./LfTrajectory.ts"
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
/**
 * Where a full match's goal step and its claim held (the claim past the last step for a
 * path without one); null when the path is only a closing step, which has no goal to undo.
 */
const goalAndClaim = (g: StrategyGraph, t: LfTrajectory, path: GraphPath, matched: GraphVerdict["matched"]) => {
  const terminal = terminalNodes(g, path.nodeIds)
  if (terminal.length === 0 || CLOSING.has(terminal[0]!.semanticKey.actionKind)) return null
  const at = (nodeId: string) => matched.find((m) => m.nodeId === nodeId)?.satisfiedAt
  const goalAt = at(terminal[0]!.nodeId)
  const claimAt = terminal.length === 2 ? at(terminal[1]!.nodeId) : (t.steps.at(-1)?.index ?? 0) + 1
  return goalAt === undefined || claimAt === undefined ? null : { goalAt, claimAt }
}

export const acceptUnlessUndone =
  (g: StrategyGraph, t: LfTrajectory) =>
  (path: GraphPath, matched: GraphVerdict["matched"]): boolean => {
    const at = goalAndClaim(g, t, path, matched)
    return at === null || !goalUndone(t, at.goalAt, at.claimAt)
  }

/** The field a step left a value in, and the value: typing that stayed unsubmitted, or a select. Null for anything else. */
const fieldValueOf = (s: LfStep): { readonly field: string; readonly value: string } | null => {
  const a = s.action
  if (a.role === null || a.name === null || a.name.trim() === "") return null
  if (a.kind === "type" && !a.submit && a.typed !== null) return { field: `${a.role}\u0000${a.name}`, value: a.typed }
  if (a.kind === "select" && a.value !== null) return { field: `${a.role}\u0000${a.name}`, value: a.value }
  return null
}

/**
 * Did a step after the goal step (index `goalAt`) and before the claim (`claimAt`) give one
 * of the fields the matched key steps (`matchedAt`) filled another value? The same form
 * filled again for something else (the account's email changed to X, then to Y; a second
 * post written in the same Title field) leaves the goal's values behind, though every LF held
 * where the first filling was. A submitted search is no field a goal holds, and typing the
 * same value again changes nothing.
 */
export const valuesOverwritten = (t: LfTrajectory, matchedAt: ReadonlyArray<number>, goalAt: number, claimAt: number): boolean => {
  const filled = new Map<string, string>()
  for (const s of t.steps) {
    if (!matchedAt.includes(s.index)) continue
    const f = fieldValueOf(s)
    if (f !== null) filled.set(f.field, f.value)
  }
  return t.steps.some((s) => {
    if (s.index <= goalAt || s.index >= claimAt) return false
    const f = fieldValueOf(s)
    return f !== null && filled.has(f.field) && filled.get(f.field) !== f.value
  })
}

/**
 * Was the goal step (index `goalAt`), when it pressed a control that is no link, pressed
 * again on another page before the claim (`claimAt`)? The same post published on a second
 * board, the same item added from another product's page: the task done, and then done to
 * something else. Pressed again on its own page it is a double click, which the undo rule
 * judges when it toggled something back.
 */
export const goalRedoneElsewhere = (t: LfTrajectory, goalAt: number, claimAt: number): boolean => {
  const goal = t.steps.find((s) => s.index === goalAt)
  const a = goal?.action
  if (goal === undefined || a === undefined || a.kind !== "click" || a.role === null || a.role === "link" || a.name === null) return false
  return t.steps.some(
    (s) =>
      s.index > goalAt &&
      s.index < claimAt &&
      s.action.kind === "click" &&
      s.action.role === a.role &&
      s.action.name === a.name &&
      s.urlBefore !== goal.urlBefore
  )
}

/** The page's elements as role, name and state: two steps that leave the same list left the page as it was. */
const screenOf = (elements: ReadonlyArray<LfElement> | null): string | null =>
  elements === null ? null : JSON.stringify(elements.map((e) => [e.role, e.name, e.checked, e.value]))

/**
 * Was a control pressed again on the page it was pressed on (no link; the page as its path,
 * since a button may add a query of its own such as `?added=cart`), before the claim
 * (`claimAt`), by a step no node matched, changing the page again? The earlier press is a
 * matched step, or the step right before: "Add to cart" pressed twice adds twice (the
 * order's quantity 4, not 3), whichever path left the button out. A second press that
 * changes nothing (an item already on the wish list) is harmless, and presses a path holds
 * are each their own node, so matched.
 */
export const pressedAgain = (t: LfTrajectory, matchedAt: ReadonlyArray<number>, claimAt: number): boolean => {
  const page = (url: string | null) => sitePath(url)?.split("?")[0] ?? null
  const isPress = (s: LfStep) => s.action.kind === "click" && s.action.role !== null && s.action.role !== "link"
  const same = (p: LfStep, r: LfStep) =>
    p.action.role === r.action.role && p.action.name === r.action.name && page(p.urlBefore) === page(r.urlBefore)
  return t.steps.some((r, position) => {
    if (position === 0 || matchedAt.includes(r.index) || r.index >= claimAt || !isPress(r)) return false
    const previous = t.steps[position - 1]!
    const again = t.steps.slice(0, position).some((p) => isPress(p) && same(p, r) && (matchedAt.includes(p.index) || p === previous))
    const before = screenOf(previous.elements)
    const after = screenOf(r.elements)
    return again && before !== null && after !== null && before !== after
  })
}

/**
 * A verdict rule (`VerdictRules.accept`): refuse a full match whose goal was redone before
 * its claim — its matched fields given other values (`valuesOverwritten`), its goal control
 * pressed again on another page (`goalRedoneElsewhere`), or a matched control pressed again
 * where it was, changing the page again (`pressedAgain`).
 */
export const acceptUnlessRedone =
  (g: StrategyGraph, t: LfTrajectory) =>
  (path: GraphPath, matched: GraphVerdict["matched"]): boolean => {
    const at = goalAndClaim(g, t, path, matched)
    if (at === null) return true
    const { goalAt, claimAt } = at
    const matchedAt = matched.map((m) => m.satisfiedAt)
    return (
      !valuesOverwritten(t, matchedAt, goalAt, claimAt) && !goalRedoneElsewhere(t, goalAt, claimAt) && !pressedAgain(t, matchedAt, claimAt)
    )
  }
