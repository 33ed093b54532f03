/**
 * A seeded exploration policy that needs no model: the stand-in policy for exploration
 * and for runs without a model server. Like any policy it sees
 * only the instruction and the observations — never the site's state or a checker.
 *
 * It scores each visible, enabled element by how much its name and text overlap the
 * instruction and whether the episode already acted on it, and draws one by softmax from a
 * random source the caller seeds — so the same input and the same draws give the same
 * action, and replay needs nothing recorded but the seed.
 *
 * @example
 * explorationAction({ instruction: "Search for 'red kettle'", url, elements, history: [], stepBudget: 10 }, prng(seed))
 * // { kind: "type", target: { role: "searchbox", name: "Search products", … }, text: "red kettle", submit: true }
 */
import type { Action } from "@core/events"
import { clickedKey, continuePlan, controlKey, formPlans, looksUp, planDone } from "./FormFilling.ts"
import { answerFromPage, askedKindOf } from "./PageAnswer.ts"
import { comparedPick, type ComparedKind } from "./ListComparison.ts"
import type { ReadingOptions } from "./PageAnswer.ts"
import { normalizeText } from "@core/domain"
import { PHRASE, STOP_WORDS, labelOf, overlap, quotedPhrases, termsOf, totalWeight, wordsOf } from "./InstructionTerms.ts"
import type { Terms } from "./InstructionTerms.ts"
import { MENU, pageMenus, pageNamesTask } from "./PageMenus.ts"
import { asksForChange, madeChange, namesChange } from "./ChangeAsked.ts"
import { explorationRulesAt, type ExplorationRules } from "@core/domain"

export type { Draws, PolicyElement, PolicyHistoryStep, PolicyInput } from "../PolicyView.ts"
import type { Draws, PolicyElement, PolicyHistoryStep, PolicyInput } from "../PolicyView.ts"
import { softmaxDraw } from "../Sampling.ts"

export interface ExplorationOptions {
  /** Softmax temperature over element scores; lower is greedier. Default 0.6. */
  readonly temperature?: number
  /** Stop probability after an action whose target fully matched the instruction. Default 0.5. */
  readonly stopBias?: number
  /** Which rules act (rules/Exploration.ts). Default the first version's: callers that record no version replay as they always did. */
  readonly rules?: ExplorationRules
  /** Version 2: the probability of filling a form that fits the instruction instead of a single-element choice. Default 0.5. */
  readonly formBias?: number
}

const DEFAULT_TEMPERATURE = 0.6
const DEFAULT_STOP_BIAS = 0.5
/** Half the time a fitting form is filled, so links and search boxes are still explored from a page with a form. */
const DEFAULT_FORM_BIAS = 0.5
/** Novelty: untouched elements +0.5; each earlier action on the element −1. */
const NOVEL_BONUS = 0.5
const REPEAT_PENALTY = 1
/** Version 3: how often a page that shows the asked value ends the episode with it (at least; a higher stop bias wins). */
const SHOWN_STOP = 0.8
/** With nothing to act on, or after an error: go back this often (else scroll down). */
const BACK_PROBABILITY = 0.5

/** Words after which the text to type usually follows ("search for …", "a user named …"). */
const TYPE_CUES = new Set(["search", "find", "type", "enter", "for", "named", "called", "titled", "query"])
const ARTICLES = new Set(["a", "an", "the", "some", "up"])

/** Lower-cased words minus stop words, then the quoted phrases (lower-cased), each once. */
export const instructionTerms = (instruction: string): ReadonlyArray<string> => {
  const t = termsOf(instruction)
  return [...new Set([...t.words, ...t.phrases])]
}

type TargetOf = { readonly role: string | null; readonly name: string | null; readonly text: string | null }

const targetOf = (a: Action): TargetOf | null => ("target" in a ? a.target : null)

/** An element's identity across observations: role + normalised name ("Cart (3)" and "Cart (4)" are one). */
const identity = controlKey

const timesTargeted = (history: ReadonlyArray<PolicyHistoryStep>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const h of history) {
    const t = targetOf(h.action)
    if (t === null) continue
    const k = identity(t.role, t.name)
    counts.set(k, (counts.get(k) ?? 0) + 1)
  }
  return counts
}

/**
 * What to type into a field: the first quoted phrase; else the longest run of words after
 * a cue (search, find, type, enter, for, named, called, titled, query — leading articles
 * skipped, the run ending at a stop word, another cue or punctuation); else the
 * instruction's terms that no element on the page shows. Null when there is nothing.
 */
export const textToType = (
  instruction: string,
  elements: ReadonlyArray<PolicyElement>,
  options: { readonly newValue?: boolean } = {}
): string | null => {
  if (options.newValue === true) {
    const value = newValueOf(instruction)
    if (value !== null) return value
  }
  const quoted = quotedPhrases(instruction)[0]
  if (quoted !== undefined) return quoted
  let best: ReadonlyArray<string> = []
  for (const segment of instruction.split(/[,.;:!?()\n]/)) {
    const words = segment.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []
    words.forEach((w, i) => {
      if (!TYPE_CUES.has(w.toLowerCase())) return
      let j = i + 1
      while (j < words.length && ARTICLES.has(words[j]!.toLowerCase())) j++
      const run: Array<string> = []
      while (j < words.length && !STOP_WORDS.has(words[j]!.toLowerCase()) && !TYPE_CUES.has(words[j]!.toLowerCase())) run.push(words[j++]!)
      if (run.length > best.length) best = run
    })
  }
  if (best.length > 0) return best.join(" ")
  const onPage = new Set(elements.filter((e) => e.visible).flatMap((e) => wordsOf(labelOf(e))))
  const rest = termsOf(instruction).words.filter((w) => !onPage.has(w))
  return rest.length > 0 ? rest.join(" ") : null
}

/** A quoted phrase right after "to": what a field is changed to ("rename "A" to "B"", "from "running" to "offline""). */
const NEW_VALUE = /\bto\s+(?:"([^"]+)"|“([^”]+)”|‘([^’]+)’|'([^']+)'(?![\p{L}\p{N}]))/iu

/** Version 9: the value a change ends with, where the instruction quotes it after "to"; else null. */
const newValueOf = (instruction: string): string | null => {
  const m = instruction.match(NEW_VALUE)
  const value = m === null ? "" : (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").replace(/\s+/g, " ").trim()
  return value === "" ? null : value
}

const QUESTION = /\b(how many|how much|what is|what's|what are|what was|which|who|when|where)\b/i
const NUMERIC_QUESTION = /\b(how many|how much|number of|count)\b/i

export const isQuestion = (instruction: string): boolean => QUESTION.test(instruction) || instruction.trim().endsWith("?")

/** The answer the page offers: the best-overlapping visible element's number (for "how many") or its value / text / name. */
const answerText = (instruction: string, terms: Terms, elements: ReadonlyArray<PolicyElement>): string => {
  let best: PolicyElement | null = null
  let bestScore = 0
  for (const e of elements) {
    if (!e.visible) continue
    const s = overlap(terms, `${labelOf(e)} ${e.value ?? ""}`)
    if (s > bestScore) {
      best = e
      bestScore = s
    }
  }
  if (best === null) return ""
  const fields = [best.value ?? "", best.text, best.name].map((f) => f.replace(/\s+/g, " ").trim())
  if (NUMERIC_QUESTION.test(instruction)) {
    for (const f of fields) {
      const n = f.match(/\d+(?:[.,]\d+)?/)
      if (n !== null) return n[0]
    }
  }
  return fields.find((f) => f !== "") ?? ""
}

/** The kind of value a question asks for that a compared list value answers ("lowest price" is a price, "latest" a time). */
const ANSWERS: Readonly<Record<ComparedKind, ReadonlyArray<string | null>>> = {
  price: ["price"],
  moment: ["time"],
  number: ["count", null]
}

/** Version 14: the value the instruction's order picks off the page's list, where the question asks for that kind of value. */
const comparedAnswer = (input: PolicyInput): string | null => {
  const pick = comparedPick(input.instruction, input.page ?? null)
  return pick !== null && ANSWERS[pick.kind].includes(askedKindOf(input.instruction)) ? pick.value : null
}

/** How an answer is read off the page: version 3's reading, and version 14's comparison. */
interface Reading extends ReadingOptions {
  readonly compares: boolean
}

/** The page's answer, compared first (version 14), then read (version 3); null when it shows none. */
const pageAnswer = (input: PolicyInput, read: Reading): string | null =>
  (read.compares ? comparedAnswer(input) : null) ?? answerFromPage(input.instruction, input.page ?? null, read)

/** Version 3 answers with what the page shows for the question, where it shows it. */
const finish = (input: PolicyInput, terms: Terms, read: Reading | null): Action =>
  isQuestion(input.instruction)
    ? {
        kind: "answer",
        text: (read !== null ? pageAnswer(input, read) : null) ?? answerText(input.instruction, terms, input.elements)
      }
    : { kind: "status", status: "complete" }

/** A task that asks for a change, in an episode that has made none: `complete` would be a claim nothing backs. */
const changeOwed = (input: PolicyInput): boolean =>
  !isQuestion(input.instruction) && asksForChange(input.instruction) && !madeChange(input.history)

interface Candidate {
  readonly action: Action
  readonly score: number
}

/** Links whose last click led to the page the episode is on: clicking one again goes nowhere. */
const linksThatLedHere = (input: PolicyInput): ReadonlySet<string> => {
  const last = new Map<string, string | null>()
  for (const h of input.history) {
    const t = targetOf(h.action)
    if (h.action.kind === "click" && t !== null && t.role === "link") last.set(identity(t.role, t.name), h.url)
  }
  return new Set([...last].filter(([, url]) => url !== null && url === input.url).map(([k]) => k))
}

/** A field that looks things up rather than saving them: a search box, or a field its name calls a search. */
const SEARCH_NAME = /\b(search|find|filter|look ?up|query)\b/i
const isSearchField = (e: PolicyElement): boolean => e.role === "searchbox" || SEARCH_NAME.test(e.name)

interface CandidateRules {
  readonly clicksSelects: boolean
  readonly skipsLinksHere: boolean
  /** Version 9: a change types the value it ends with, quoted after "to", rather than the first quoted phrase. */
  readonly newValue: boolean
  /** Version 7: the task asks for no change, so nothing but a search is typed and no change control clicked. */
  readonly reader: boolean
  /** Version 12: where nothing on the page names a word of the instruction, an unopened menu is the likeliest click. */
  readonly menus: boolean
  /** Before version 12: the control the last step clicked may be clicked again at once (a menu opened, then closed). */
  readonly repeats: boolean
  /** Version 14: the link of the list entry the instruction's order picks by comparing values, which scores as a quoted phrase. */
  readonly compared: string | null
}

/** The control the last step clicked, where that click went through: clicking it again at once undoes what it opened. */
const justClicked = (history: ReadonlyArray<PolicyHistoryStep>): string | null => {
  const last = history.at(-1)
  if (last === undefined || last.action.kind !== "click" || last.error !== null || last.action.target === null) return null
  return identity(last.action.target.role, last.action.target.name)
}

/**
 * Version 7: the instruction's quoted subject when no visible element shows it — a reader
 * looks it up in a search field rather than wandering until a link names it.
 */
const subjectToLookUp = (input: PolicyInput): string | null => {
  const subject = quotedPhrases(input.instruction)[0]
  if (subject === undefined) return null
  const wanted = normalizeText(subject)
  return input.elements.some((e) => e.visible && normalizeText(labelOf(e)).includes(wanted)) ? null : subject
}

const candidatesOf = (input: PolicyInput, terms: Terms, rules: CandidateRules): ReadonlyArray<Candidate> => {
  const targeted = timesTargeted(input.history)
  const typed = textToType(input.instruction, input.elements, { newValue: rules.newValue })
  const here = new Set(rules.skipsLinksHere ? linksThatLedHere(input) : [])
  const again = rules.repeats ? null : justClicked(input.history)
  if (again !== null) here.add(again)
  const lookUp = rules.reader ? subjectToLookUp(input) : null
  const menuPull = rules.menus && !pageNamesTask(input.elements, terms) ? MENU : 0
  const once = menuPull > 0 ? pageMenus(input.elements) : new Set<string>()
  const out: Array<Candidate> = []
  for (const e of input.elements) {
    if (!e.visible || !e.enabled || here.has(identity(e.role, e.name))) continue
    const target = { role: e.role, name: e.name, elementId: e.id, text: e.text === "" ? null : e.text }
    const times = targeted.get(identity(e.role, e.name)) ?? 0
    const score = overlap(terms, labelOf(e)) + (times === 0 ? NOVEL_BONUS : -REPEAT_PENALTY * times)
    if (e.editable) {
      if (typed === null || normalizeText(e.value ?? "") === normalizeText(typed)) continue
      if (rules.reader && !isSearchField(e)) continue
      const found = lookUp !== null && typed === lookUp && isSearchField(e) ? PHRASE : 0
      out.push({ action: { kind: "type", target, text: typed, submit: true }, score: score + found })
    } else if (rules.clicksSelects || e.role !== "combobox") {
      if (rules.reader && e.role !== "link" && namesChange(e.name)) continue
      const picked = e.role === "link" && rules.compared !== null && e.name === rules.compared ? PHRASE : 0
      out.push({ action: { kind: "click", target }, score: score + picked + (times === 0 && once.has(e.id) ? menuPull : 0) })
    }
  }
  return out
}

/** The input without the elements that lead off the app: the browser refuses them, so a step on one is a step spent on nothing. */
export const onsite = (input: PolicyInput): PolicyInput =>
  input.elements.some((e) => e.offsite === true) ? { ...input, elements: input.elements.filter((e) => e.offsite !== true) } : input

/** A control that ends the session the episode was given ("Log out", "Sign out", "Logout"). */
const LOG_OUT = /^\s*(log ?out|sign ?out|log off|sign off)\b/i
const inSession = (input: PolicyInput): PolicyInput =>
  input.elements.some((e) => LOG_OUT.test(e.name)) ? { ...input, elements: input.elements.filter((e) => !LOG_OUT.test(e.name)) } : input

/** The input without the elements a click cannot reach (behind an open modal, covered): a step on one times out. */
const reachable = (input: PolicyInput): PolicyInput =>
  input.elements.some((e) => e.covered === true) ? { ...input, elements: input.elements.filter((e) => e.covered !== true) } : input

/**
 * The next action (rules in docs/method.md, "Exploration policy"): stop at the budget; else stop with
 * probability stopBias × how well the last target matched the instruction (never first);
 * with no candidate or after an error, back or scroll down; else a softmax draw over the
 * elements. A stop is an answer when the instruction asks a question, else status complete.
 *
 * Version 2 adds forms: in the middle of a form plan (the last steps filled its fields) the
 * plan's next fill or its submit, with no draw; else, where a form on the page fits the
 * instruction and its plan was not made yet, one draw takes the plan's first fill with
 * probability formBias, before the softmax draw. Pages without a fitting form draw exactly
 * as version 1.
 *
 * Version 3 adds reading: a question is answered with the value the page (`input.page`)
 * shows for it, and on a page that shows one the stop draw stops with probability 0.8 (or
 * the stop bias, if higher), as a reader who sees the answer gives it.
 *
 * Version 5 sees no element marked `offsite`: not to act on, not to fill, not to answer from.
 *
 * Version 7 reads without writing: a task that asks for no change types only into search
 * fields, fills only look-up forms, clicks no control named for a change, and looks its
 * quoted subject up in a search field when the page does not show it.
 *
 * Version 8 reads an amount as one word: "20.00" meets "20.00", never "0.00".
 *
 * Version 9 types the value a change ends with: the phrase quoted right after "to"
 * ("Rename "Harbor Household" to "Harbor Family Budget"" types the new name).
 *
 * Version 10 sees no element marked `covered` (behind an open modal, or under another
 * element): a click on one times out.
 *
 * Version 11 never clicks a control that logs out: the episode's session is its start state.
 *
 * Version 12 fills a form as its labels read (FormFilling.ts `asLabelled`): the value cued
 * by a word of a field's label past function words, amounts whole, slashed dates as
 * written, and a submit button that does not go back. Where nothing on the page names a
 * word of the instruction, it also looks in menus: an unopened "More" or "… menu" button
 * scores as two shared words.
 *
 * Version 13 presses Enter in a form's last field where the form's submit button is the
 * control clicked just before its fields (the button that opened them).
 *
 * Version 14 compares what a list shows (ListComparison.ts): for "the cheapest", "the
 * highest-scored" or "the latest", the link of the entry whose value the order picks scores
 * as a quoted phrase, and a question asking that kind of value ("What is the lowest nightly
 * price…?") is answered with the picked value.
 */
export const explorationAction = (given: PolicyInput, rng: Draws, options: ExplorationOptions = {}): Action => {
  const temperature = options.temperature ?? DEFAULT_TEMPERATURE
  if (!(temperature > 0)) throw new RangeError(`temperature must be positive, got ${temperature}`)
  const stopBias = Math.min(1, Math.max(0, options.stopBias ?? DEFAULT_STOP_BIAS))
  const rules = options.rules ?? explorationRulesAt(undefined)
  const seen = rules.skipsCovered ? reachable(onsite(given)) : rules.avoidsOffsite ? onsite(given) : given
  const input = rules.keepsSession ? inSession(seen) : seen
  const forms = rules.fillsForms
  const read = rules.readsAnswers ? { namesOnly: rules.readsNamesNotWords, compares: rules.comparesListValues } : null
  const previous = input.history.at(-1)
  const plans = {
    orders: rules.setsSortOrders,
    asLabelled: rules.fillsAsLabelled,
    ...(rules.entersWhenOpened ? { opener: previous !== undefined && previous.error === null ? clickedKey(previous.action) : null } : {})
  }
  const terms = termsOf(input.instruction, {
    amountsWhole: rules.readsAmountsWhole,
    codesWhole: rules.readsCodesWhole,
    wholeLabels: rules.readsCodesWhole
  })
  const history = input.history
  if (history.length >= input.stepBudget - 1) return finish(input, terms, read)
  if (forms) {
    // A plan once started runs to its submit: stopping or wandering off halfway teaches nothing.
    const next = continuePlan(input.instruction, input.elements, history, input.url, plans)
    if (next !== null) return next
  }
  const last = history.at(-1)
  if (last !== undefined) {
    const t = targetOf(last.action)
    const weight = totalWeight(terms)
    // A page that shows the asked value is where a reader answers: most of the time, whatever the usual stop bias.
    const shown = read !== null && isQuestion(input.instruction) && pageAnswer(input, read) !== null
    const match = t === null || weight === 0 ? 0 : Math.min(1, overlap(terms, `${t.name ?? ""} ${t.text ?? ""}`) / weight)
    // The draw is made either way, so a stop held back leaves the later draws as they were.
    const stops = rng.float() < (shown ? Math.max(stopBias, SHOWN_STOP) : stopBias * match)
    if (stops && !(rules.completesAfterChange && changeOwed(input))) return finish(input, terms, read)
  }
  const reader = rules.readsWithoutWriting && !asksForChange(input.instruction)
  const cs = candidatesOf(input, terms, {
    clicksSelects: !rules.setsSortOrders,
    skipsLinksHere: rules.skipsLinksHere,
    newValue: rules.typesNewValues,
    reader,
    menus: rules.opensMenus,
    repeats: !rules.skipsRepeatClicks,
    compared:
      rules.comparesListValues && !isQuestion(input.instruction)
        ? (comparedPick(input.instruction, input.page ?? null)?.link ?? null)
        : null
  })
  if (cs.length === 0 || (last !== undefined && last.error !== null)) {
    return last !== undefined && rng.float() < BACK_PROBABILITY ? { kind: "back" } : { kind: "scroll", target: null, direction: "down" }
  }
  if (forms) {
    // A reader fills only a form that looks things up: one that saves would change what it was asked to read.
    const plan = formPlans(input.instruction, input.elements, plans).find(
      (p) => p.fills.length > 0 && !planDone(p, history) && (!reader || looksUp(p.form))
    )
    const formBias = Math.min(1, Math.max(0, options.formBias ?? DEFAULT_FORM_BIAS))
    if (plan !== undefined && rng.float() < formBias) return plan.fills[0]!.action
  }
  return softmaxDraw(cs, (c) => c.score, temperature, rng).action
}
