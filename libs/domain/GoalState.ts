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
 * Data rules 10 read the path by queries (`GoalStateReading.byQueries`): a field a search or
 * filter form carried into the next URL was a way of finding, and a button that led on
 * without carrying the page's fields chose the outcome (Book this room).
 *
 * @example
 * const kept = goalStateSteps(demo, [0, 1, 2, 3]) // [2, 3]: the upvote and the claim, not the search and the link
 */
import { echoOf, showsEchoOf } from "./Echo.ts"
import { namedBySomeFill } from "./NamedSave.ts"
import { pathOf, setParams, survivedPage } from "./SurvivedFilters.ts"
import { terminalNodes } from "./Expansion.ts"
import { leaving, sitePath } from "./LfTrajectory.ts"
import type { LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { semanticKeyOf } from "./StrategyGraph.ts"
import { escapeRe, queryPairs, urlPattern } from "./UrlPattern.ts"
import type { GraphPath, GraphVerdict, StrategyGraph } from "./StrategyGraph.ts"
import type { DataRuleSet } from "./rules/DataRules.ts"

/**
 * How a goal-state path is read off a demo: data rules 9's, or 10's (`byQueries`: a query's
 * fields are the way, a button that chose is kept), or 11's (`echoes`: a fill the demo saw
 * again later is read where it was seen, Echo.ts; `survived`: filters a later choice
 * survived are the way, SurvivedFilters.ts).
 */
export interface GoalStateReading {
  readonly byQueries: boolean
  readonly echoes?: boolean
  readonly survived?: boolean
  /** Data rules 12: a form saved under a name it typed is held by its save (NamedSave.ts), not by the pages it was on. */
  readonly namedSaves?: boolean
}

/** A step that changed what the app holds and stayed on its page: typing (not a submitted search), selecting, pressing a control that is no link. */
const changedInPlace = (s: LfStep): boolean => {
  const a = s.action
  const stayed = s.urlAfter === s.urlBefore
  if (a.kind === "type") return !a.submit && stayed
  if (a.kind === "select") return stayed
  return a.kind === "click" && a.role !== null && a.role !== "link" && stayed
}

/** What a change in place entered: the text typed or the option chosen. */
const entered = (s: LfStep): string | null => {
  const v = s.action.kind === "type" ? s.action.typed : s.action.kind === "select" ? s.action.value : null
  return v === null || v.trim() === "" ? null : v
}

/** The query key that carried a change's value to the next page (a search or filter form submitted), or null. */
const carriedAs = (demo: LfTrajectory, s: LfStep): string | null => {
  const v = entered(s)
  const next = v === null ? undefined : leaving(demo, s)
  if (next === undefined || next.action.role === "link") return null
  return queryPairs(next.urlAfter).find((p) => p.value.toLowerCase() === v!.toLowerCase())?.key ?? null
}

/** A value of the same shape as `v` but another: each digit and letter moved on by one. */
const another = (v: string): string =>
  v
    .replace(/[0-9]/g, (d) => String((Number(d) + 1) % 10))
    .replace(/[a-z]/gi, (c) => (c === "z" ? "a" : c === "Z" ? "A" : String.fromCharCode(c.charCodeAt(0) + 1)))

/** Does the page pattern a step is held to (its node's) pin `key` to the value its URL has? Another value of that shape fails it. */
const pins = (demo: LfTrajectory, s: LfStep, key: string): boolean => {
  const pattern = semanticKeyOf(demo, s.index).urlPattern
  const page = sitePath(s.urlBefore)
  if (pattern === null || page === null || pattern.startsWith("app:")) return false
  const changed = page.replace(new RegExp(`([?&]${escapeRe(key)}=)([^&]*)`), (_, k: string, v: string) => k + another(v))
  return new RegExp(pattern).test(page) && !new RegExp(pattern).test(changed)
}

/**
 * Data rules 10: a change a query carried away (a filter's sort, a search's dates) is the way,
 * unless a step kept after it was made on a page whose URL still carries it and whose pattern
 * does not check it — then only the change itself says which value the outcome was made with
 * (a flight selected on a results page of that date, the date nowhere else in its LF).
 */
const wayByQuery = (demo: LfTrajectory, s: LfStep, later: ReadonlyArray<LfStep>): boolean => {
  const key = carriedAs(demo, s)
  if (key === null) return false
  const v = entered(s)!.toLowerCase()
  return later.every((k) => !queryPairs(k.urlBefore).some((p) => p.key === key && p.value.toLowerCase() === v) || pins(demo, k, key))
}

/** A button that led to another page without carrying the page's entries there: it chose what the outcome is (Book this room). */
const chose = (demo: LfTrajectory, s: LfStep): boolean => {
  const a = s.action
  if (a.kind !== "click" || a.role === null || a.role === "link" || s.urlAfter === null || s.urlAfter === s.urlBefore) return false
  return !demo.steps.some((p) => p.index < s.index && leaving(demo, p)?.index === s.index && carriedAs(demo, p) !== null)
}

/**
 * Of the demo's key steps (`keySteps`, step indices in path order), those a goal-state path
 * keeps: each that changed something in place, the goal step (the last before a closing
 * status, or the last) and the claim. An answer is its own goal: the page it was read on
 * is one way to it. The same list when nothing is left out: there is then
 * no second path to add.
 *
 * Read `byQueries` (data rules 10), a button that led elsewhere and chose (Book this room,
 * Select this flight) is kept as a change, and a change a query carried to the next page is
 * the way (`wayByQuery`), as the search box that led there always was.
 */
export const goalStateSteps = (
  demo: LfTrajectory,
  keySteps: ReadonlyArray<number>,
  reading: GoalStateReading = { byQueries: false }
): ReadonlyArray<number> => {
  const step = (i: number) => demo.steps.find((s) => s.index === i)
  const last = keySteps.at(-1)
  if (last === undefined) return []
  const kind = step(last)?.action.kind ?? ""
  // An answer is the outcome itself, whatever page it was read on (as expansion reads it from data rules 4).
  const terminal = new Set(kind === "status" && keySteps.length >= 2 ? [keySteps.at(-2)!, last] : [last])
  const kept = (i: number): boolean => {
    const s = step(i)
    return terminal.has(i) || (s !== undefined && (changedInPlace(s) || (reading.byQueries && chose(demo, s))))
  }
  const first = keySteps.filter((i) => kept(i) && !(reading.namedSaves === true && opensNamedForm(demo, step(i))))
  if (!reading.byQueries) return first
  // A navigation goal is judged by where it led, not by the page it was clicked on.
  const goal = step([...terminal][0]!)
  const dependants = first.flatMap((i) => {
    const s = step(i)
    return s === undefined || (i === goal?.index && s.action.role === "link") ? [] : [s]
  })
  const remaining = first.filter((i) => {
    const s = step(i)!
    const later = dependants.filter((k) => k.index > i)
    return terminal.has(i) || !(wayByQuery(demo, s, later) || (reading.survived === true && filteredAway(demo, s, later)))
  })
  return reading.echoes === true ? byEchoes(demo, remaining) : remaining
}

/**
 * Data rules 11: a change on a list page (a filter set, a sort chosen, or the button that
 * applied them) whose page change added query parameters that the choice made on the
 * filtered list survived (SurvivedFilters.ts: the unfiltered list already showed it).
 */
const filteredAway = (demo: LfTrajectory, s: LfStep, later: ReadonlyArray<LfStep>): boolean => {
  const left = s.urlAfter !== null && s.urlAfter !== s.urlBefore ? s : leaving(demo, s)
  if (left === undefined || left.action.role === "link" || left.urlBefore === null || left.urlAfter === null) return false
  const before = setParams(left.urlBefore)
  const added = [...setParams(left.urlAfter)].filter(([k, v]) => before.get(k) !== v).map(([k]) => k)
  const choice = later.find((k) => k.index > left.index && k.urlBefore !== null && pathOf(k.urlBefore) === pathOf(left.urlAfter!))
  const page = choice === undefined ? null : survivedPage(demo, choice)
  if (added.length === 0 || page === null) return false
  const kept = setParams(page)
  return added.every((k) => !kept.has(k))
}

/** The save that left `s`'s page (`s` itself when it left), when a fill there named the page it led to. */
const namedSaveOf = (demo: LfTrajectory, s: LfStep): LfStep | null => {
  const save = s.urlAfter !== null && s.urlAfter !== s.urlBefore ? s : leaving(demo, s)
  return save !== undefined && namedBySomeFill(demo, save) ? save : null
}

/** Data rules 12: a button that opened a form whose save the form's typing named ("new tiddler"): a way to the form, not a choice. */
const opensNamedForm = (demo: LfTrajectory, s: LfStep | undefined): boolean => {
  if (s === undefined || s.action.kind !== "click" || s.action.role === "link" || s.urlAfter === null || s.urlAfter === s.urlBefore)
    return false
  const save = leaving(demo, s)
  return save !== undefined && save.urlBefore === s.urlAfter && namedBySomeFill(demo, save)
}

/** Any page: a node of a form saved under its typed name holds wherever, its save's LF says which record. */
const ANY_PAGE = "^"

/** Data rules 11: the kept nodes a goal-state path holds to a page without the filters they survived, node id → URL pattern. */
export const goalStateAnchors = (
  demo: LfTrajectory,
  keySteps: ReadonlyArray<number>,
  nodeIds: ReadonlyArray<string>,
  reading: GoalStateReading
): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const [i, k] of keySteps.entries()) {
    const s = demo.steps.find((x) => x.index === k)
    if (s === undefined) continue
    const page = reading.survived === true ? survivedPage(demo, s) : null
    if (page !== null) out[nodeIds[i]!] = urlPattern(page)
    // Data rules 12: the form's fields and its save, on the draft of whatever it was opened as.
    else if (reading.namedSaves === true && s.action.kind !== "status" && namedSaveOf(demo, s) !== null) out[nodeIds[i]!] = ANY_PAGE
  }
  return out
}

/**
 * Data rules 11: a fill the demo saw again later goes after the kept steps before its echo,
 * where its LF's echo holds (the quantity after "Add to cart", read in the cart).
 */
const byEchoes = (demo: LfTrajectory, kept: ReadonlyArray<number>): ReadonlyArray<number> => {
  const at = (i: number): number => {
    const s = demo.steps.find((x) => x.index === i)
    const echo = s === undefined ? null : echoOf(demo, s)
    return echo === null ? i : echo.stepIndex - 0.5
  }
  return kept
    .map((i) => ({ i, at: at(i) }))
    .sort((a, b) => a.at - b.at)
    .map((x) => x.i)
}

/**
 * The goal-state path of a demo's path (`nodeIds`, one per key step of `keySteps`): its
 * nodes whose key steps `goalStateSteps` keeps; null when that leaves out nothing or all.
 */
export const goalStatePath = (
  demo: LfTrajectory,
  keySteps: ReadonlyArray<number>,
  nodeIds: ReadonlyArray<string>,
  reading: GoalStateReading = { byQueries: false }
): ReadonlyArray<string> | null => {
  const kept = goalStateSteps(demo, keySteps, reading)
  const goal = kept.flatMap((k) => {
    const i = keySteps.indexOf(k)
    return i < 0 ? [] : [nodeIds[i]!]
  })
  // The same nodes in the same order are the demo's path itself: no second path.
  const same = goal.length === nodeIds.length && goal.every((n, i) => n === nodeIds[i])
  return goal.length > 0 && !same ? goal : null
}

/** How a run's data rules read a goal-state path. */
export const goalStateReadingOf = (
  rules: Pick<DataRuleSet, "goalStateByQueries" | "goalStateByEchoes" | "filtersSurvived" | "namedSaves">
): GoalStateReading => ({
  byQueries: rules.goalStateByQueries,
  echoes: rules.goalStateByEchoes,
  survived: rules.filtersSurvived,
  namedSaves: rules.namedSaves
})

/** A demo path's goal-state path (`goalStatePath`) with the pages it holds its nodes to where not their own (`goalStateAnchors`); null when there is none. */
export const goalStateOf = (
  demo: LfTrajectory,
  keySteps: ReadonlyArray<number>,
  nodeIds: ReadonlyArray<string>,
  reading: GoalStateReading
): { readonly nodeIds: ReadonlyArray<string>; readonly anchors?: Readonly<Record<string, string>> } | null => {
  const goal = goalStatePath(demo, keySteps, nodeIds, reading)
  if (goal === null) return null
  const anchors = Object.entries(goalStateAnchors(demo, keySteps, nodeIds, reading)).filter(([id]) => goal.includes(id))
  return { nodeIds: goal, ...(anchors.length > 0 ? { anchors: Object.fromEntries(anchors) } : {}) }
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
  (g: StrategyGraph, t: LfTrajectory, reading: Pick<GoalStateReading, "echoes"> = {}) =>
  (path: GraphPath, matched: GraphVerdict["matched"]): boolean => {
    if (path.evidence !== "goal-state") return true
    return anchored(g, path).every((node) => {
      const at = matched.find((m) => m.nodeId === node.nodeId)?.satisfiedAt
      const s = t.steps.find((x) => x.index === at)
      // Data rules 11: a choice held to the list without the filters it survived; a fill read where the app shows it again.
      const page = path.anchors?.[node.nodeId] ?? node.semanticKey.urlPattern!
      return onPage(s, page) || (reading.echoes === true && s !== undefined && showsEchoOf(s, node.semanticKey))
    })
  }
