/**
 * Failure-driven task exploration by a model (Trajectory-Guided Extrapolation,
 * docs/method.md): a failed trajectory keeps its actions and a model names the intent they
 * actually fulfil. What here is pure: reading the model's answer with the reference's
 * rejection rules, which part of the trajectory the new task's pseudo-demo keeps, and the
 * short account of the last screen the prompt shows.
 *
 * The reference rejects an intent marked INVALID, one over 1000 characters, or one of two
 * words or fewer: a model that could not say what happened says so, rambles, or names a
 * page instead of a task.
 *
 * @example
 * parseIntent("Intent: Open the Kitchen category page.") // { kind: "intent", intent: "Open the Kitchen category page." }
 * parseIntent("INVALID")                                 // { kind: "rejected", rule: "invalid", text: "INVALID" }
 */
import type { Action } from "@core/events"
import { collapse } from "./LfTrajectory.ts"
import type { LfElement } from "./LfTrajectory.ts"

export const MAX_INTENT_CHARS = 1000
/** Two words or fewer is a page's name ("Kitchen category"), not a task. */
export const MIN_INTENT_WORDS = 3

export type IntentRule = "invalid" | "too-long" | "too-short"

export type Relabelled =
  | { readonly kind: "intent"; readonly intent: string }
  | { readonly kind: "rejected"; readonly rule: IntentRule; readonly text: string }

const INTENT_LINE = /^\s*(?:[*_#>-]\s*)*intent\s*[*_]*\s*:\s*[*_]*\s*(.*)$/i
const QUOTES = /^["'“‘`]+|["'”’`]+$/g

/**
 * The intent in a model's answer: the text after an `Intent:` line when there is one,
 * otherwise the whole answer, unquoted and with white space collapsed — then the rules.
 */
export const parseIntent = (answer: string): Relabelled => {
  const line = answer
    .split("\n")
    .map((l) => INTENT_LINE.exec(l))
    .find((m) => m !== null)
  const text = collapse(line === undefined ? answer : line[1]!)
    .replace(QUOTES, "")
    .trim()
  if (/\bINVALID\b/.test(answer)) return { kind: "rejected", rule: "invalid", text: text === "" ? "INVALID" : text }
  if (text.length > MAX_INTENT_CHARS) return { kind: "rejected", rule: "too-long", text }
  if (text.split(" ").filter((w) => /[\p{L}\p{N}]/u.test(w)).length < MIN_INTENT_WORDS) return { kind: "rejected", rule: "too-short", text }
  return { kind: "intent", intent: text }
}

/**
 * How many of a failed trajectory's steps its pseudo-demo keeps: all of them, less a
 * closing "infeasible" and trailing waits — the new task is what the actions did, and a
 * claim that it could not be done is not part of doing it. 0 when nothing is left.
 */
export const relabelSteps = (actions: ReadonlyArray<Action>): number => {
  let n = actions.length
  while (n > 0) {
    const a = actions[n - 1]!
    if (a.kind === "wait" || (a.kind === "status" && a.status !== "complete")) n--
    else break
  }
  return n
}

/** Roles that say what a screen is about: its headings first, then what can be acted on. */
const SALIENT = ["heading", "alert", "status", "textbox", "searchbox", "combobox", "button", "link", "checkbox", "radio"]

/**
 * The last screen in a few lines for the prompt: up to `max` distinct named elements,
 * headings first, each as `role "name"` (and its value when it has one).
 */
export const screenSummary = (elements: ReadonlyArray<LfElement> | null, max = 25): string => {
  if (elements === null || elements.length === 0) return "(not recorded)"
  const seen = new Set<string>()
  const lines: Array<string> = []
  const rank = (role: string) => {
    const i = SALIENT.indexOf(role)
    return i < 0 ? SALIENT.length : i
  }
  const named = elements
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => collapse(e.name || e.text) !== "")
    .sort((a, b) => rank(a.e.role) - rank(b.e.role) || a.i - b.i)
  for (const { e } of named) {
    const name = collapse(e.name || e.text).slice(0, 80)
    const line = `${e.role} "${name}"${e.value !== null && e.value !== "" ? ` = "${collapse(e.value).slice(0, 80)}"` : ""}`
    if (seen.has(line)) continue
    seen.add(line)
    lines.push(line)
    if (lines.length >= max) break
  }
  return lines.join("\n")
}
