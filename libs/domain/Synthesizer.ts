/**
 * Label-function synthesis, embedded (Semantic Code Abstraction step 3, docs/method.md): readable JavaScript over the
 * LF API, written from the demo alone — no site- or task-specific rules. Each key step
 * gets candidates, strongest first; validation keeps the first that passes:
 *
 * 1. action evidence + state evidence: the action itself (role, name, typed text, value)
 *    and what it left behind — the URL after it, or an element whose state it changed (an
 *    insert: its text in the field, not the field's whole content);
 * 2. action evidence alone (state evidence can be unreadable, e.g. a masked password);
 * 3. for steps that only reached a page, the page itself (`validateUrl`).
 *
 * Volatile parts are generalised: ids the action minted (the order number in the URL a
 * "Place order" button led to), long numbers (timestamps), hex tokens, and counts in
 * element names ("Cart (3)"). Ids the page linked to are content (`/product/17` is that
 * product) and stay literal.
 *
 * Version 2 (runs record theirs as `infer.synthesis`; runs without it used version 1):
 * - an answer holds when it contains the demo's as a whole phrase ("the Workshop" for
 *   "Workshop"), for answers of four letters or more that are not numbers;
 * - a click that led to another page, made on the page the task started on before any step
 *   navigated, is not tied to that page: the task chose it, not the demo, and another way
 *   may use the same control from elsewhere (a "New page" button on every page).
 *
 * Version 3: a sentence that reports one value ("It costs $117.49.", "Flight MR115 departs
 * at 08:15.") holds for any answer that reports the same value — the question fixes what
 * the value is about, and another reader words it otherwise ("$117.49").
 *
 * Version 4: a bare value that is no plain number ("14:25", "$89.00 per night" is not one)
 * holds for any answer that reports it among other words ("Flight BW554 departs at 14:25."),
 * as version 3 lets a sentence's value stand alone. With it, key steps leave out a link
 * clicked that neither left the page nor changed it (KeySteps.ts, `inPageLinks`).
 *
 * Version 6 judges a typed-and-submitted step's page by the query parameters that carry the
 * typed text: how the form was submitted (Enter, a button, a suggestion list that was or was
 * not open yet) adds parameters of its own, which another run of the same step may not add.
 *
 * Version 7 generalises a UUID a button minted whole, tells fields without a name apart
 * (KeySteps.ts), and checks a text submitted on a page that stayed with its submit.
 *
 * Version 9 holds an edit in place to being made once: the field's last value on its page
 * keeps the inserted text as often as the edit left it, so the text typed twice is refused.
 * And a value typed into a field whose name another field on the page shares is judged by
 * the edit it made (that field's old value replaced), not by the name both answer to.
 *
 * The rules each version keeps are named in rules/Synthesis.ts.
 *
 * Version 5 judges an edit in place by what it made (FieldEdits.ts): an insert's LF asks
 * for the same change of the field's content — the same text removed and inserted at the
 * same place, whatever keys made it — and, when a later page of the demo showed the edited
 * text, for a later page that shows it too. Its key steps treat caret and selection keys,
 * and keys that only changed a field, as part of the edit (KeySteps.ts, `editsByEffect`).
 *
 * @example
 * const [best] = synthesizeCandidates(demo, { stepIndex: 3, description, reason: "state-changing" })
 * best.code // "// Key step: Click on a UI element 'Add to cart' (button) …\nfunction labelFunction(t) { … }"
 */
import { answerArg } from "./AnswerArgs.ts"
import { COMMITTED, committedBy, enterCall } from "./Committed.ts"
import { ECHOED, echoCall, echoOf } from "./Echo.ts"
import { MOVED, figuresCall, movedFigures } from "./MovedFigures.ts"
import { NAMED_FIELD, NAMED_SAVE, namedBySomeFill, namedFieldCall, namingSave } from "./NamedSave.ts"
import { survivedPage } from "./SurvivedFilters.ts"
import { editCall, neighbourOf } from "./FieldEdits.ts"
import { elementsBefore, formContext, formWhere, mintedBy, pageContext } from "./FormContext.ts"
import { escapeRe, generalise, typedUrlPattern, urlPattern } from "./UrlPattern.ts"
import type { IdentifiedKeyStep, KeyStepOptions } from "./KeySteps.ts"
import type { LfElement, LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { SYNTHESIS, type SynthesisRules, synthesisRulesAt } from "./rules/Synthesis.ts"

/**
 * How this version's key steps are identified: from 4 on, a link that changed nothing is
 * none; from 5 on, keys that moved the caret or only changed a field are part of an edit.
 */
export const keyStepOptionsOf = (rules: SynthesisRules): KeyStepOptions => ({
  inPageLinks: rules.dropsInPageLinks,
  editsByEffect: rules.judgesEditsByEffect,
  ...(rules.tellsNamelessFieldsApart ? { namelessApart: true } : {})
})

export interface Candidate {
  /** "action+state", "action", "state": which evidence the code checks. */
  readonly evidence: "action+state" | "action" | "state"
  readonly code: string
}

const js = (s: string): string => JSON.stringify(s)

const regexLiteral = (name: string): string => `/^${generalise(name, true).replace(/\//g, "\\/").replace(/ /g, "\\s+")}$/i`

/** A case-blind RegExp literal for text found anywhere in a value (an insert's text in its field). */
const containsLiteral = (text: string): string => `/${escapeRe(text).replace(/\//g, "\\/").replace(/ /g, "\\s+")}/i`

/** An element that appeared, as the LF matches it: a count in its name ("Cart (3)") may differ next time. */
const appearedName = (name: string): string => (/\d/.test(name) ? regexLiteral(name) : js(name))

/** A target's name is a label: literal. */
const nameArg = js

const same = (a: LfElement, b: LfElement) =>
  a.role === b.role && a.name === b.name && a.value === b.value && a.checked === b.checked && a.text === b.text

/**
 * State evidence on the same page: the target's own new state (checked, value), else one
 * element that appeared — only when the action changed little (a few new elements), so the
 * choice is the action's effect rather than a different page's furniture.
 */
const elementEvidence = (t: LfTrajectory, s: LfStep): string | null => {
  const after = s.elements
  if (after === null) return null
  const a = s.action
  if (a.role !== null && a.name !== null) {
    const own = after.find((e) => e.role === a.role && e.name === a.name)
    if (own !== undefined && (a.kind === "click" || a.kind === "long_press") && own.checked !== null) {
      return `hasElement(s, ${js(own.role)}, ${nameArg(own.name)}, { checked: ${own.checked} })`
    }
    if (own !== undefined && a.kind === "type" && a.mode === "insert") {
      // The field holds the inserted text among the rest; a long field's value may be cut before it shows.
      return a.typed !== null && a.typed !== "" && own.value !== null && own.value.toLowerCase().includes(a.typed.toLowerCase())
        ? `hasElement(s, ${js(own.role)}, ${nameArg(own.name)}, { value: ${containsLiteral(a.typed)} })`
        : null
    }
    if (own !== undefined && (a.kind === "type" || a.kind === "select") && own.value !== null && own.value !== "") {
      return `hasElement(s, ${js(own.role)}, ${nameArg(own.name)}, { value: ${js(own.value)} })`
    }
  }
  const before = elementsBefore(t, s)
  if (before === null || a.kind === "type" || a.kind === "select") return null
  const appeared = after.filter((e) => e.name.trim() !== "" && e.name.length <= 80 && !before.some((b) => same(b, e)))
  if (appeared.length === 0 || appeared.length > 3) return null
  const e = appeared[0]!
  return `hasElement(s, ${js(e.role)}, ${appearedName(e.name)})`
}

const header = (k: IdentifiedKeyStep, lines: ReadonlyArray<string>): string =>
  [`// Key step: ${k.description}`, ...lines.map((l) => `// ${l}`)].join("\n")

const RETURN = "\nfunction labelFunction(t) {\n  return "

const fn = (k: IdentifiedKeyStep, notes: ReadonlyArray<string>, body: string): string => `${header(k, notes)}${RETURN}${body}\n}\n`

/** An LF's code whose verdict also needs `condition` (no step: a check of the whole trajectory), with the note that says so. */
const heldTo = (code: string, condition: string, note: string): string =>
  code.replace(RETURN, `\n// ${note}${RETURN}!(${condition}) ? -1 : `)

const options = (entries: ReadonlyArray<readonly [string, string]>): string =>
  entries.length === 0 ? "" : `, {\n${entries.map(([k, v]) => `    ${k}: ${v}`).join(",\n")}\n  }`

const stateEntries = (
  t: LfTrajectory,
  s: LfStep,
  rules: SynthesisRules
): { entries: Array<readonly [string, string]>; notes: Array<string> } => {
  if (s.urlAfter !== null && s.urlAfter !== s.urlBefore) {
    const typed = s.action.kind === "type" && s.action.submit && rules.submitsByTypedText ? (s.action.typed ?? "") : ""
    const carried = typed === "" ? null : typedUrlPattern(s.urlAfter, typed)
    if (carried !== null) {
      return {
        entries: [["urlAfter", js(carried)]],
        notes: [`State evidence: the page after it is ${s.urlAfter}, judged by the parameters that carry the typed text.`]
      }
    }
    return {
      entries: [["urlAfter", js(urlPattern(s.urlAfter, { minted: mintedBy(s), uuids: rules.generalisesMintedUuids }))]],
      notes: [`State evidence: the page after it is ${s.urlAfter}.`]
    }
  }
  const element = elementEvidence(t, s)
  return element === null
    ? { entries: [], notes: [] }
    : {
        entries: [["where", `function (s) { return ${element} }`]],
        notes: ["State evidence: the page after it shows what the action changed."]
      }
}

const FIELD_SHOWN = "Or the field on that page shows the value, however it came there (a saved traveller filled in)."

/**
 * Version 8: a value filled into a form field (not inserted, not submitted, the page kept)
 * also holds when the field on that page shows it — a "Fill in from saved traveller" button,
 * a suggestion picked — as the field's state is what the form sends. Null for other steps.
 */
const fieldShown = (t: LfTrajectory, s: LfStep): string | null => {
  const a = s.action
  if (a.kind !== "type" || a.mode === "insert" || a.submit || s.urlBefore === null || s.urlAfter !== s.urlBefore) return null
  const own = s.elements?.find((e) => e.role === a.role && e.name === a.name)
  if (own === undefined || own.value === null || own.value.trim() === "" || own.name.trim() === "") return null
  return `validateElement(t, ${js(own.role)}, ${nameArg(own.name)}, { value: ${js(own.value)} }, { urlBefore: ${js(urlPattern(pageContext(t, s)))} })`
}

/** The page a status was declared on, as a pattern: ids the step that led there minted are generalised (a new order each time). */
const statusPage = (t: LfTrajectory, s: LfStep, rules: SynthesisRules): string => {
  const at = t.steps.indexOf(s)
  const cameFrom = t.steps.slice(0, Math.max(0, at)).findLast((p) => p.urlAfter === s.urlBefore && p.urlAfter !== p.urlBefore)
  return cameFrom !== undefined && mintedBy(cameFrom)
    ? urlPattern(s.urlBefore!, { minted: true, uuids: rules.generalisesMintedUuids })
    : urlPattern(pageContext(t, s))
}

/** The task's start page, still showing: no step before `s` changed the URL. */
const onUntouchedStart = (t: LfTrajectory, s: LfStep): boolean => {
  const at = t.steps.indexOf(s)
  return t.steps.slice(0, Math.max(0, at)).every((p) => p.urlAfter === null || p.urlAfter === p.urlBefore)
}

const actionCall = (t: LfTrajectory, s: LfStep, extra: ReadonlyArray<readonly [string, string]>, rules: SynthesisRules): string | null => {
  const a = s.action
  switch (a.kind) {
    case "click":
    case "long_press": {
      // The page it was clicked on: which product's "Add to cart", which board's "Publish".
      const left = s.urlAfter !== null && s.urlAfter !== s.urlBefore
      // Version 11: a save that led to the page the form's typing named is judged by that page alone (NamedSave.ts).
      const unchosen =
        (rules.unchosenStartClicks && left && onUntouchedStart(t, s)) ||
        (rules.savesByName && left && a.role !== "link" && namedBySomeFill(t, s))
      const press = a.kind === "long_press" ? [["longPress", "true"] as const] : []
      // Version 10: on the list without the filters the control survived (a flight on the unfiltered results too).
      const survived = rules.survivedFilters && a.kind === "click" && !unchosen ? survivedPage(t, s) : null
      if (survived !== null)
        return `validateClick(t, ${js(a.role!)}, ${nameArg(a.name!)}${options([["urlBefore", js(urlPattern(survived))], ...extra])})`
      const form =
        rules.formContextByFields && a.kind === "click" && a.role !== null && a.role !== "link" && s.urlBefore !== null && !unchosen
          ? formContext(t, s)
          : null
      if (form !== null) {
        const state = extra.find(([k]) => k === "where")?.[1]
        const rest = extra.filter(([k]) => k !== "where")
        const entries = [...press, ["urlBefore", js(form.page)] as const, ...rest, ["where", formWhere(form.check, state)] as const]
        return `validateClick(t, ${js(a.role!)}, ${nameArg(a.name ?? a.text ?? "")}${options(entries)})`
      }
      const where: Array<readonly [string, string]> =
        s.urlBefore === null || unchosen ? [] : [["urlBefore", js(urlPattern(pageContext(t, s)))]]
      return `validateClick(t, ${a.role === null ? "null" : js(a.role)}, ${nameArg(a.name ?? a.text ?? "")}${options([...press, ...where, ...extra])})`
    }
    case "type": {
      // An insert is checked by the text it inserted, never the field's whole content.
      const mode = a.mode === "insert" ? [["mode", js("insert")] as const] : []
      // Submitted on a page that stayed: the Enter is what made the change, and nothing after it shows that it came.
      const submit = rules.submitsWhenPageStays && a.submit && s.urlAfter === s.urlBefore ? [["submit", "true"] as const] : []
      return `validateType(t, ${js(a.typed ?? "")}, ${js(a.name ?? "")}${options([...mode, ...submit, ...extra])})`
    }
    case "select":
      return `validateSelect(t, ${js(a.value ?? "")}, ${js(a.name ?? "")}${options(extra)})`
    case "key":
      return `validateKey(t, ${js(a.key ?? "")}${options(extra)})`
    case "answer":
      return `validateAnswer(t, ${answerArg(a.answer ?? "", rules)})`
    case "status":
      return `validateStatus(t, ${js(a.status ?? "complete")}${options(extra)})`
    case "open_app":
      return `firstStep(t, null, function (s) { return s.action.kind === "open_app" && norm(s.action.app) === norm(${js(a.app ?? "")}) })`
    default:
      return null
  }
}

/** Version 11: a fill whose value named the page its form's save led to, held where the field showed it before such a save. */
const namedField = (t: LfTrajectory, s: LfStep, rules: SynthesisRules): string | null => {
  const save = namingSave(t, s)
  const a = s.action
  if (save === null || a.role === null || a.typed === null) return null
  const page = urlPattern(save.urlAfter!, { minted: mintedBy(save), uuids: rules.generalisesMintedUuids })
  return namedFieldCall({ role: a.role, name: a.name ?? "", value: a.typed }, save, page)
}

const SHARED_NAME = "State evidence: another field on the page has the same name; this one is told by the value it held."

/**
 * A value typed over another (not inserted, not submitted) into a field whose role and name
 * another field on the page before it shares: a table of fields, each value box named alike.
 */
const sharesName = (t: LfTrajectory, s: LfStep): boolean => {
  const a = s.action
  if (a.kind !== "type" || a.mode === "insert" || a.submit || a.role === null || a.name === null) return false
  const at = t.steps.indexOf(s)
  const page = at > 0 ? t.steps[at - 1]!.elements : t.initialElements
  return (page ?? []).filter((e) => e.role === a.role && e.name === a.name).length > 1
}

/** Candidate LFs for one key step of `t`, strongest first (see the module doc). */
export const synthesizeCandidates = (
  t: LfTrajectory,
  k: IdentifiedKeyStep,
  rules: SynthesisRules = synthesisRulesAt(SYNTHESIS.current)
): ReadonlyArray<Candidate> => {
  const s = t.steps.find((x) => x.index === k.stepIndex)
  if (s === undefined) return []
  const candidates = candidatesOf(t, s, k, rules)
  // A save of cells filled by position is told by what it moved: every candidate is held to it.
  const figures = rules.movedFigures && k.reason === "state-changing" ? movedFigures(t, s) : []
  if (figures.length === 0) return candidates
  return candidates.map((c) => ({ ...c, code: heldTo(c.code, figuresCall(figures), MOVED) }))
}

const candidatesOf = (t: LfTrajectory, s: LfStep, k: IdentifiedKeyStep, rules: SynthesisRules): ReadonlyArray<Candidate> => {
  const out: Array<Candidate> = []
  const reachedPage = s.urlAfter !== null && s.urlAfter !== s.urlBefore
  if (rules.sharedNamesByEdit && sharesName(t, s) && k.reason === "state-changing") {
    // The name alone is answered by the other field too: the field is the one whose value the demo changed.
    // Version 11: the field is also told by what stands beside it (a table row's "remove field").
    const beside = rules.sharedNamesByNeighbour && s.action.role !== null ? neighbourOf(t, s, s.action.role, s.action.name ?? "") : null
    const edit = editCall(t, s, rules.editsOnce, beside)
    if (edit !== null) return [{ evidence: "state", code: fn(k, [...edit.notes, SHARED_NAME], edit.call) }]
  }
  if (rules.judgesEditsByEffect && s.action.kind === "type" && s.action.mode === "insert" && k.reason === "state-changing") {
    // What the typed text alone would accept is the false pass: text beside the old value, or at the wrong line.
    const edit = editCall(t, s)
    // Inserted once: the same text typed again is no longer the edit. A demo that itself inserts it again keeps the plain form.
    const once = rules.editsOnce ? editCall(t, s, true) : null
    if (edit !== null)
      return [
        ...(once === null ? [] : [{ evidence: "state" as const, code: fn(k, once.notes, once.call) }]),
        { evidence: "state", code: fn(k, edit.notes, edit.call) }
      ]
  }
  if (k.reason === "reaches-final-page") {
    if (reachedPage) {
      out.push({
        evidence: "state",
        code: fn(
          k,
          [`State evidence: the trajectory reaches ${s.urlAfter}, by whatever way.`],
          `validateUrl(t, ${js(urlPattern(s.urlAfter!, { minted: mintedBy(s), uuids: rules.generalisesMintedUuids }))})`
        )
      })
    }
    return out
  }
  // A status's state evidence is where it was declared: the goal's page, not wherever a run
  // wandered off to after reaching it.
  const state =
    s.action.kind === "status"
      ? s.urlBefore === null
        ? { entries: [], notes: [] }
        : { entries: [["urlBefore", js(statusPage(t, s, rules))] as const], notes: [`State evidence: declared on ${s.urlBefore}.`] }
      : stateEntries(t, s, rules)
  const typed = state.entries.length > 0 ? actionCall(t, s, state.entries, rules) : null
  const shown = rules.typedFieldsByState && typed !== null ? fieldShown(t, s) : null
  const echo = rules.echoedValues && typed !== null && k.reason === "state-changing" ? echoOf(t, s) : null
  const taken = rules.enterCommits && typed !== null ? committedBy(t, s) : null
  const enter = taken === null ? null : enterCall(taken, s.urlBefore === null ? null : urlPattern(pageContext(t, s)))
  const named = rules.savesByName && typed !== null && k.reason === "state-changing" ? namedField(t, s, rules) : null
  const alternatives = [typed, shown, echo === null ? null : echoCall(echo), enter, named].filter((c) => c !== null)
  const withState = alternatives.length <= 1 ? typed : `anyOf(\n    ${alternatives.join(",\n    ")}\n  )`
  if (withState !== null)
    out.push({
      evidence: "action+state",
      code: fn(
        k,
        [
          "Action evidence: the action itself.",
          ...state.notes,
          ...(shown === null ? [] : [FIELD_SHOWN]),
          ...(echo === null ? [] : [ECHOED]),
          ...(enter === null ? [] : [COMMITTED]),
          ...(named === null ? [] : [NAMED_FIELD]),
          ...(rules.savesByName && reachedPage && s.action.kind === "click" && namedBySomeFill(t, s) ? [NAMED_SAVE] : [])
        ],
        withState
      )
    })
  const bare = actionCall(t, s, [], rules)
  if (bare !== null) out.push({ evidence: "action", code: fn(k, ["Action evidence: the action itself."], bare) })
  if (reachedPage && s.action.kind !== "answer" && s.action.kind !== "status") {
    out.push({
      evidence: "state",
      code: fn(
        k,
        [`State evidence: the trajectory reaches ${s.urlAfter}.`],
        `validateUrl(t, ${js(urlPattern(s.urlAfter!, { minted: mintedBy(s), uuids: rules.generalisesMintedUuids }))})`
      )
    })
  }
  return out
}
