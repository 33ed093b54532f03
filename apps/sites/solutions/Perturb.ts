/**
 * Seeded variations of scripted solutions, for measuring label functions on trajectories
 * no demo showed: the same path with other incidental moves (scrolls, waits, a detour and
 * back), one value changed (a typed text, a select's option, the answer, the final status),
 * and random-policy rollouts. Pure: every choice is a function of the script, the
 * parameters and a seeded PRNG, and run-time choices (which link, which option) are fixed
 * draws applied to the page, so the same seed on the same page makes the same moves.
 */
import { prng } from "@core/engine"
import { targetOf } from "@core/environment"
import type { ElementInfo, FullObservation } from "@core/environment"
import { sha256 } from "@core/events"
import type { Action } from "@core/events"
import { linkTargets, resolve, sitePrefix } from "./Runner.ts"
import type { Find, Step } from "./Runner.ts"
import type { Params } from "./Script.ts"

export interface Rng {
  /** A uniform float in [0, 1). */
  float(): number
  /** A uniform integer in [min, max). */
  int(min: number, max: number): number
}

/** The replay library's sfc32, seeded from the sha256 of the key's parts: the same key draws the same numbers everywhere. */
export const seededRng = (...key: ReadonlyArray<string | number>): Rng => {
  const p = prng(sha256(JSON.stringify(key)))
  // An empty range draws its lower end: a page with nothing to pick is not an error here.
  return { float: p.float, int: (min, max) => (max <= min ? min : p.int(min, max)) }
}

/** A script changed for evaluation, and what was changed (for the trajectory's note). */
export interface Variant {
  readonly steps: ReadonlyArray<Step>
  readonly note: string
}

/**
 * Where a detour may go: before the first step, or right after a step that loads a fresh
 * page (a link, a submitted search, a typed address). Anywhere else the page may hold
 * typed-in or selected values the next step relies on, which going back would lose.
 */
const detourAllowed = (script: ReadonlyArray<Step>, at: number): boolean => {
  if (at === 0) return true
  const prev = script[at - 1]!
  return (prev.kind === "click" && prev.find.role === "link") || (prev.kind === "type" && prev.submit === true) || prev.kind === "navigate"
}

/** The same path with other incidental moves: one or two scrolls, a short wait and a detour, at seeded places. */
export const samePathVariant = (script: ReadonlyArray<Step>, rng: Rng): Variant => {
  // Inserts go before script step `at`; never after the last step (an answer or status ends the episode).
  const last = Math.max(1, script.length)
  const inserts: Array<{ at: number; step: Step; what: string }> = []
  const scrolls = rng.int(1, 3)
  for (let i = 0; i < scrolls; i++) {
    const direction = i === 0 ? "down" : "up"
    inserts.push({ at: rng.int(0, last), step: { kind: "scroll", direction }, what: `scroll ${direction}` })
  }
  const ms = 100 * rng.int(2, 6)
  inserts.push({ at: rng.int(0, last), step: { kind: "wait", ms }, what: `wait ${ms} ms` })
  const detours = [...Array(last).keys()].filter((at) => detourAllowed(script, at))
  if (detours.length > 0) {
    const pick = Math.round(rng.float() * 1000) / 1000
    const at = detours[rng.int(0, detours.length)]!
    const next = script[at]
    const avoid = next !== undefined && "find" in next ? next.find : undefined
    inserts.push({ at, step: { kind: "detour", pick, ...(avoid === undefined ? {} : { avoid }) }, what: `detour (link pick ${pick})` })
  }
  const steps: Array<Step> = []
  for (const [i, step] of script.entries()) {
    for (const x of inserts) if (x.at === i) steps.push(x.step)
    steps.push(step)
  }
  return {
    steps,
    note: inserts
      .sort((x, y) => x.at - y.at)
      .map((x) => `${x.what} before step ${x.at + 1}`)
      .join(", ")
  }
}

const WORDS = ["lantern", "meadow", "quartz", "harbor", "velvet", "orbit", "pepper", "willow"]

/**
 * Another value of the same kind: an address gets another mailbox, a number (the last run
 * of digits: a quantity, a postal code, a date's day, a time's minutes) goes up by one,
 * otherwise the last word is replaced.
 */
export const alterText = (text: string): string => {
  if (text.includes("@")) return `x${text}`
  const digits = [...text.matchAll(/\d+/g)].at(-1)
  if (digits !== undefined) {
    const n = String(Number(digits[0]) + 1).padStart(digits[0].length, "0")
    return text.slice(0, digits.index) + n + text.slice(digits.index + digits[0].length)
  }
  const words = text.split(" ")
  const lastWord = words.at(-1) ?? ""
  return [...words.slice(0, -1), WORDS.find((w) => w !== lastWord.toLowerCase())!].join(" ")
}

/** The options of the combobox named `name`, as its aria snapshot lists them (labels). */
export const optionsOf = (aria: string, name: string): ReadonlyArray<string> => {
  const lines = aria.split("\n")
  const indent = (line: string) => line.length - line.trimStart().length
  const at = lines.findIndex((l) =>
    l
      .trimStart()
      .replace(/^-\s*'?/, "")
      .startsWith(`combobox ${JSON.stringify(name)}`)
  )
  if (at < 0) return []
  const out: Array<string> = []
  for (let j = at + 1; j < lines.length && indent(lines[j]!) > indent(lines[at]!); j++) {
    const label = lines[j]!.match(/^\s*-\s*'?option "((?:[^"\\]|\\.)*)"/)?.[1]
    if (label !== undefined) out.push(label.replace(/\\(.)/g, "$1"))
  }
  return out
}

/** A label that means `value`: the value itself, or a city option "Prague (PRG)" for "Prague". */
const means = (label: string, value: string): boolean => {
  const [l, v] = [label.trim().toLowerCase(), value.trim().toLowerCase()]
  return l === v || l.startsWith(`${v} (`)
}

/**
 * Selecting another option than `avoid`, read off the page. The aria snapshot lists option
 * labels, a script may name a value ("price-asc"): when the pick turns out to be the avoided
 * one after all, a second step picks the next option.
 */
export const selectOther = (find: Find, avoid: string, pick: number): ReadonlyArray<Step> => {
  const candidates = (obs: FullObservation, also: ReadonlyArray<string>) => {
    const el = resolve(obs.elements, find)
    if (el === undefined) return { el, labels: [] }
    const current = el.value !== null && means(el.value, avoid) ? el.text : null
    return { el, labels: optionsOf(obs.aria, el.name).filter((l) => !means(l, avoid) && l !== current && !also.includes(l)) }
  }
  let first: string | null = null
  const choose = (obs: FullObservation): Action | null => {
    const { el, labels } = candidates(obs, [])
    if (el === undefined || labels.length === 0) return null
    first = labels[Math.min(labels.length - 1, Math.floor(pick * labels.length))]!
    return { kind: "select", target: targetOf(el), value: first }
  }
  const recheck = (obs: FullObservation): Action | null => {
    const el = resolve(obs.elements, find)
    if (first === null || el === undefined || !(means(el.value ?? "", avoid) || means(el.text, avoid))) return null
    const next = candidates(obs, [first]).labels[0]
    return next === undefined ? null : { kind: "select", target: targetOf(el), value: next }
  }
  return [
    { kind: "choose", choose },
    { kind: "choose", choose: recheck }
  ]
}

const lastIndex = (script: ReadonlyArray<Step>, test: (s: Step) => boolean): number => script.findLastIndex(test)

/**
 * The script with one value changed, the one most likely to decide the task: a declared
 * infeasibility becomes "complete" (any other change keeps an infeasible task infeasible);
 * else a typed parameter value (not a search, whose change only breaks the next click);
 * else a selected parameter value; else the answer; else any typed text, any select, a
 * search; last, the final "complete" becomes "infeasible" (wrongly giving up).
 */
export const wrongValueVariant = (script: ReadonlyArray<Step>, params: Params, rng: Rng): Variant | null => {
  const values = Object.values(params).map(String)
  const typedParam = (s: Step) => s.kind === "type" && s.submit !== true && s.text !== "" && values.some((v) => means(s.text, v))
  const selectedParam = (s: Step) => s.kind === "select" && values.some((v) => means(s.value, v))
  const replace = (at: number, by: ReadonlyArray<Step>, note: string): Variant => ({
    steps: [...script.slice(0, at), ...by, ...script.slice(at + 1)],
    note: `step ${at + 1}: ${note}`
  })
  const alterAt = (at: number): Variant => {
    const s = script[at]!
    if (s.kind === "type") {
      const text = alterText(s.text === "" ? "x" : s.text)
      return replace(at, [{ ...s, text }], `typed '${text}' instead of '${s.text}'`)
    }
    if (s.kind === "select") return replace(at, selectOther(s.find, s.value, rng.float()), `selected another option than '${s.value}'`)
    if (s.kind === "answer")
      return replace(at, [{ kind: "answer", read: (obs) => alterAnswer(s.read(obs)) }], "answered with a number one off (or another text)")
    throw new Error(`cannot alter a ${s.kind} step`)
  }
  const end = script.at(-1)
  if (end?.kind === "status" && end.status === "infeasible")
    return replace(script.length - 1, [{ kind: "status", status: "complete" }], "status complete instead of infeasible")
  const tests: ReadonlyArray<(s: Step) => boolean> = [
    typedParam,
    selectedParam,
    (s) => s.kind === "answer",
    (s) => s.kind === "type" && s.submit !== true,
    (s) => s.kind === "select",
    (s) => s.kind === "type"
  ]
  for (const test of tests) {
    const at = lastIndex(script, test)
    if (at >= 0) return alterAt(at)
  }
  if (end?.kind === "status" && end.status === "complete")
    return replace(script.length - 1, [{ kind: "status", status: "infeasible" }], "status infeasible instead of complete")
  return null
}

/** A number one off, else another text: what a careless reader would answer. */
export const alterAnswer = (answer: string): string => (/\d/.test(answer) ? alterText(answer) : "I could not find it.")

const RANDOM_WORDS = ["cheap", "blue", "garden", "travel", "hello", "42", "best", "review"]

/** One random-policy move on the page, from four fixed draws in [0, 1). */
const randomMove = (obs: FullObservation, draws: readonly [number, number, number, number]): Action | null => {
  const prefix = sitePrefix(obs.observation.url)
  // Off the site (a link to the start page): come back rather than wander elsewhere.
  if (prefix === null) return { kind: "back" }
  const targets = linkTargets(obs.aria)
  const usable = (e: ElementInfo) => e.visible && e.enabled
  const typable = obs.elements.filter((e) => usable(e) && e.editable && (e.role === "textbox" || e.role === "searchbox"))
  const clickable = obs.elements.filter(
    (e) => usable(e) && (e.role === "button" || (e.role === "link" && (targets.get(e.name) ?? "").startsWith(prefix)))
  )
  const [a, b, c, d] = draws
  const at = <T>(list: ReadonlyArray<T>, u: number): T => list[Math.min(list.length - 1, Math.floor(u * list.length))]!
  if (typable.length > 0 && (a < 0.3 || clickable.length === 0)) {
    return { kind: "type", target: targetOf(at(typable, b)), text: at(RANDOM_WORDS, c), submit: d < 0.5 }
  }
  return clickable.length === 0 ? null : { kind: "click", target: targetOf(at(clickable, b)) }
}

/** A random policy's rollout: up to `moves` random clicks (same site) or typed words, then "complete". */
export const randomRollout = (rng: Rng, moves = 6): ReadonlyArray<Step> => [
  ...Array.from({ length: moves }, (): Step => {
    const draws = [rng.float(), rng.float(), rng.float(), rng.float()] as const
    return { kind: "choose", choose: (obs) => randomMove(obs, draws) }
  }),
  { kind: "status", status: "complete" }
]
