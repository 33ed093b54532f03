/**
 * Checks of a run's dataset records as a trainer reads them (`bun core dataset check`), pure
 * so they are tested on plain records. Rules (docs/datasets.md, "Checking a dataset"):
 *
 * - `sft-screen`: an sft record shows a screen (its user turn's "# Current screen" lists
 *   elements), and the element its answer acts on (`{"action": {"element": id}}`) is on it,
 *   as the element list writes ids: a line `[id] role …`;
 * - `pseudo-demo-closes`: the sft records of an extrapolated task's pseudo-demo end with a
 *   closing step (`status` or `answer`). No record body says it is a pseudo-demo's: they are
 *   the sft records of the new task whose trajectory is the one its TaskExtrapolated names;
 * - `dpo-credited`: a dpo record built under credit rule "2" (`meta.credit_rule`) names the
 *   key step its chosen action is, or leads to (`meta.credited: { node_id, lf_id, role }`). Records
 *   from before that rule are counted as the warning `dpo-uncredited-legacy`, not problems.
 *
 * @example
 * const report = checkDataset(records, pseudoDemos) // { checked, problems, warnings }
 */
import type { DatasetFormat } from "@core/events"

export interface CheckedRecord {
  readonly recordId: string
  readonly format: DatasetFormat
  readonly taskId: string
  readonly trajectoryIds: ReadonlyArray<string>
  readonly body: unknown
}

/** An extrapolated task's pseudo-demo, from its TaskExtrapolated. */
export interface PseudoDemo {
  readonly taskId: string
  readonly trajectoryId: string
  readonly steps: number
}

export type ProblemRule = "sft-screen" | "pseudo-demo-closes" | "dpo-credited"
export type WarningRule = "dpo-uncredited-legacy"

export interface Problem {
  readonly recordId: string
  readonly format: DatasetFormat
  readonly rule: ProblemRule
  readonly detail: string
}

export interface DatasetCheck {
  readonly checked: { readonly sft: number; readonly dpo: number; readonly rollout: number }
  readonly problems: ReadonlyArray<Problem>
  readonly warnings: Readonly<Record<WarningRule, number>>
}

/** The credit rule under which a dpo record must name its credited key step. */
export const CREDIT_RULE = "2"

const CLOSING = new Set(["status", "answer"])
const SCREEN = "# Current screen\n\n"
const HISTORY = "\n\n# Actions taken so far"

type Obj = Readonly<Record<string, unknown>>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

const messages = (body: unknown): ReadonlyArray<Obj> =>
  isObj(body) && Array.isArray(body.messages) ? (body.messages as ReadonlyArray<unknown>).filter(isObj) : []

/** The text of a message's content: a string, or the text parts of a content list. */
const textOf = (content: unknown): string | null => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return null
  return content.flatMap((p) => (isObj(p) && typeof p.text === "string" ? [p.text] : [])).join("\n")
}

/**
 * The element list of a user turn's "# Current screen": what follows its `URL:` and `Title:`
 * lines, up to "# Actions taken so far" (libs/domain Datasets `userTurn`); null without one.
 */
export const screenView = (userText: string): string | null => {
  const at = userText.indexOf(SCREEN)
  if (at === -1) return null
  const start = at + SCREEN.length
  const end = userText.indexOf(HISTORY, start)
  const screen = userText.slice(start, end === -1 ? undefined : end)
  const blank = screen.indexOf("\n\n")
  return blank === -1 ? "" : screen.slice(blank + 2)
}

/** Does the element list show element `id`? One line per element, `[id] role …` (libs/environment View.ts). */
export const viewShows = (view: string, id: string): boolean => view.split("\n").some((line) => line.startsWith(`[${id}] `))

/** The action an answer names: the assistant turn's `{"action": {…}}`; null when it is not one. */
const answerAction = (body: unknown): Obj | null => {
  const text = textOf(messages(body).findLast((m) => m.role === "assistant")?.content)
  if (text === null) return null
  try {
    const parsed = JSON.parse(text) as unknown
    return isObj(parsed) && isObj(parsed.action) ? parsed.action : null
  } catch {
    return null
  }
}

const metaOf = (body: unknown): Obj | null => (isObj(body) && isObj(body.meta) ? body.meta : null)

/** `sft-screen` for one record: the detail of what is wrong, or null. */
export const sftScreenProblem = (body: unknown): string | null => {
  const user = textOf(messages(body).find((m) => m.role === "user")?.content)
  const view = user === null ? null : screenView(user)
  if (view === null) return "the user turn has no '# Current screen'"
  const step = metaOf(body)?.step
  const where = typeof step === "number" ? ` at step ${step}` : ""
  if (view.trim() === "") return `the screen${where} lists no elements: the record shows no page to act on`
  const action = answerAction(body)
  if (action === null) return `the assistant turn is not a {"action": {…}} answer`
  const element = action.element
  if (element === undefined || element === null) return null
  const id = String(element)
  if (viewShows(view, id)) return null
  const cut = view.split("\n").some((l) => l.startsWith("… ")) ? " (the list was cut: the element may be among those not shown)" : ""
  return `the answer acts on element ${id}, which the screen${where} does not list${cut}`
}

/** `dpo-credited` for one record: credited, a record of an earlier credit rule (a warning), or a problem's detail. */
export const dpoCredit = (
  body: unknown
): { readonly kind: "credited" | "legacy" } | { readonly kind: "problem"; readonly detail: string } => {
  const meta = metaOf(body)
  if (meta?.credit_rule !== CREDIT_RULE) return { kind: "legacy" }
  const credited = meta.credited
  const problem = (detail: string) => ({ kind: "problem" as const, detail })
  if (credited === undefined) return problem(`meta.credit_rule is "${CREDIT_RULE}" but meta.credited is missing`)
  if (credited === null)
    return problem("meta.credited is null: the chosen action is not credited to a key step of the passing trajectory's path")
  if (
    !isObj(credited) ||
    typeof credited.lf_id !== "string" ||
    typeof credited.node_id !== "string" ||
    (credited.role !== "key-step" && credited.role !== "leads-to")
  )
    return problem(`meta.credited is not { node_id, lf_id, role: "key-step" | "leads-to" }: ${JSON.stringify(credited)}`)
  return { kind: "credited" }
}

/** The step a record is of (its `meta.step`), or -1. */
const stepOf = (r: CheckedRecord): number => {
  const step = metaOf(r.body)?.step
  return typeof step === "number" ? step : -1
}

/** The kind of action a record's answer takes (the answer, else `meta.action`). */
const kindOf = (r: CheckedRecord): string | null => {
  const kind = answerAction(r.body)?.kind ?? (isObj(metaOf(r.body)?.action) ? (metaOf(r.body)!.action as Obj).kind : undefined)
  return typeof kind === "string" ? kind : null
}

/** `pseudo-demo-closes`: each pseudo-demo's last sft record (by step) whose action does not close it. */
export const pseudoDemoProblems = (sft: ReadonlyArray<CheckedRecord>, pseudoDemos: ReadonlyArray<PseudoDemo>): Array<Problem> =>
  pseudoDemos.flatMap((x) => {
    const own = sft.filter((r) => r.taskId === x.taskId && r.trajectoryIds[0] === x.trajectoryId)
    // The last in the log when steps tie or are missing: the decider emits a pseudo-demo's records in step order.
    const last = own.reduce<CheckedRecord | undefined>((a, r) => (a === undefined || stepOf(r) >= stepOf(a) ? r : a), undefined)
    if (last === undefined) return []
    const kind = kindOf(last)
    if (kind !== null && CLOSING.has(kind)) return []
    return [
      {
        recordId: last.recordId,
        format: last.format,
        rule: "pseudo-demo-closes" as const,
        detail: `the pseudo-demo of ${x.taskId} (${x.steps} steps of ${x.trajectoryId}) ends at step ${stepOf(last)} with ${kind === null ? "no readable action" : `a ${kind}`}, not a status or answer`
      }
    ]
  })

/** Every rule over a run's records (each record once, as `dataset export` writes it). */
export const checkDataset = (records: ReadonlyArray<CheckedRecord>, pseudoDemos: ReadonlyArray<PseudoDemo>): DatasetCheck => {
  const checked = { sft: 0, dpo: 0, rollout: 0 }
  const problems: Array<Problem> = []
  let legacy = 0
  for (const r of records) {
    checked[r.format]++
    if (r.format === "sft") {
      const detail = sftScreenProblem(r.body)
      if (detail !== null) problems.push({ recordId: r.recordId, format: r.format, rule: "sft-screen", detail })
    } else if (r.format === "dpo") {
      const credit = dpoCredit(r.body)
      if (credit.kind === "legacy") legacy++
      else if (credit.kind === "problem")
        problems.push({ recordId: r.recordId, format: r.format, rule: "dpo-credited", detail: credit.detail })
    }
  }
  problems.push(
    ...pseudoDemoProblems(
      records.filter((r) => r.format === "sft"),
      pseudoDemos
    )
  )
  return { checked, problems, warnings: { "dpo-uncredited-legacy": legacy } }
}
