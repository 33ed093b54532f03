/**
 * What to type, learned: a field's candidate texts are the instruction's values (a quoted
 * phrase, a name, a number, a date, an e-mail, a code), the value the form plan matched to
 * the field, and the exploration policy's guess; a second listwise ranker over the same
 * weight vector scores them. A recorded type teaches it whenever its text is one of them —
 * a search box takes the product's name, not "open product page of …"; a title field the
 * quoted phrase after "titled".
 *
 * @example
 * const options = textOptions(screen, field) // [{ text: "Juniper Essential Smart Plug", … }, …]
 */
import { normalizeText } from "@core/domain"
import { formPlans, instructionValues, textToType } from "@core/policy"
import { fnv, mix, RowBuilder } from "./Hashing.ts"
import type { FeatureRows } from "./Hashing.ts"
import { abstractName, overlapOf, policyElementsOf, stemSet } from "./Words.ts"
import type { Screen, ScreenElement } from "./Screen.ts"

export interface TextOption {
  readonly text: string
  /** The value's kind, `plan` for the form plan's, `guess` for the exploration policy's. */
  readonly kind: string
  /** Its place among the instruction's values; -1 for the plan's and the guess. */
  readonly index: number
  readonly before: ReadonlyArray<string>
  readonly planned: boolean
}

/** A field as the text memory knows it: its role and its name with the instruction's words abstracted. */
export const fieldKey = (screen: Screen, field: ScreenElement): string =>
  `${field.role}|${abstractName(field.name, stemSet(screen.instruction), screen.instruction)}`

/**
 * Texts the demonstrations typed that the instruction never says — a review's filler body,
 * a fixed note — remembered per field (`fieldKey`) when at least two tasks typed the same
 * one, so an instance's own value (its date, its name) is never remembered.
 */
export type TextMemory = ReadonlyArray<readonly [field: string, text: string]>

/** The texts a field may take in this state, each once (the first reading of a text wins). */
export const textOptions = (screen: Screen, field: ScreenElement, memory: TextMemory = []): ReadonlyArray<TextOption> => {
  const elements = policyElementsOf(screen)
  const planned = formPlans(screen.instruction, elements)
    .flatMap((p) => p.matched)
    .find((m) => m.field.id === field.id)?.action
  const plannedText = planned?.kind === "type" ? planned.text : null
  const out: Array<TextOption> = []
  const seen = new Set<string>()
  const add = (o: TextOption) => {
    const k = normalizeText(o.text)
    if (k === "" || seen.has(k)) return
    seen.add(k)
    out.push(o)
  }
  if (plannedText !== null) add({ text: plannedText, kind: "plan", index: -1, before: [], planned: true })
  instructionValues(screen.instruction).forEach((v, index) =>
    add({ text: v.text, kind: v.kind, index, before: v.before, planned: normalizeText(v.text) === normalizeText(plannedText ?? "") })
  )
  const guess = textToType(screen.instruction, elements)
  if (guess !== null) add({ text: guess, kind: "guess", index: -1, before: [], planned: false })
  if (memory.length > 0) {
    const key = fieldKey(screen, field)
    for (const [k, text] of memory) if (k === key) add({ text, kind: "recorded", index: -1, before: [], planned: false })
  }
  return out
}

/** Longer texts are not remembered: a constant a form wants is short. */
const MEMORY_TEXT_MAX = 300
const MEMORY_MAX = 500

/** The text memory of a training set: texts typed into a field by two tasks or more, none of them the field's options. */
export const textMemory = (
  typed: ReadonlyArray<{ readonly screen: Screen; readonly field: ScreenElement; readonly text: string; readonly taskId: string | null }>
): TextMemory => {
  const tasks = new Map<string, Set<string>>()
  for (const t of typed) {
    if (t.text.length > MEMORY_TEXT_MAX) continue
    const wanted = normalizeText(t.text)
    if (textOptions(t.screen, t.field).some((o) => normalizeText(o.text) === wanted)) continue
    const k = JSON.stringify([fieldKey(t.screen, t.field), t.text])
    const set = tasks.get(k) ?? new Set<string>()
    set.add(t.taskId ?? "")
    tasks.set(k, set)
  }
  return [...tasks]
    .filter(([, s]) => s.size >= 2)
    .map(([k]) => JSON.parse(k) as [string, string])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .slice(0, MEMORY_MAX)
}

const TEXT_KIND = 10
const T = {
  kind: fnv("text.kind"),
  fieldKind: fnv("text.fieldKind"),
  index: fnv("text.index"),
  cue: fnv("text.cue"),
  planned: fnv("text.planned"),
  typed: fnv("text.typed"),
  shown: fnv("text.shown"),
  words: fnv("text.words")
}

const builder = new RowBuilder()

/** Each option's features, flat as a state's candidates are. */
export const textFeatures = (screen: Screen, field: ScreenElement, options: ReadonlyArray<TextOption>): FeatureRows => {
  const fieldStems = stemSet(field.name)
  const fieldLex = fnv(abstractName(field.name, stemSet(screen.instruction), screen.instruction))
  const history = screen.history.join("\n").toLowerCase()
  const page = screen.elements.map((e) => e.name.toLowerCase()).join("\n")
  const b = builder
  b.length = 0
  b.kind = TEXT_KIND
  const starts = new Int32Array(options.length + 1)
  options.forEach((o, i) => {
    starts[i] = b.length
    const kind = fnv(o.kind)
    const lower = o.text.toLowerCase()
    b.add(T.kind, kind)
    b.add(T.fieldKind, mix(fieldLex, kind))
    b.add(T.index, mix(kind, Math.min(o.index + 1, 4)))
    b.add(T.cue, mix(kind, overlapOf(new Set(o.before.map((w) => w.replace(/(?:es|s)$/, ""))), fieldStems) > 0 ? 1 : 0))
    b.add(T.planned, o.planned ? 1 : 0)
    b.add(T.typed, history.includes(`'${lower}'`) ? 1 : 0)
    b.add(T.shown, mix(kind, page.includes(lower) ? 1 : 0))
    b.add(T.words, mix(kind, Math.min(o.text.split(/\s+/).length, 4)))
  })
  starts[options.length] = b.length
  return { starts, ...b.take() }
}
