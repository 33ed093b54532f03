/**
 * The strategy graph (docs/method.md, "The strategy graph"): per task, a DAG from a
 * virtual start to a virtual end whose nodes are key steps, each with its label function.
 * The reference merges nodes by identical description text; here two key steps are the
 * same node when they *mean* the same step — the semantic key (action kind, target role
 * and name, value, page) — so a node can be shared by several paths and several tasks,
 * and an element id or a reworded description never splits one.
 *
 * The verdict checks order, which the reference does not: a path passes only when its LFs
 * hold at strictly increasing steps. LFs run in a sandbox elsewhere, so the verdict is an
 * incremental pure function: it asks for the evaluations it still needs, in batches.
 *
 * @example
 * let g = emptyGraph("t1")
 * const key = semanticKeyOf(demo, 5)
 * g = addNode(g, { nodeId: nodeIdOf(key), lfId, description, semanticKey: key, how: "demo", source })
 * g = addPath(g, { pathId: pathIdOf("t1", [nodeIdOf(key)]), nodeIds: [nodeIdOf(key)], source })
 * graphVerdict(g, known) // { kind: "need", queries: [{ lfId, from: 0 }] } until every query is known
 */
import { sha256 } from "@core/events"
import type { Action } from "@core/events"
import type { LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { collapse, sitePath } from "./LfTrajectory.ts"
import { urlPattern } from "./UrlPattern.ts"

// ---------------------------------------------------------------------------------------
// Semantic keys and ids

/** What makes two key steps the same step (merged into one node, shared across tasks): never element ids or description text. */
export interface SemanticKey {
  /** The action kind (the shared vocabulary, so a key fits NodeExpanded's as is). */
  readonly actionKind: Action["kind"]
  /** Target role, lower-cased, white space collapsed. */
  readonly role: string | null
  /** Target accessible name (its text when unnamed), normalised like `normalizeText`. */
  readonly name: string | null
  /** What was typed / the option selected / the key / the answer / the status / the app / the URL navigated to; null for clicks. */
  readonly value: string | null
  /** The page the step happens on (a `urlPattern`); `app:<name>` on Android; null for steps whose meaning does not depend on where they happen. */
  readonly urlPattern: string | null
}

/**
 * Lower-cased, white space collapsed, and counts in brackets generalised ("Cart (3)" →
 * "cart (#)"): the count is the page's state, not the element's identity. Other digits
 * are content (a typed ZIP code, a quantity) and stay.
 */
export const normalizeText = (s: string): string =>
  collapse(s)
    .toLowerCase()
    .replace(/\(\s*\d+\s*\)/g, "(#)")
    .replace(/\[\s*\d+\s*\]/g, "[#]")

const textOrNull = (s: string | null): string | null => {
  if (s === null) return null
  const n = normalizeText(s)
  return n === "" ? null : n
}

/** Idempotent. The URL pattern is a regular expression and is kept as it is (case matters there). */
export const normalizeKey = (k: SemanticKey): SemanticKey => ({
  actionKind: k.actionKind,
  role: textOrNull(k.role),
  name: textOrNull(k.name),
  value: textOrNull(k.value),
  urlPattern: k.urlPattern === null || k.urlPattern === "" ? null : k.urlPattern
})

/**
 * Kinds whose meaning does not depend on the page they happen on: "answer 42" is the same
 * answer anywhere. A status does: "complete" declared on the cart page and on a product page
 * are different endings (its LF checks the page, see Synthesizer).
 */
const PLACELESS = new Set(["navigate", "open_app", "home", "answer"])

/** Mirrors Synthesizer's `mintedBy`: a button-like action that moved the page minted what it led to. */
const minted = (s: LfStep): boolean =>
  (s.action.kind === "click" || s.action.kind === "key" || (s.action.kind === "type" && s.action.submit)) &&
  s.action.role !== "link" &&
  s.urlAfter !== s.urlBefore

/**
 * The page a step happened on, as the synthesized LF's `urlBefore` reads it: query
 * parameters an earlier button added (`?added=cart`) are that button's result, not where
 * the user is, so only the path is kept then.
 */
const pageOf = (t: LfTrajectory, s: LfStep): string | null => {
  const url = sitePath(s.urlBefore)
  if (url === null) return s.appBefore === null ? null : `app:${s.appBefore}`
  const at = t.steps.indexOf(s)
  const cameFrom = t.steps.slice(0, Math.max(0, at)).findLast((p) => p.urlAfter === s.urlBefore && p.urlAfter !== p.urlBefore)
  return urlPattern(cameFrom !== undefined && minted(cameFrom) ? url.split("?")[0]! : url)
}

const valueOf = (s: LfStep): string | null => {
  const a = s.action
  switch (a.kind) {
    case "type":
      return a.typed
    case "select":
      return a.value
    case "key":
      return a.key
    case "answer":
      return a.answer
    case "status":
      return a.status
    case "open_app":
      return a.app
    case "scroll":
      return a.direction
    case "navigate":
      return a.url === null ? null : urlPattern(a.url)
    default:
      return null
  }
}

/** The semantic key of the step whose `.index` is `stepIndex`; a RangeError when there is none. */
export const semanticKeyOf = (t: LfTrajectory, stepIndex: number): SemanticKey => {
  const s = t.steps.find((x) => x.index === stepIndex)
  if (s === undefined) throw new RangeError(`the trajectory has no step ${stepIndex}`)
  const a = s.action
  const name = a.name !== null && a.name.trim() !== "" ? a.name : a.text
  return normalizeKey({
    actionKind: a.kind,
    role: a.role,
    name,
    value: valueOf(s),
    urlPattern: PLACELESS.has(a.kind) ? null : pageOf(t, s)
  })
}

/** Canonical JSON of a key: fixed (sorted) field order, so equal keys hash equally. */
const canonicalKey = (k: SemanticKey): string =>
  JSON.stringify({ actionKind: k.actionKind, name: k.name, role: k.role, urlPattern: k.urlPattern, value: k.value })

/** Same meaning ⇒ same id, in every task's graph. */
export const nodeIdOf = (k: SemanticKey): string => `n-${sha256(canonicalKey(normalizeKey(k))).slice(0, 16)}`

export const pathIdOf = (taskId: string, nodeIds: ReadonlyArray<string>): string =>
  `p-${sha256(JSON.stringify([taskId, nodeIds])).slice(0, 16)}`

// ---------------------------------------------------------------------------------------
// The graph: immutable values, insertion order kept

/** What a node or path was derived from (events' SourceRef). */
export interface GraphSource {
  readonly kind: "demo" | "trajectory"
  readonly id: string
}

export interface GraphNode {
  readonly nodeId: string
  readonly lfId: string
  readonly description: string
  readonly semanticKey: SemanticKey
  readonly how: "demo" | "partial" | "explorer"
  readonly source: GraphSource
}

export interface GraphPath {
  readonly pathId: string
  /** Start to end, in the order their LFs must hold; the virtual start and end are implied. */
  readonly nodeIds: ReadonlyArray<string>
  readonly source: GraphSource
  /** "goal-state": only what the outcome rests on, held on its pages (GoalState.ts); absent for a way's whole path. */
  readonly evidence?: "goal-state"
  /**
   * A goal-state path's nodes held to another page than their own (data rules 11): node id →
   * URL pattern, where the control was pressed on a list the demo had filtered but the choice
   * was already on (SurvivedFilters.ts). Absent where every node keeps its own page.
   */
  readonly anchors?: Readonly<Record<string, string>>
}

export interface StrategyGraph {
  readonly taskId: string
  readonly nodes: ReadonlyArray<GraphNode>
  readonly paths: ReadonlyArray<GraphPath>
}

export const emptyGraph = (taskId: string): StrategyGraph => ({ taskId, nodes: [], paths: [] })

/** The first LF for a meaning wins: a node whose id is already there is ignored (`g` itself comes back). */
export const addNode = (g: StrategyGraph, n: GraphNode): StrategyGraph =>
  g.nodes.some((x) => x.nodeId === n.nodeId) ? g : { ...g, nodes: [...g.nodes, n] }

const sameSequence = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => a.length === b.length && a.every((x, i) => x === b[i])

export const hasPath = (g: StrategyGraph, nodeIds: ReadonlyArray<string>): boolean => g.paths.some((p) => sameSequence(p.nodeIds, nodeIds))

/** Paths are distinct node sequences: a known one is ignored (`g` itself comes back). Every node must be in the graph already. */
export const addPath = (g: StrategyGraph, p: GraphPath): StrategyGraph => {
  if (p.nodeIds.length === 0) throw new RangeError(`path ${p.pathId} has no nodes`)
  const unknown = p.nodeIds.find((id) => !g.nodes.some((n) => n.nodeId === id))
  if (unknown !== undefined) throw new RangeError(`path ${p.pathId} names node ${unknown}, which is not in the graph of ${g.taskId}`)
  return hasPath(g, p.nodeIds) ? g : { ...g, paths: [...g.paths, p] }
}

/** Distinct LF ids, in node order. */
export const lfIdsOf = (g: StrategyGraph): ReadonlyArray<string> => [...new Set(g.nodes.map((n) => n.lfId))]

/**
 * Kinds of step that fill a form. On one page they commute: From then To, or To then From,
 * is the same way to the goal, so a path holds them as a set.
 */
const COMMUTING: ReadonlySet<Action["kind"]> = new Set(["type", "select"])

const commutes = (a: GraphNode, b: GraphNode): boolean =>
  COMMUTING.has(a.semanticKey.actionKind) &&
  COMMUTING.has(b.semanticKey.actionKind) &&
  a.semanticKey.urlPattern === b.semanticKey.urlPattern

/**
 * A path's nodes in the groups that must hold in order: each group one node, except a run
 * of form fields filled on one page, which is one group that holds in any order. A node
 * missing from the graph is dropped (a path names only nodes of its graph).
 */
export const orderedGroups = (g: StrategyGraph, nodeIds: ReadonlyArray<string>): ReadonlyArray<ReadonlyArray<GraphNode>> => {
  const byId = new Map(g.nodes.map((n) => [n.nodeId, n]))
  const groups: Array<Array<GraphNode>> = []
  for (const id of nodeIds) {
    const node = byId.get(id)
    if (node === undefined) continue
    const last = groups.at(-1)
    if (last !== undefined && commutes(last.at(-1)!, node)) last.push(node)
    else groups.push([node])
  }
  return groups
}

/**
 * What a path means: its label functions in order, each with its action kind, a group of
 * commuting form fields as a sorted set. Two nodes with one LF and kind mean the same (their
 * URL patterns may differ, the LF does not look), so two paths with one signature accept the
 * same trajectories: they are one path.
 */
export const pathSignature = (g: StrategyGraph, nodeIds: ReadonlyArray<string>): string =>
  JSON.stringify(orderedGroups(g, nodeIds).map((group) => group.map((n) => `${n.lfId}:${n.semanticKey.actionKind}`).sort()))

/** Is there a path with this meaning already (same signature)? */
export const hasPathByMeaning = (g: StrategyGraph, nodeIds: ReadonlyArray<string>): boolean => {
  const signature = pathSignature(g, nodeIds)
  return g.paths.some((p) => pathSignature(g, p.nodeIds) === signature)
}

/** The node that already stands for this LF and kind, if any: a new key step with them is that node. */
export const nodeByMeaning = (g: StrategyGraph, lfId: string, kind: Action["kind"]): GraphNode | undefined =>
  g.nodes.find((n) => n.lfId === lfId && n.semanticKey.actionKind === kind)

/** Distinct paths by meaning (their signatures): the measure of in-domain diversity. */
export const distinctPaths = (g: StrategyGraph): number => new Set(g.paths.map((p) => pathSignature(g, p.nodeIds))).size

// ---------------------------------------------------------------------------------------
// The verdict, incremental

/** `error`: the LF broke (budget, memory, throw) — counts as not satisfied, kept as evidence. */
export type LfResult = { readonly satisfiedAt: number } | { readonly error: string }

/** Run LF `lfId` on the trajectory's suffix from step index `from` (LfTrajectory `fromStep`). */
export interface LfQuery {
  readonly lfId: string
  readonly from: number
}

export const queryKey = (q: LfQuery): string => `${q.lfId}@${q.from}`

export interface GraphVerdict {
  readonly verdict: "pass" | "partial" | "fail"
  /** The first path (in graph path order) that passes; null unless pass. */
  readonly pathId: string | null
  readonly path: ReadonlyArray<string> | null
  /** The steps of that path, strictly increasing. */
  readonly matched: ReadonlyArray<{ readonly nodeId: string; readonly lfId: string; readonly satisfiedAt: number }>
  /** Every LF of the graph evaluated from step 0, in `lfIdsOf` order. */
  readonly evidence: ReadonlyArray<{ readonly lfId: string; readonly satisfiedAt: number; readonly error: string | null }>
  /** Paths whose LFs all held but whose match {@link VerdictRules.accept} refused (the goal was undone), in graph order. */
  readonly refused?: ReadonlyArray<string>
}

/**
 * How a verdict reads paths. The first rules (no options) hold every path strictly in order.
 * `commute`: a group of form fields on one page (`orderedGroups`) holds in any order, at
 * distinct steps. `accept`: a full match may still be refused, for example when a later step
 * undid the goal; the next path is tried. `atOnce` (with `commute`): a group's fields may hold
 * at one step, as when a "Fill in from saved traveller" button filled them all.
 */
export interface VerdictRules {
  readonly commute?: boolean
  readonly atOnce?: boolean
  readonly accept?: (path: GraphPath, matched: GraphVerdict["matched"]) => boolean
}

export type VerdictStep =
  | { readonly kind: "need"; readonly queries: ReadonlyArray<LfQuery> }
  | { readonly kind: "done"; readonly verdict: GraphVerdict }

const atOf = (r: LfResult): number => ("satisfiedAt" in r ? r.satisfiedAt : -1)

type Walk =
  | { readonly kind: "pass"; readonly matched: GraphVerdict["matched"] }
  | { readonly kind: "fail" }
  | { readonly kind: "pending"; readonly queries: ReadonlyArray<LfQuery> }

/**
 * Greedy earliest match along one path (optimal: an earlier step never removes a later
 * option). With `commute`, a group's LFs are all asked from the step after the previous
 * group and must hold at distinct steps (or any, `atOnce`); the next group starts after the latest of them.
 */
const walk = (g: StrategyGraph, p: GraphPath, known: (q: LfQuery) => LfResult | undefined, commute: boolean, atOnce: boolean): Walk => {
  const matched: Array<{ nodeId: string; lfId: string; satisfiedAt: number }> = []
  const groups = commute ? orderedGroups(g, p.nodeIds) : p.nodeIds.map((id) => g.nodes.filter((n) => n.nodeId === id).slice(0, 1))
  if (groups.some((group) => group.length === 0) || groups.flat().length !== p.nodeIds.length) return { kind: "fail" }
  let from = 0
  for (const group of groups) {
    const queries = group.map((node) => ({ lfId: node.lfId, from }))
    const results = queries.map(known)
    const pending = queries.filter((_, i) => results[i] === undefined)
    if (pending.length > 0) return { kind: "pending", queries: pending }
    const ats = results.map((r) => atOf(r!))
    // An answer before `from` is a misbehaving LF (it was shown only the suffix): not satisfied.
    if (ats.some((at) => at < from) || (!atOnce && new Set(ats).size !== ats.length)) return { kind: "fail" }
    const hits = group.map((node, i) => ({ nodeId: node.nodeId, lfId: node.lfId, satisfiedAt: ats[i]! }))
    matched.push(...hits.sort((a, b) => a.satisfiedAt - b.satisfiedAt))
    from = Math.max(...ats) + 1
  }
  return { kind: "pass", matched }
}

/**
 * The graph verdict: **pass** when some path has every node's LF satisfied at
 * strictly increasing step indices, **partial** when some LF of the graph holds (from step
 * 0) but no full path does, **fail** otherwise; a graph without paths fails with no evidence.
 *
 * Call with what is known; a `need` answer lists every query the current state of all
 * paths can use at once (deduplicated), so the caller needs few sandbox round trips. Node
 * k of a path is asked from the step after node k−1's: the result for `from = f` is never
 * derived from the from-0 result ("first index ≥ f"), because an LF that combines evidence
 * (a click *and* the state after it) can answer differently on a suffix — so it is asked.
 * Paths after the first passing one are not walked: the first passing path in graph order wins.
 */
export const graphVerdict = (g: StrategyGraph, known: (q: LfQuery) => LfResult | undefined, rules: VerdictRules = {}): VerdictStep => {
  if (g.paths.length === 0) {
    return { kind: "done", verdict: { verdict: "fail", pathId: null, path: null, matched: [], evidence: [] } }
  }
  const needed = new Map<string, LfQuery>()
  const need = (q: LfQuery) => {
    if (!needed.has(queryKey(q))) needed.set(queryKey(q), q)
  }
  const evidence: Array<{ lfId: string; satisfiedAt: number; error: string | null }> = []
  for (const lfId of lfIdsOf(g)) {
    const r = known({ lfId, from: 0 })
    if (r === undefined) need({ lfId, from: 0 })
    else evidence.push({ lfId, satisfiedAt: atOf(r), error: "error" in r ? r.error : null })
  }
  let winner: { path: GraphPath; matched: GraphVerdict["matched"] } | null = null
  const refused: Array<string> = []
  for (const p of g.paths) {
    const w = walk(g, p, known, rules.commute === true, rules.commute === true && rules.atOnce === true)
    if (w.kind === "pending") w.queries.forEach(need)
    else if (w.kind === "pass") {
      if (rules.accept !== undefined && !rules.accept(p, w.matched)) {
        refused.push(p.pathId)
        continue
      }
      winner = { path: p, matched: w.matched }
      break
    }
  }
  if (needed.size > 0) return { kind: "need", queries: [...needed.values()] }
  const more = refused.length === 0 ? {} : { refused }
  if (winner !== null) {
    return {
      kind: "done",
      verdict: { verdict: "pass", pathId: winner.path.pathId, path: winner.path.nodeIds, matched: winner.matched, evidence, ...more }
    }
  }
  const verdict = evidence.some((e) => e.satisfiedAt >= 0) ? "partial" : "fail"
  return { kind: "done", verdict: { verdict, pathId: null, path: null, matched: [], evidence, ...more } }
}
