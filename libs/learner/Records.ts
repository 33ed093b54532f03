/**
 * Training states read back from dataset records. An sft record is one state and the action
 * taken in it; a dpo record is one state, the action a verified trajectory took and the one
 * a failed trajectory took there instead. Both carry the state twice: as the user turn's
 * text (the page as the policy view listed it) and as `meta` (instruction, URL, history,
 * the action with its target). The learner reads the page's element lines from the text and
 * the rest from `meta`, so it learns from exactly what a trainer downloading the JSONL gets.
 *
 * @example
 * const [example] = examplesOfRecord({ recordId, format: "sft", body })
 * example.chosen // { kind: "click", elementId: "e12" }
 */
import type { Action } from "@core/events"
import { readView } from "./Screen.ts"
import type { Screen } from "./Screen.ts"

/** What the learner scores: an action kind, on an element or on none. */
export type ChoiceKind = "click" | "type" | "type-submit" | "select" | "answer" | "complete" | "infeasible" | "back" | "scroll"

export interface Choice {
  readonly kind: ChoiceKind
  readonly elementId: string | null
}

export interface LearnerExample {
  readonly recordId: string
  readonly screen: Screen
  readonly chosen: Choice
  /** Actions a failed trajectory took in this state (dpo): negatives that count more than the others. */
  readonly rejected: ReadonlyArray<Choice>
  /** The record's task, and the trajectory (or demo) its state came from: what weighting by task counts. */
  readonly taskId: string | null
  readonly source: string | null
  /** The state comes from a demo or a pseudo-demo (the path a task was given), not from a verified rollout or explorer. */
  readonly expert?: boolean
  /** What a type typed (never a secret's: those type by reference and teach no text). */
  readonly text: string | null
}

/** The choice an action is, or null for one the learner never proposes (a key, a URL typed, a wait). */
export const choiceOf = (a: Action): Choice | null => {
  const id = "target" in a ? (a.target?.elementId ?? null) : null
  switch (a.kind) {
    case "click":
    case "long_press":
      return id === null ? null : { kind: "click", elementId: id }
    case "type":
      return id === null ? null : { kind: a.submit === true ? "type-submit" : "type", elementId: id }
    case "select":
      return id === null ? null : { kind: "select", elementId: id }
    case "answer":
      return { kind: "answer", elementId: null }
    case "status":
      return { kind: a.status, elementId: null }
    case "back":
      return { kind: "back", elementId: null }
    case "scroll":
      return { kind: "scroll", elementId: null }
    default:
      return null
  }
}

/** The policy prompt's answer (`{"action": {kind, element, …}}`) as a choice. */
const answeredChoice = (content: unknown): Choice | null => {
  if (typeof content !== "string") return null
  try {
    const a = (JSON.parse(content) as { action?: Record<string, unknown> }).action
    if (a === undefined || typeof a.kind !== "string") return null
    const element = typeof a.element === "string" ? { target: { elementId: a.element, role: null, name: null, text: null } } : {}
    return choiceOf({ ...a, ...element } as unknown as Action)
  } catch {
    return null
  }
}

const SCREEN = "# Current screen\n\n"
const HISTORY = "\n\n# Actions taken so far"

/** The element lines of a user turn: after the screen's URL and title, before the history. */
const viewOf = (content: string): string | null => {
  const at = content.indexOf(SCREEN)
  const end = content.lastIndexOf(HISTORY)
  if (at < 0 || end < at) return null
  const screen = content.slice(at + SCREEN.length, end)
  const blank = screen.indexOf("\n\n")
  return blank < 0 ? "" : screen.slice(blank + 2)
}

const titleOf = (content: string): string | null => /\nTitle: ([^\n]*)\n/.exec(content)?.[1] ?? null

interface Meta {
  readonly instruction: string
  readonly url: string | null
  readonly step: number
  readonly history: ReadonlyArray<string>
  readonly action: Action
}

const metaOf = (body: Record<string, unknown>): Meta | null => {
  const m = body.meta as Record<string, unknown> | undefined
  if (m === undefined || m === null || typeof m.instruction !== "string" || typeof m.step !== "number" || !Array.isArray(m.history))
    return null
  const action = m.action as Action | undefined
  if (action === undefined || action === null || typeof action !== "object" || typeof action.kind !== "string") return null
  return { instruction: m.instruction, url: typeof m.url === "string" ? m.url : null, step: m.step, history: m.history.map(String), action }
}

const userContent = (turns: unknown): string | null => {
  if (!Array.isArray(turns)) return null
  const user = turns.find((t) => (t as { role?: unknown })?.role === "user") as { content?: unknown } | undefined
  return typeof user?.content === "string" ? user.content : null
}

/**
 * The training states a record holds: an sft record's one, a dpo record's one with its
 * rejected action; none for a rollout record, a record whose action the learner never
 * proposes, or a body that is not what CORE writes.
 */
export const examplesOfRecord = (record: {
  readonly recordId: string
  readonly format: string
  readonly body: unknown
}): ReadonlyArray<LearnerExample> => {
  if (record.format !== "sft" && record.format !== "dpo") return []
  const body = record.body as Record<string, unknown> | null
  if (body === null || typeof body !== "object") return []
  const meta = metaOf(body)
  const content = userContent(record.format === "sft" ? body.messages : body.prompt)
  if (meta === null || content === null) return []
  const view = viewOf(content)
  const chosen = choiceOf(meta.action)
  if (view === null || chosen === null) return []
  const rejected =
    record.format === "dpo" ? answeredChoice((body.rejected as Array<{ content?: unknown }> | undefined)?.[0]?.content) : null
  const screen: Screen = {
    instruction: meta.instruction,
    url: meta.url,
    title: titleOf(content),
    elements: readView(view),
    history: meta.history,
    step: meta.step
  }
  const m = body.meta as Record<string, unknown>
  const origin = m.origin as Record<string, unknown> | undefined
  const source = origin?.demo_id ?? origin?.trajectory_id ?? origin?.parent_trajectory ?? m.rejected_trajectory ?? null
  return [
    {
      recordId: record.recordId,
      screen,
      chosen,
      rejected: rejected === null ? [] : [rejected],
      taskId: typeof m.task_id === "string" ? m.task_id : null,
      source: typeof source === "string" ? source : null,
      expert: record.format === "sft" && (typeof origin?.demo_id === "string" || typeof origin?.parent_trajectory === "string"),
      text: meta.action.kind === "type" && meta.action.secretEnv === undefined && meta.action.text !== "" ? meta.action.text : null
    }
  ]
}
