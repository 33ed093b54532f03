/**
 * The features of a candidate, each crossed with the candidate's kind (docs/method.md,
 * "Learned policy"). Transferable ones relate the element to the instruction and the state
 * — how much of the instruction its name, text and neighbours say, its place in the form
 * plan, the page's kind, the previous action, the step, the field's state, disabled or
 * acted on already. Procedural ones name the element's role and name with the
 * instruction's words abstracted, alone and after the previous target: an app's procedure
 * without its instances.
 *
 * @example
 * const f = stateFeatures(screen) // candidate c's features: f.index / f.value from f.starts[c] to f.starts[c + 1]
 */
import { asksForChange, formPlans, instructionValues, isQuestion } from "@core/policy"
import { fnv, mix, RowBuilder } from "./Hashing.ts"
import type { FeatureRows } from "./Hashing.ts"
import { abstractName, bucket, memo, overlapOf, policyElementsOf, stemSet, taskKey } from "./Words.ts"
import { candidatesOf } from "./Candidates.ts"
import type { Candidate } from "./Candidates.ts"
import type { ChoiceKind } from "./Records.ts"
import type { Screen, ScreenElement } from "./Screen.ts"

export interface StateFeatures extends FeatureRows {
  readonly candidates: ReadonlyArray<Candidate>
}

const KIND_IDS: Readonly<Record<ChoiceKind, number>> = {
  click: 1,
  type: 2,
  "type-submit": 3,
  select: 4,
  answer: 5,
  complete: 6,
  infeasible: 7,
  back: 8,
  scroll: 9
}

/** Feature templates by name, hashed once. */
const T = Object.fromEntries(
  [
    "kind",
    "role",
    "nameShare",
    "instrShare",
    "anyOverlap",
    "best",
    "roleBest",
    "textOverlap",
    "neighbour",
    "quoted",
    "value",
    "field",
    "fieldMatches",
    "disabled",
    "hidden",
    "offscreen",
    "checked",
    "targeted",
    "roleTargeted",
    "lastTarget",
    "last",
    "lastRole",
    "step",
    "page",
    "question",
    "change",
    "position",
    "typed",
    "urlOverlap",
    "nameLength",
    "lastMatch",
    "pageShows",
    "history",
    "repeat",
    "plan",
    "lex",
    "lexLast",
    "lexTask",
    "lexPlan",
    "number",
    "goalShown"
  ].map((n) => [n, fnv(n)])
) as Readonly<Record<string, number>>

type Kind = "none" | "click" | "type" | "select" | "scroll" | "back" | "answer" | "other"

/** The kind of a described step (StepDescriptions.ts's sentences). */
const describedKind = (d: string): Kind =>
  d.startsWith("Click") || d.startsWith("Long press")
    ? "click"
    : d.startsWith("Type text") || d.startsWith("Insert text")
      ? "type"
      : d.startsWith("Select")
        ? "select"
        : d.startsWith("Scroll")
          ? "scroll"
          : d === "Navigate back."
            ? "back"
            : d.startsWith("Answer")
              ? "answer"
              : "other"

/** The element a described step named: its quoted name, lower-cased. */
const describedTarget = (d: string): string | null => /'([^']*)'/.exec(d)?.[1]?.toLowerCase() ?? null

/** Words before a value the task puts in, not an item it is about. */
const VALUE_CUES = new Set(["to", "as", "titled", "named", "called", "with", "body", "saying", "comment", "reads"])

/** What an instruction asks, read once per instruction. */
const instructionFacts = memo(10_000, (instruction: string) => ({
  stems: stemSet(instruction),
  quoted: [...instruction.matchAll(/["“']([^"”']{2,})["”']/g)].map((m) => m[1]!.toLowerCase()),
  values: instructionValues(instruction).map((v) => v.text.toLowerCase()),
  question: isQuestion(instruction) ? 1 : 0,
  change: asksForChange(instruction) ? 1 : 0,
  task: fnv(taskKey(instruction)),
  numbers: new Set(instruction.match(/\d+/g) ?? []),
  /**
   * The stems of what the instruction names (its quoted phrases and proper names) as the
   * item the task is about — not a value it puts in ("… to Zara Hughes", "titled …").
   */
  goal: stemSet(
    instructionValues(instruction)
      .filter((v) => (v.kind === "quoted" || v.kind === "proper") && !VALUE_CUES.has(v.before.at(-1) ?? ""))
      .map((v) => v.text)
      .join(" ")
  )
}))

/** A page's kind, from its controls: a form, a list, an editor or an article. */
const pageKind = (elements: ReadonlyArray<ScreenElement>): number => {
  let fields = 0
  let links = 0
  let long = 0
  for (const e of elements) {
    if (e.role === "textbox" || e.role === "searchbox" || e.role === "combobox" || e.role === "spinbutton") fields++
    if (e.role === "link") links++
    if ((e.value?.length ?? 0) > 200) long++
  }
  return long > 0 ? 3 : fields >= 2 ? 1 : links >= 12 ? 2 : 0
}

/** The state's features, shared by all its candidates. */
const contextOf = (screen: Screen) => {
  const facts = instructionFacts(screen.instruction)
  const instruction = facts.stems
  const lastDescribed = screen.history.at(-1) ?? null
  const last = lastDescribed === null ? "none" : describedKind(lastDescribed)
  const lastTarget = lastDescribed === null ? null : describedTarget(lastDescribed)
  const targeted = new Set(screen.history.flatMap((d) => (describedKind(d) === "click" ? [describedTarget(d) ?? ""] : [])))
  const shown = new Set<string>()
  for (const e of screen.elements) {
    for (const w of stemSet(e.name)) shown.add(w)
    if (e.text !== e.name) for (const w of stemSet(e.text)) shown.add(w)
  }
  let goal = 0
  if (facts.goal.size > 0) for (const e of screen.elements) goal = Math.max(goal, overlapOf(stemSet(e.name), facts.goal) / facts.goal.size)
  return {
    goalShown: facts.goal.size === 0 ? 3 : bucket(goal, [0.5, 1]),
    instruction,
    quoted: facts.quoted,
    values: facts.values,
    last: fnv(last),
    lastTarget,
    lastMatch: lastTarget === null || instruction.size === 0 ? 0 : bucket(overlapOf(stemSet(lastTarget), instruction), [1, 2, 3]),
    targeted,
    typed: screen.history.some((d) => describedKind(d) === "type" || describedKind(d) === "select") ? 1 : 0,
    repeat: screen.history.length >= 2 && screen.history.at(-1) === screen.history.at(-2) ? 1 : 0,
    step: Math.min(screen.step, 10),
    history: Math.min(screen.history.length, 6),
    page: pageKind(screen.elements),
    task: facts.task,
    lastName: lastTarget === null ? fnv("") : fnv(abstractName(lastTarget, instruction, screen.instruction)),
    key: screen.instruction,
    numbers: facts.numbers,
    question: facts.question,
    change: facts.change,
    pageShows: instruction.size === 0 ? 0 : bucket(overlapOf(instruction, shown) / instruction.size, [0.25, 0.5, 0.75, 1]),
    url: stemSet((screen.url ?? "").replace(/[/?=&#._-]+/g, " "))
  }
}

type Context = ReturnType<typeof contextOf>

/**
 * Where each element stands in the forms the exploration policy's form filling would fill
 * from the instruction: 1 a field still to fill (2 the first such), 3 a field that holds its
 * value, 4 a plan's submit, 5 the submit of a plan with nothing left to fill. Read from the
 * element lines alone (no select options), so training and acting see the same.
 */
const planPositions = (screen: Screen): ReadonlyMap<string, number> => {
  const elements = policyElementsOf(screen)
  const out = new Map<string, number>()
  for (const p of formPlans(screen.instruction, elements, { orders: true, asLabelled: true })) {
    for (const m of p.matched) if (!out.has(m.field.id)) out.set(m.field.id, 3)
    p.fills.forEach((f, i) => out.set(f.field.id, i === 0 ? 2 : 1))
    const submit = "target" in p.submit ? p.submit.target?.elementId : undefined
    if (submit !== undefined && submit !== null && p.matched.length > 0) out.set(submit, p.fills.length === 0 ? 5 : 4)
  }
  return out
}

/** Per element, what its candidates share. */
const elementFacts = (screen: Screen, c: Context) => {
  const names = screen.elements.map((e) => stemSet(e.name))
  const overlaps = names.map((n) => overlapOf(n, c.instruction))
  const byRole = new Map<string, number>()
  const bestOfRole = new Map<string, number>()
  screen.elements.forEach((e, i) => bestOfRole.set(e.role, Math.max(bestOfRole.get(e.role) ?? 0, overlaps[i]!)))
  const best = Math.max(0, ...overlaps)
  const plans = planPositions(screen)
  return screen.elements.map((e, i) => {
    const n = names[i]!
    const o = overlaps[i]!
    const position = byRole.get(e.role) ?? 0
    byRole.set(e.role, position + 1)
    const lowerName = e.name.toLowerCase()
    const near = Math.max(
      i > 0 ? overlapOf(names[i - 1]!, c.instruction) : 0,
      i + 1 < names.length ? overlapOf(names[i + 1]!, c.instruction) : 0
    )
    const value = e.value?.toLowerCase() ?? null
    return {
      role: fnv(e.role),
      nameShare: n.size === 0 ? 0 : o / n.size,
      instrShare: c.instruction.size === 0 ? 0 : o / c.instruction.size,
      any: o > 0 ? 1 : 0,
      best: o > 0 && o === best ? 1 : 0,
      roleBest: o > 0 && o === bestOfRole.get(e.role) ? 1 : 0,
      text: e.text === e.name ? 0 : bucket(overlapOf(stemSet(e.text), c.instruction), [1, 2, 4]),
      near: bucket(near, [1, 2, 3]),
      quoted: lowerName !== "" && c.quoted.some((q) => q === lowerName || lowerName.includes(q)) ? 1 : 0,
      value: lowerName !== "" && c.values.some((v) => v.length > 1 && lowerName.includes(v)) ? 1 : 0,
      field: value === null ? 0 : value === "" ? 1 : 2,
      fieldMatches: value !== null && value !== "" && c.values.some((v) => v === value) ? 1 : 0,
      disabled: e.enabled ? 0 : 1,
      hidden: e.visible ? 0 : 1,
      offscreen: e.visible && !e.inViewport ? 1 : 0,
      checked: e.checked === null ? 0 : e.checked ? 1 : 2,
      targeted: lowerName !== "" && c.targeted.has(lowerName) ? 1 : 0,
      lastTarget: lowerName !== "" && c.lastTarget === lowerName ? 1 : 0,
      position: Math.min(position, 4),
      urlOverlap: overlapOf(n, c.url) > 0 ? 1 : 0,
      nameLength: bucket(n.size, [1, 2, 4]),
      plan: plans.get(e.id) ?? 0,
      number: (e.name.match(/\d+/g) ?? []).some((n) => c.numbers.has(n)) ? 1 : 0,
      lex: mix(fnv(e.role), fnv(abstractName(e.name, c.instruction, c.key)))
    }
  })
}

type Facts = ReturnType<typeof elementFacts>[number]

const builder = new RowBuilder()

const contextRow = (b: RowBuilder, c: Context): void => {
  b.add(T.kind!, 0)
  b.add(T.last!, c.last)
  b.add(T.step!, c.step)
  b.add(T.page!, c.page)
  b.add(T.question!, c.question)
  b.add(T.change!, c.change * 2 + c.typed)
  b.add(T.typed!, c.typed)
  b.add(T.history!, c.history)
  b.add(T.repeat!, c.repeat)
  b.add(T.goalShown!, c.goalShown)
}

const elementRow = (b: RowBuilder, c: Context, f: Facts): void => {
  b.add(T.role!, f.role)
  b.add(T.nameShare!, 0, f.nameShare)
  b.add(T.instrShare!, 0, f.instrShare)
  b.add(T.anyOverlap!, f.any)
  b.add(T.best!, f.best)
  b.add(T.roleBest!, mix(f.role, f.roleBest))
  b.add(T.textOverlap!, f.text)
  b.add(T.neighbour!, f.near)
  b.add(T.quoted!, f.quoted)
  b.add(T.value!, f.value)
  b.add(T.field!, f.field)
  b.add(T.fieldMatches!, f.fieldMatches)
  b.add(T.disabled!, f.disabled)
  b.add(T.hidden!, f.hidden)
  b.add(T.offscreen!, f.offscreen)
  b.add(T.checked!, f.checked)
  b.add(T.targeted!, f.targeted)
  b.add(T.roleTargeted!, mix(f.role, f.targeted))
  b.add(T.lastTarget!, f.lastTarget)
  b.add(T.lastRole!, mix(c.last, f.role))
  b.add(T.position!, mix(f.role, f.position))
  b.add(T.urlOverlap!, f.urlOverlap)
  b.add(T.nameLength!, f.nameLength)
  b.add(T.plan!, f.plan)
  b.add(T.number!, f.number)
  b.add(T.lex!, f.lex)
  b.add(T.lexLast!, mix(c.lastName, f.lex))
  b.add(T.lexTask!, mix(c.task, f.lex))
  b.add(T.lexPlan!, mix(f.plan, f.lex))
}

const globalRow = (b: RowBuilder, c: Context): void => {
  b.add(T.lexLast!, c.lastName)
  b.add(T.lexTask!, mix(c.task, c.history))
  b.add(T.lastMatch!, c.lastMatch)
  b.add(T.pageShows!, mix(c.pageShows, c.question))
}

/** Every candidate of the state with its features, in candidatesOf's order. */
export const stateFeatures = (screen: Screen): StateFeatures => {
  const candidates = candidatesOf(screen)
  const c = contextOf(screen)
  const facts = elementFacts(screen, c)
  const b = builder
  b.length = 0
  const starts = new Int32Array(candidates.length + 1)
  candidates.forEach((cand, i) => {
    starts[i] = b.length
    b.kind = KIND_IDS[cand.kind]
    contextRow(b, c)
    if (cand.index >= 0) elementRow(b, c, facts[cand.index]!)
    else globalRow(b, c)
  })
  starts[candidates.length] = b.length
  return { candidates, starts, ...b.take() }
}
