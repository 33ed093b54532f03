/**
 * Trajectory-Guided Extrapolation, embedded (docs/method.md, "Extrapolation"): the task a trajectory
 * actually did, found without a model by laying a template task's demo over it.
 *
 * A task of the pool comes with its template's parameters ("Open the {category} category
 * page.", category = "Electronics") and an expert demo whose key steps are known. A key
 * step that acted on a parameter value (clicked the link named "Electronics", typed
 * "Electronics") is a *parameter step*; the others are *fixed*. The demo's key steps are
 * matched, in order and from the end (the latest occurrence), against the trajectory's
 * actions: a fixed step needs the same action kind, role, name and text, taken on a page
 * of the same shape and leading to one; a parameter step needs the same kind and role
 * between such pages, and binds the parameter to whatever the trajectory used there. When every non-final key step matched and some parameter is bound to another
 * value, the trajectory (up to its last matched step, and its closing status when it has
 * one right after) is a demo of the template with those values: a new task.
 *
 * - Failure-driven: a failed run of "Open the Electronics category page." that clicked
 *   "Kitchen" and declared completion did "Open the Kitchen category page.".
 * - Success-based: a passing run of "Buy 2 of Blue Mug …" reached the sub-goal of the
 *   sibling template "Open the product page of {product}" on the way.
 *
 * Tasks that end in an answer or in "infeasible" are not extrapolated: their closing claim
 * depends on the value, and nothing here could tell whether it is right.
 *
 * @example
 * extrapolate(steps, { taskId: "shop-open-category-1", instruction: "Open the Electronics category page.",
 *   template: { id: "shop-open-category", parameters: { category: "Electronics" } }, demo })
 * // { instruction: "Open the Kitchen category page.", template: { …, parameters: { category: "Kitchen" } }, steps: 3, … }
 */
import type { Action } from "@core/events"
import { collapse, sitePath } from "./LfTrajectory.ts"

/** One step as the matcher reads it: the action, the page it was taken on and the page it led to. */
export interface ExtrapolationStep {
  readonly action: Action
  readonly urlBefore: string | null
  readonly urlAfter: string | null
}

export interface TemplateTask {
  readonly taskId: string
  readonly instruction: string
  readonly template: { readonly id: string; readonly parameters: Readonly<Record<string, unknown>> } | null
  readonly demo: {
    readonly steps: ReadonlyArray<ExtrapolationStep>
    /** Indices of the demo's key steps (those with label functions), ascending. */
    readonly keySteps: ReadonlyArray<number>
  }
}

export interface Substitution {
  readonly parameter: string
  readonly from: string
  readonly to: string
}

export interface ExtrapolatedTask {
  readonly parentTaskId: string
  readonly instruction: string
  readonly template: { readonly id: string; readonly parameters: Readonly<Record<string, string | number>> }
  readonly substitutions: ReadonlyArray<Substitution>
  /** How many of the trajectory's steps the pseudo-demo keeps. */
  readonly steps: number
  /** The trajectory's steps that played the template's key steps (its closing claim excluded), ascending. */
  readonly matched: ReadonlyArray<number>
}

/** Longer values are page text picked up by accident, not a parameter a person would name. */
const MAX_VALUE_LENGTH = 60

const norm = (s: string | null | undefined): string => collapse(s ?? "").toLowerCase()

/**
 * A page's shape: its path without the query (a search's query is its parameter), numbers
 * generalised, and every segment after the second a wildcard — `/shop/category/kitchen`
 * and `/shop/category/3` are both `/shop/category/*`: the kind of page, not which one.
 */
export const pageShape = (url: string | null): string => {
  const path = sitePath(url) ?? ""
  const q = path.indexOf("?")
  const segments = (q < 0 ? path : path.slice(0, q)).replace(/\d+/g, "#").split("/")
  // ["", site, kind, value, …]
  return segments.map((seg, i) => (i >= 3 && seg !== "" ? "*" : seg)).join("/")
}

const ends = (a: Action): boolean => a.kind === "answer" || a.kind === "status"

/** The value a step acted with, where a parameter could sit: a typed text, a chosen option, or the target's name. */
const valueOf = (a: Action): string | null => {
  if (a.kind === "type") return a.text
  if (a.kind === "select") return a.value
  if ("target" in a && a.target !== null) return a.target.name
  return null
}

const roleOf = (a: Action): string | null => ("target" in a && a.target !== null ? norm(a.target.role) : null)

/** For a type or select, the field must be the same one; its name is not the parameter. */
const fieldOf = (a: Action): string | null => ((a.kind === "type" || a.kind === "select") && a.target !== null ? norm(a.target.name) : null)

const parameterValues = (t: TemplateTask): ReadonlyArray<readonly [string, string]> =>
  Object.entries(t.template?.parameters ?? {})
    .filter(([, v]) => typeof v === "string" || typeof v === "number")
    .map(([k, v]) => [k, String(v)] as const)

/**
 * Does trajectory step `t` play the part of demo step `d`? Returns the parameter binding it
 * makes (or none), or null when it does not match.
 */
const matchStep = (
  d: ExtrapolationStep,
  t: ExtrapolationStep,
  params: ReadonlyArray<readonly [string, string]>,
  bound: ReadonlyMap<string, string>
): { readonly parameter: string; readonly value: string } | "fixed" | null => {
  if (d.action.kind !== t.action.kind || roleOf(d.action) !== roleOf(t.action) || fieldOf(d.action) !== fieldOf(t.action)) return null
  // Both ends: a link to a post is not a link to a board, though both sit on the home page.
  if (pageShape(d.urlBefore) !== pageShape(t.urlBefore) || pageShape(d.urlAfter) !== pageShape(t.urlAfter)) return null
  const dv = valueOf(d.action)
  const tv = valueOf(t.action)
  const parameter = dv === null ? undefined : params.find(([, v]) => norm(v) === norm(dv))
  if (parameter === undefined) return norm(dv) === norm(tv) ? "fixed" : null
  if (tv === null || collapse(tv) === "" || collapse(tv).length > MAX_VALUE_LENGTH) return null
  const already = bound.get(parameter[0])
  if (already !== undefined && norm(already) !== norm(tv)) return null
  return { parameter: parameter[0], value: collapse(tv) }
}

const replaceAll = (s: string, from: string, to: string): string => s.split(from).join(to)

/**
 * The template task the trajectory performed with other parameter values, or null. The
 * caller chooses which tasks to try (its own task for a failure, sibling tasks of the same
 * site for a success) and whether the result is new.
 */
export const extrapolate = (trajectory: ReadonlyArray<ExtrapolationStep>, task: TemplateTask): ExtrapolatedTask | null => {
  const template = task.template
  const params = parameterValues(task)
  if (template === null || params.length === 0) return null
  const keySteps = task.demo.keySteps.map((i) => task.demo.steps[i]).filter((s): s is ExtrapolationStep => s !== undefined)
  const final = keySteps.at(-1)
  if (final === undefined) return null
  // Only tasks that close with "complete": an answer or "infeasible" depends on the value in ways no match can check.
  if (ends(final.action) && !(final.action.kind === "status" && final.action.status === "complete")) return null
  const toMatch = ends(final.action) ? keySteps.slice(0, -1) : keySteps
  if (toMatch.length === 0) return null

  // Matched from the end, latest occurrence first: what a run did last before its claim is what it did.
  const bound = new Map<string, string>()
  let before = trajectory.length
  let at = -1
  const matched: Array<number> = []
  for (const d of [...toMatch].reverse()) {
    let found = -1
    for (let j = before - 1; j >= 0; j--) {
      const m = matchStep(d, trajectory[j]!, params, bound)
      if (m === null) continue
      if (m !== "fixed") bound.set(m.parameter, m.value)
      found = j
      break
    }
    if (found < 0) return null
    matched.unshift(found)
    if (at < 0) at = found
    before = found
  }
  const substitutions: Array<Substitution> = []
  const parameters: Record<string, string | number> = {}
  for (const [k, v] of Object.entries(template.parameters)) if (typeof v === "string" || typeof v === "number") parameters[k] = v
  let instruction = task.instruction
  for (const [parameter, from] of params) {
    const to = bound.get(parameter)
    if (to === undefined || norm(to) === norm(from)) continue
    // The value must be spelled out in the instruction, or the new instruction would not say what changed.
    if (!instruction.includes(from)) return null
    instruction = replaceAll(instruction, from, to)
    parameters[parameter] = typeof template.parameters[parameter] === "number" && /^\d+$/.test(to) ? Number(to) : to
    substitutions.push({ parameter, from, to })
  }
  if (substitutions.length === 0) return null
  const next = trajectory[at + 1]
  const closes = next !== undefined && next.action.kind === "status" && next.action.status === "complete"
  return {
    parentTaskId: task.taskId,
    instruction,
    template: { id: template.id, parameters },
    substitutions,
    steps: at + 1 + (closes ? 1 : 0),
    matched
  }
}

/** A stable id for a generated task: its parent and a digest of its instruction (from the caller's hash). */
export const extrapolatedTaskId = (parentTaskId: string, instructionDigest: string): string =>
  `${parentTaskId}-x${instructionDigest.slice(0, 8)}`
