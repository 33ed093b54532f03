/**
 * Form filling for the exploration policy (version 2): the values an instruction names
 * (places, dates, counts, names, e-mails, codes, quoted text), the forms on a page (its
 * fields and the button that submits them, read from the element list in document order),
 * which value goes into which field, and the plan that fills a form and submits it.
 *
 * Pure: no draws here. The policy decides whether to take a plan (ExplorationPolicy.ts);
 * a plan is a function of the instruction and the page, so the policy can re-derive the
 * rest of a plan it started from the history alone, and replay needs nothing recorded.
 *
 * A field is filled only when exactly one value fits it; nothing is made up. A select is
 * set only to an option the page shows (`PolicyElement.options`, from the observation's
 * aria snapshot via `withSelectOptions`) or, when its options are unknown, to a date or a
 * count in the shape of the value it already holds.
 *
 * @example
 * formPlans("Find a flight from Prague to Barcelona on 2029-07-25", elements)[0]!.fills.map((f) => f.action)
 * // [{ kind: "select", target: { name: "From", … }, value: "Prague (PRG)" }, { …"To"… "Barcelona (BCN)" }, { …"Departure date"… "2029-07-25" }]
 */
import type { Action } from "@core/events"
import type { PolicyElement } from "../PolicyView.ts"
import { normalizeText } from "@core/domain"
import { ARTICLES, FILLER, instructionValues, singular, wordsOf } from "./InstructionValues.ts"
import type { InstructionValue } from "./InstructionValues.ts"
import { sortOptionFor } from "./SortOrder.ts"

export type FieldKind =
  | "origin"
  | "destination"
  | "place"
  | "start-date"
  | "return-date"
  | "end-date"
  | "birth-date"
  | "email"
  | "name"
  | "first-name"
  | "last-name"
  | "count"
  | "other"

/** Nouns a count field and a count in the instruction must share ("2 guests" fills "Guests"). */
const COUNT_GROUPS: ReadonlyArray<ReadonlySet<string>> = [
  new Set(["passenger", "traveller", "traveler", "person", "people", "adult", "pax"]),
  new Set(["guest", "person", "people", "adult"]),
  new Set(["child", "kid"]),
  new Set(["night"]),
  new Set(["room"]),
  new Set(["ticket", "seat"]),
  new Set(["bag", "luggage"])
]
const countGroupOf = (label: string): ReadonlySet<string> | null => {
  const ws = new Set(wordsOf(label).map(singular))
  return COUNT_GROUPS.find((g) => [...g].some((w) => ws.has(w))) ?? null
}

/** What a field asks for, from its accessible name (its label). */
export const fieldKindOf = (label: string): FieldKind => {
  const l = label.toLowerCase()
  const w = new Set(wordsOf(l))
  if (/\b(birth|born|dob|birthday)\b/.test(l)) return "birth-date"
  if (/\be-?mail\b/.test(l)) return "email"
  if (w.has("date") || w.has("dates") || w.has("day") || w.has("when") || /check[\s-]?(in|out)\b/.test(l)) {
    if (w.has("return") || w.has("returning") || w.has("back")) return "return-date"
    if (/check[\s-]?out\b/.test(l) || w.has("until") || w.has("end")) return "end-date"
    return "start-date"
  }
  // "Maximum price per passenger": an amount, not a head count or a place.
  if (/\b(price|cost|amount|budget|dollars?|euros?|usd|eur|per)\b/.test(l)) return "other"
  if (w.has("from") || w.has("origin") || (/\b(departure|departing|leaving)\b/.test(l) && /\b(city|airport|station)\b/.test(l)))
    return "origin"
  if (w.has("to") || w.has("destination") || (/\b(arrival|arriving|going)\b/.test(l) && /\b(city|airport|station)\b/.test(l)))
    return "destination"
  if (/\b(city|town|location|where|place|airport)\b/.test(l)) return "place"
  if (countGroupOf(l) !== null) return "count"
  if (/\b(first|given)\s+name\b/.test(l)) return "first-name"
  if (/\b(last|family)\s+name\b|\bsurname\b/.test(l)) return "last-name"
  if (w.has("name") && !/\b(user|account|login|company|hotel|card|file|board)\s*name\b/.test(l)) return "name"
  return "other"
}

const RETURN_CUES = new Set(["return", "returning", "back"])
const END_CUES = new Set(["out", "until", "till"])
const BIRTH_CUES = new Set(["born", "birth", "dob"])
const PLACE_CUES = new Set(["in", "to"])
const NOT_A_NAME = new Set(["from", "to", "in", "at", "on", "of", "near", "via", ...ARTICLES])

const dateRoleOf = (v: InstructionValue): FieldKind => {
  const b = new Set(v.before)
  if ([...BIRTH_CUES].some((c) => b.has(c))) return "birth-date"
  if ([...RETURN_CUES].some((c) => b.has(c))) return "return-date"
  if ([...END_CUES].some((c) => b.has(c))) return "end-date"
  return "start-date"
}

const only = <A>(xs: ReadonlyArray<A>): A | null => (xs.length === 1 ? xs[0]! : null)

/** A person's name: two or more capitalised words not led in by a preposition or an article (those are places and things). */
const personName = (values: ReadonlyArray<InstructionValue>): InstructionValue | null => {
  const cued = values.filter((v) => (v.kind === "proper" || v.kind === "quoted") && ["named", "called"].includes(v.before.at(-1) ?? ""))
  if (cued.length > 0) return only(cued)
  return only(values.filter((v) => v.kind === "proper" && v.text.split(" ").length >= 2 && !NOT_A_NAME.has(v.before.at(-1) ?? "")))
}

/**
 * The one instruction value that fits a field of this kind and label, or null when none or
 * several do. `other` fields take the value right after a word of their label ("passport
 * LY1877574" fills "Passport number").
 */
export const valueForField = (
  label: string,
  values: ReadonlyArray<InstructionValue>,
  options: PlanOptions = {}
): InstructionValue | null => {
  const kind = fieldKindOf(label)
  const last = (v: InstructionValue) => v.before.at(-1) ?? ""
  // "a starting balance of 250.00": the cue is the last word that means something, not "of".
  const cue = (v: InstructionValue) => (options.asLabelled === true ? (v.before.findLast((w) => !FILLER.has(w)) ?? "") : last(v))
  switch (kind) {
    case "start-date":
    case "return-date":
    case "end-date":
    case "birth-date":
      return only(values.filter((v) => v.kind === "date" && dateRoleOf(v) === kind))
    case "origin":
      return only(values.filter((v) => v.kind === "proper" && last(v) === "from"))
    case "destination":
      return only(values.filter((v) => v.kind === "proper" && last(v) === "to"))
    case "place":
      return only(values.filter((v) => v.kind === "proper" && PLACE_CUES.has(last(v))))
    case "email": {
      const emails = values.filter((v) => v.kind === "email")
      return emails.length > 1 ? only(emails.filter((v) => v.before.includes("email"))) : only(emails)
    }
    case "name":
    case "first-name":
    case "last-name": {
      const name = personName(values)
      if (name === null || kind === "name") return name
      const parts = name.text.split(" ")
      return { ...name, text: kind === "first-name" ? parts[0]! : parts.at(-1)! }
    }
    case "count": {
      const group = countGroupOf(label)!
      return only(values.filter((v) => v.kind === "count" && group.has(v.noun ?? "")))
    }
    case "other": {
      const cues = new Set(
        wordsOf(label)
          .filter((w) => w.length >= 3 && !FILLER.has(w))
          .map(singular)
      )
      return only(values.filter((v) => v.kind !== "count" && cues.has(singular(cue(v)))))
    }
  }
}

/** An option's words that name it: without its bracketed code ("Prague (PRG)" → prague) and filler. */
const optionWords = (label: string): ReadonlyArray<string> => wordsOf(label.replace(/\([^)]*\)/g, " ")).filter((w) => !FILLER.has(w))

const isoShape = (s: string | null): boolean => s !== null && /^\d{4}-\d{2}-\d{2}$/.test(s)
const intShape = (s: string | null): boolean => s !== null && /^\d+$/.test(s)

/**
 * What to select for a value: an option label the page shows (exactly, or the one option
 * that contains the value's words, date or code), or the value itself where the select
 * already holds a value of that shape (dates as yyyy-mm-dd, counts as digits) — the form a
 * person's demo selects. Null when the options are unknown and the shapes differ, or when
 * no option or several fit.
 */
export const selectValueFor = (field: PolicyElement, v: InstructionValue): string | null => {
  const canonical = v.kind === "date" ? v.iso : v.count !== null ? String(v.count) : v.text
  const options = field.options
  if (options === undefined) {
    if (v.kind === "date" && v.iso !== null && isoShape(field.value)) return v.iso
    if ((v.kind === "count" || v.kind === "number") && intShape(field.value)) return canonical
    return null
  }
  const exact = options.find((o) => normalizeText(o) === normalizeText(canonical ?? v.text) || normalizeText(o) === normalizeText(v.text))
  if (exact !== undefined) return v.kind === "date" && v.iso !== null && isoShape(field.value) ? v.iso : exact
  if (v.kind === "count" || v.kind === "number") return null
  if (v.kind === "date") {
    if (v.iso === null && v.monthDay === null) return null
    const key = v.iso ?? `-${v.monthDay}`
    const hit = only(options.filter((o) => o.includes(key)))
    if (hit === null) return null
    return v.iso !== null && isoShape(field.value) ? v.iso : hit
  }
  const words = new Set(wordsOf(v.text))
  return only(options.filter((o) => optionWords(o).length > 0 && optionWords(o).every((w) => words.has(w))))
}

/** The one option all of whose naming words the instruction uses ("economy" picks "Economy"); null when none or several. */
const optionNamedBy = (field: PolicyElement, instructionWords: ReadonlySet<string>): string | null => {
  if (field.options === undefined) return null
  return only(field.options.filter((o) => optionWords(o).length > 0 && optionWords(o).every((w) => instructionWords.has(w))))
}

/** Roles of the fields a form plan fills (a search box is the plain typing rule's). */
const FIELD_ROLES = new Set(["textbox", "combobox", "spinbutton"])
/** Controls that may sit among a form's fields without ending it. */
const INSIDE_FORM = new Set(["radio", "checkbox", "generic", "option", "group"])

const isSelect = (e: PolicyElement): boolean => e.role === "combobox" && !e.editable
const isField = (e: PolicyElement): boolean => e.visible && e.enabled && FIELD_ROLES.has(e.role)

export interface PageForm {
  readonly fields: ReadonlyArray<PolicyElement>
  readonly submit: PolicyElement
}

/** Buttons that leave a form without submitting it: a dialog's "Back" or "Cancel" sits before its "Create". */
const DISMISS = /^\s*(back|cancel|close|dismiss|discard|previous|never\s?mind)\b/i

/**
 * The forms on a page, from the element list alone (it carries no form grouping): a run
 * of visible, enabled fields in document order — radios and check boxes may sit among them
 * — closed by the first button after them. Any other element (a link) ends the run
 * without a form; so do hidden or disabled buttons. With `asLabelled` (exploration 12), a
 * button that goes back, cancels or closes neither closes the run nor ends it.
 */
export const pageForms = (elements: ReadonlyArray<PolicyElement>, options: PlanOptions = {}): ReadonlyArray<PageForm> => {
  const forms: Array<PageForm> = []
  let fields: Array<PolicyElement> = []
  for (const e of elements) {
    if (!e.visible) continue
    if (isField(e)) fields.push(e)
    else if (e.role === "button" && options.asLabelled === true && DISMISS.test(e.name)) continue
    else if (e.role === "button") {
      if (fields.length > 0 && e.enabled) forms.push({ fields, submit: e })
      fields = []
    } else if (!INSIDE_FORM.has(e.role)) fields = []
  }
  return forms
}

/** Submit buttons of forms that look things up rather than change them ("Search flights", "Apply filters"). */
const LOOKUP = /\b(search|find|filter|filters|apply|show|go|look|browse|sort)\b/i

/**
 * The fields and submit buttons of the page's look-up forms, by element id: what a caller
 * that lets an episode only move about, never change state (the explorer's detour), may
 * offer the policy besides links and search boxes. A form that saves, books or posts is left out.
 */
export const lookupFormIds = (elements: ReadonlyArray<PolicyElement>): ReadonlySet<string> =>
  new Set(pageForms(elements).flatMap((f) => (looksUp(f) ? [...f.fields.map((e) => e.id), f.submit.id] : [])))

/** Does the form look things up ("Search flights", "Apply filters") rather than save, book or post? */
export const looksUp = (form: PageForm): boolean => LOOKUP.test(form.submit.name)

export interface FormFill {
  readonly field: PolicyElement
  readonly action: Action
}

export interface FormPlan {
  readonly form: PageForm
  /** Fields with a confident value, in form order, including those that already hold it. */
  readonly matched: ReadonlyArray<FormFill>
  /** The matched fields that do not hold their value yet. */
  readonly fills: ReadonlyArray<FormFill>
  readonly submit: Action
}

const targetOf = (e: PolicyElement) => ({ role: e.role, name: e.name, elementId: e.id, text: e.text === "" ? null : e.text })

const holds = (e: PolicyElement, value: string): boolean =>
  normalizeText(e.value ?? "") === normalizeText(value) || (isSelect(e) && normalizeText(e.text) === normalizeText(value))

/**
 * Which rules a plan follows: `orders` (exploration 4) also sets a sort select to the
 * order the instruction asks for (SortOrder.ts); `asLabelled` (exploration 12) reads a
 * field's cue past function words, amounts and slashed dates whole, types a date as
 * written where the field shows dates that way, and passes over buttons that go back.
 */
export interface PlanOptions {
  readonly orders?: boolean
  readonly asLabelled?: boolean
  /**
   * Exploration 13: the control (role|name, `controlKey`) the episode clicked just before the
   * form's fields. A form whose submit is that control was opened by it, and clicking it
   * again opens another: the plan presses Enter in its last field instead.
   */
  readonly opener?: string | null
}

/** A control's identity across observations, as `opener` names it: role and normalised name. */
export const controlKey = (role: string | null | undefined, name: string | null | undefined): string =>
  `${normalizeText(role ?? "")}|${normalizeText(name ?? "")}`

const SLASHED = /^\d{1,2}\/\d{1,2}\/\d{4}$/

/** The fill for one field, or null: no single value fits, or (for a select) no option shows it. */
const fillFor = (
  e: PolicyElement,
  instruction: string,
  values: ReadonlyArray<InstructionValue>,
  instructionWords: ReadonlySet<string>,
  used: Set<InstructionValue>,
  options: PlanOptions
): { readonly fill: FormFill; readonly value: InstructionValue | null } | null => {
  const kind = fieldKindOf(e.name)
  const v = valueForField(e.name, values, options)
  const fresh = v !== null && !used.has(v) ? v : null
  if (isSelect(e)) {
    const fromValue = fresh === null ? null : selectValueFor(e, fresh)
    // Option words stand in for a cue only where a field asks for a thing, not for one end of a trip.
    const named = fromValue ?? (kind === "place" || kind === "other" ? optionNamedBy(e, instructionWords) : null)
    const chosen =
      named ?? (options.orders === true && kind === "other" && e.options !== undefined ? sortOptionFor(instruction, e.options) : null)
    if (chosen === null) return null
    return { fill: { field: e, action: { kind: "select", target: targetOf(e), value: chosen } }, value: fromValue === null ? null : fresh }
  }
  if (fresh === null) return null
  const dateField = kind.endsWith("-date")
  // A date field takes a date with its year, written as the web writes dates; "May 1" alone is not enough.
  // …unless the field already shows its dates with slashes, as the instruction wrote this one.
  const asWritten = options.asLabelled === true && fresh.kind === "date" && SLASHED.test(fresh.text) && SLASHED.test(e.value ?? "")
  const text = dateField
    ? fresh.kind === "date"
      ? asWritten
        ? fresh.text
        : fresh.iso
      : null
    : fresh.kind === "count"
      ? String(fresh.count)
      : fresh.text
  if (text === null) return null
  // A date input reads as a textbox that is not editable text; anything else must be editable.
  if (!e.editable && !(e.role === "textbox" && dateField)) return null
  return { fill: { field: e, action: { kind: "type", target: targetOf(e), text } }, value: fresh }
}

/** One plan per form on the page that has at least one field with a confident value, most matched fields first. */
export const formPlans = (
  instruction: string,
  elements: ReadonlyArray<PolicyElement>,
  options: PlanOptions = {}
): ReadonlyArray<FormPlan> => {
  const values = instructionValues(instruction, { asWritten: options.asLabelled === true })
  const instructionWords = new Set(wordsOf(instruction))
  const plans: Array<FormPlan> = []
  for (const form of pageForms(elements, options)) {
    const used = new Set<InstructionValue>()
    const matched: Array<FormFill> = []
    for (const field of form.fields) {
      const f = fillFor(field, instruction, values, instructionWords, used, options)
      if (f === null) continue
      if (f.value !== null) used.add(f.value)
      matched.push(f.fill)
    }
    if (matched.length === 0) continue
    const fills = matched.filter(
      (m) => !holds(m.field, m.action.kind === "select" ? m.action.value : m.action.kind === "type" ? m.action.text : "")
    )
    const last = matched.at(-1)!
    // The button that opened the field is no submit: Enter in the last field is the person's way.
    const entered =
      options.opener != null &&
      controlKey(form.submit.role, form.submit.name) === options.opener &&
      last.action.kind === "type" &&
      last.action.text !== ""
        ? ({ ...last.action, submit: true } as Action)
        : null
    plans.push({ form, matched, fills, submit: entered ?? { kind: "click", target: targetOf(form.submit) } })
  }
  // Stable: among equally matched forms the first on the page leads.
  return plans.sort((a, b) => b.matched.length - a.matched.length)
}

/** The control a click acted on, as `opener` names it; null for any other action. */
export const clickedKey = (a: Action): string | null =>
  a.kind === "click" && a.target !== null ? controlKey(a.target.role, a.target.name) : null

/** A form-filling step: a select, or a type that does not submit (the plain typing rule always submits). */
export const isFillStep = (a: Action): boolean => a.kind === "select" || (a.kind === "type" && a.submit !== true)

/**
 * The next step of a form plan the episode is in the middle of, or null when it is not:
 * the last steps were fills without error on this page, the last of them into a field of
 * one of the page's plans. The next is that plan's first field still to fill that those
 * steps did not already try, else its submit button.
 */
export const continuePlan = (
  instruction: string,
  elements: ReadonlyArray<PolicyElement>,
  history: ReadonlyArray<{ readonly action: Action; readonly url: string | null; readonly error: string | null }>,
  url: string | null,
  options: PlanOptions = {}
): Action | null => {
  const run: Array<Action> = []
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i]!
    if (!isFillStep(h.action) || h.error !== null || (h.url !== null && url !== null && h.url !== url)) break
    run.unshift(h.action)
  }
  const last = run.at(-1)
  if (last === undefined || !("target" in last) || last.target === null) return null
  const tried = new Set(run.map((a) => ("target" in a && a.target !== null ? controlKey(a.target.role, a.target.name) : "")))
  const before = history[history.length - run.length - 1]
  const opener = options.opener === undefined ? undefined : before !== undefined && before.error === null ? clickedKey(before.action) : null
  const lastField = controlKey(last.target.role, last.target.name)
  const own = formPlans(instruction, elements, opener === undefined ? options : { ...options, opener }).find((p) =>
    p.matched.some((m) => controlKey(m.field.role, m.field.name) === lastField)
  )
  if (own === undefined) return null
  return own.fills.find((f) => !tried.has(controlKey(f.field.role, f.field.name)))?.action ?? own.submit
}

const actionKey = (a: Action): string =>
  JSON.stringify([
    a.kind,
    "target" in a && a.target !== null ? controlKey(a.target.role, a.target.name) : "",
    a.kind === "select" ? a.value : a.kind === "type" ? a.text : ""
  ])

/** Has the episode already made every fill of this plan (the same fields, the same values)? Then it need not again. */
export const planDone = (plan: FormPlan, history: ReadonlyArray<{ readonly action: Action }>): boolean => {
  const done = new Set(history.map((h) => actionKey(h.action)))
  return plan.fills.every((f) => done.has(actionKey(f.action)))
}

/**
 * Each select's option labels from an aria snapshot (Playwright's YAML: `- combobox "From":`
 * followed by more indented `- option "Prague (PRG)"` lines), by normalised name. A name
 * whose selects list different options is left out: which list is whose is unknown.
 */
export const selectOptionsOf = (aria: string): ReadonlyMap<string, ReadonlyArray<string>> => {
  const out = new Map<string, ReadonlyArray<string> | null>()
  const lines = aria.split("\n")
  const quoted = (raw: string): string => {
    try {
      return JSON.parse(`"${raw}"`) as string
    } catch {
      return raw
    }
  }
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i]!.match(/^(\s*)- combobox(?: "((?:[^"\\]|\\.)*)")?[^"]*$/)
    if (head === null) continue
    const indent = head[1]!.length
    const options: Array<string> = []
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j]!
      if (line.length - line.trimStart().length <= indent) break
      const opt = line.match(/^\s*- option(?: "((?:[^"\\]|\\.)*)")?/)
      if (opt !== null) options.push(quoted(opt[1] ?? ""))
    }
    if (options.length === 0) continue
    const key = normalizeText(quoted(head[2] ?? ""))
    const seen = out.get(key)
    out.set(key, seen === undefined || (seen !== null && seen.join("\n") === options.join("\n")) ? options : null)
  }
  return new Map([...out].filter((e): e is [string, ReadonlyArray<string>] => e[1] !== null))
}

/** The elements with each select's options (from the observation's aria snapshot) attached. */
export const withSelectOptions = (elements: ReadonlyArray<PolicyElement>, aria: string | null): ReadonlyArray<PolicyElement> => {
  if (aria === null) return elements
  const byName = selectOptionsOf(aria)
  return elements.map((e) => {
    const options = isSelect(e) ? byName.get(normalizeText(e.name)) : undefined
    return options === undefined ? e : { ...e, options }
  })
}
