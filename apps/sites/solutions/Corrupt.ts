/**
 * Deliberate corruptions of a scripted solution: the wrong trajectories that look most like
 * right ones, for measuring a judge on hard negatives. Each is a function of the script and a
 * seeded PRNG, like Perturb.ts; whether it is really wrong is for the task's checker to say
 * after the corrupted script has been played (a duplicated link click still succeeds).
 *
 * The key steps are read off the script, never off CORE's label functions, so what is being
 * judged does not choose its own test: the steps that change what the app holds (typing,
 * selecting, pressing a control that is not a link), else the last navigation before the end.
 * `signature` names the run a corruption makes, so two types that make the same run (a
 * toggle done twice, right away or at the end) are played once.
 *
 * @example
 * const [v] = dropKeySteps(script) // { steps, note: "step 3 (click button /^Upvote$/) dropped", signature: "drop:2", step: 3 }
 */
import type { FullObservation } from "@core/environment"
import type { Action } from "@core/events"
import { sitePath, sitePrefix } from "./Runner.ts"
import { exact } from "./Script.ts"
import type { Step } from "./Runner.ts"
import type { Rng } from "./Perturb.ts"

export type CorruptionType =
  | "drop-key-step"
  | "duplicate-key-step"
  | "swap-steps"
  | "other-item"
  | "other-value"
  | "undo-after"
  | "near-miss-answer"
  | "stop-early"
  | "side-effect"

export const CORRUPTION_TYPES: ReadonlyArray<CorruptionType> = [
  "drop-key-step",
  "duplicate-key-step",
  "swap-steps",
  "other-item",
  "other-value",
  "undo-after",
  "near-miss-answer",
  "stop-early",
  "side-effect"
]

export interface Corruption {
  readonly steps: ReadonlyArray<Step>
  readonly note: string
  /** The run it makes, as edits of the script: equal signatures make the same run. */
  readonly signature: string
  /** For a type made once per key step: which step (1-based), to tell the runs apart. */
  readonly step?: number
}

/** The script's closing step (a status or an answer), which ends the episode. */
const endingOf = (script: ReadonlyArray<Step>): ReadonlyArray<Step> => {
  const last = script.at(-1)
  return last !== undefined && (last.kind === "status" || last.kind === "answer") ? [last] : []
}
const bodyOf = (script: ReadonlyArray<Step>) => script.slice(0, script.length - endingOf(script).length)

const changesState = (s: Step): boolean => s.kind === "type" || s.kind === "select" || (s.kind === "click" && s.find.role !== "link")
const moves = (s: Step): boolean => s.kind === "click" || s.kind === "navigate"

/** Indices of the key steps (see the module comment); none for a script that only answers or stops. */
export const keyStepsOf = (script: ReadonlyArray<Step>): ReadonlyArray<number> => {
  const body = bodyOf(script)
  const changing = [...body.keys()].filter((i) => changesState(body[i]!))
  if (changing.length > 0) return changing
  const last = body.findLastIndex(moves)
  return last < 0 ? [] : [last]
}

export const describeStep = (s: Step): string => {
  switch (s.kind) {
    case "click":
      return `click ${s.find.role} ${s.find.name}`
    case "type":
      return `type ${JSON.stringify(s.text)} into ${s.find.role} ${s.find.name}`
    case "select":
      return `select ${JSON.stringify(s.value)} in ${s.find.name}`
    case "navigate":
      return `go to ${s.path}`
    case "status":
      return `status ${s.status}`
    default:
      return s.kind
  }
}

/** One corruption per key step: that step left out. */
export const dropKeySteps = (script: ReadonlyArray<Step>): ReadonlyArray<Corruption> =>
  keyStepsOf(script).map((k) => ({
    steps: script.filter((_, i) => i !== k),
    note: `step ${k + 1} (${describeStep(script[k]!)}) dropped`,
    signature: `drop:${k}`,
    step: k + 1
  }))

/** One corruption per key step: that step done twice in a row. */
export const duplicateKeySteps = (script: ReadonlyArray<Step>): ReadonlyArray<Corruption> =>
  keyStepsOf(script).map((k) => ({
    steps: [...script.slice(0, k + 1), script[k]!, ...script.slice(k + 1)],
    note: `step ${k + 1} (${describeStep(script[k]!)}) done twice`,
    signature: `repeat:${k}@${k + 1}`,
    step: k + 1
  }))

/** The last key step swapped with the step before it (or after it, when it comes first). */
export const swapSteps = (script: ReadonlyArray<Step>): Corruption | null => {
  const body = bodyOf(script)
  const k = keyStepsOf(script).at(-1)
  if (k === undefined) return null
  const j = k > 0 ? k - 1 : k + 1
  if (j >= body.length) return null
  const [a, b] = [Math.min(j, k), Math.max(j, k)]
  const steps = [...script]
  ;[steps[a], steps[b]] = [steps[b]!, steps[a]!]
  return { steps, note: `steps ${a + 1} and ${b + 1} swapped (${describeStep(script[b]!)} first)`, signature: `swap:${a}-${b}` }
}

/**
 * The last key step undone once the rest is done: a typed field cleared (the last one typed,
 * when there is one), else a control pressed again (a toggle back) or a navigation gone back
 * from; then the body's last step again when it came later (the save that makes the clearing
 * stick). A select has no known way back.
 */
export const undoAfter = (script: ReadonlyArray<Step>): Corruption | null => {
  const body = bodyOf(script)
  const keys = keyStepsOf(script)
  // A form's value, not the save that submits it: pressing Save again undoes nothing.
  const k = keys.findLast((i) => body[i]!.kind === "type" && (body[i] as { submit?: boolean }).submit !== true) ?? keys.at(-1)
  if (k === undefined) return null
  const s = body[k]!
  const undo: Step | null =
    s.kind === "click" && s.find.role !== "link"
      ? s
      : s.kind === "type"
        ? { ...s, text: "", submit: false }
        : s.kind === "click" || s.kind === "navigate"
          ? { kind: "back" }
          : null
  if (undo === null) return null
  const again = k < body.length - 1 ? [body.at(-1)!] : []
  return {
    steps: [...body, undo, ...again, ...endingOf(script)],
    note: `step ${k + 1} (${describeStep(s)}) undone after the rest${again.length > 0 ? `, then step ${body.length} again` : ""}`,
    signature: undo === s && again.length === 0 ? `repeat:${k}@${body.length}` : `undo:${k}`
  }
}

const NUMBER = /\$?\d[\d,]*(?:\.\d+)?/g
const QUOTED = /^\s*-\s*'?(?:link|heading|cell|listitem|text|paragraph|option)\s*"((?:[^"\\]|\\.)*)"/gm

/**
 * Another value read off the same page: when the right answer holds a number, its first number
 * replaced by another number the page shows (its phrasing kept); else another link, heading or
 * cell text the page shows. Null when the page shows nothing else.
 */
export const nearMissOn = (aria: string, right: string, draw: number): string | null => {
  const number = right.match(NUMBER)?.[0]
  if (number !== undefined) {
    const others = [...new Set([...aria.matchAll(NUMBER)].map((m) => m[0]))].filter(
      (n) => n !== number && n.replace(/^\$/, "") !== number.replace(/^\$/, "")
    )
    const other = others[Math.min(others.length - 1, Math.floor(draw * others.length))]
    return other === undefined ? null : right.replace(number, number.startsWith("$") && !other.startsWith("$") ? `$${other}` : other)
  }
  const lower = right.trim().toLowerCase()
  const texts = [...new Set([...aria.matchAll(QUOTED)].map((m) => m[1]!.replace(/\\(.)/g, "$1").trim()))].filter(
    (t) => t.length > 1 && !lower.includes(t.toLowerCase()) && !t.toLowerCase().includes(lower)
  )
  return texts[Math.min(texts.length - 1, Math.floor(draw * texts.length))] ?? null
}

export const nearMissAnswer = (script: ReadonlyArray<Step>, rng: Rng): Corruption | null => {
  const end = script.at(-1)
  if (end?.kind !== "answer") return null
  const draw = rng.float()
  const read = (obs: FullObservation): string => nearMissOn(obs.aria, end.read(obs), draw) ?? "unknown"
  return {
    steps: [...script.slice(0, -1), { kind: "answer", read }],
    note: `answered with another value the same page shows (draw ${draw.toFixed(3)})`,
    signature: "near-miss"
  }
}

/** The episode ended one step early: the body's last step left out. */
export const stopEarly = (script: ReadonlyArray<Step>): Corruption | null => {
  const body = bodyOf(script)
  if (body.length === 0) return null
  return {
    steps: [...body.slice(0, -1), ...endingOf(script)],
    note: `ended before step ${body.length} (${describeStep(body.at(-1)!)})`,
    signature: `drop:${body.length - 1}`
  }
}

/** Back to the site's start page, as typing its address would: where a sibling's script begins. */
const home: Step = {
  kind: "choose",
  choose: (obs) => {
    const prefix = sitePrefix(obs.observation.url)
    return prefix === null || obs.observation.url === null ? null : { kind: "navigate", url: new URL(prefix, obs.observation.url).href }
  }
}

/**
 * The task done, and then another item changed too: `other` (the same family's script for a
 * sibling item) played from the start page before the task's own ending.
 */
export const sideEffect = (script: ReadonlyArray<Step>, other: ReadonlyArray<Step>, otherName: string): Corruption | null => {
  const extra = bodyOf(other)
  if (!extra.some(changesState)) return null
  return {
    steps: [...bodyOf(script), home, ...extra, ...endingOf(script)],
    note: `then the same done to ${otherName}`,
    signature: `side:${otherName}`
  }
}

/**
 * A recorded trajectory (a run's verified pass) as a script, so it can be corrupted like a
 * scripted solution: each target found again by its role and exact name (element ids are the
 * episode's own), a navigation by its path. `rename` rewrites names and typed texts (another
 * item's). Null when an action has no scripted form (a key press, an app switch).
 */
export const scriptOfActions = (
  actions: ReadonlyArray<Action>,
  rename: (text: string) => string = (t) => t
): ReadonlyArray<Step> | null => {
  const steps: Array<Step> = []
  for (const a of actions) {
    const find =
      "target" in a && a.target !== null && a.target !== undefined
        ? { role: a.target.role ?? "", name: exact(rename(a.target.name ?? "")) }
        : null
    switch (a.kind) {
      case "click":
        if (find === null) return null
        steps.push({ kind: "click", find })
        break
      case "type":
        if (find === null) return null
        steps.push({ kind: "type", find, text: rename(a.text), submit: a.submit === true })
        break
      case "select":
        if (find === null) return null
        steps.push({ kind: "select", find, value: rename(a.value) })
        break
      case "navigate":
        steps.push({ kind: "navigate", path: sitePath(a.url) ?? "/" })
        break
      case "scroll":
        steps.push({ kind: "scroll", direction: a.direction === "up" ? "up" : "down" })
        break
      case "back":
      case "wait":
        steps.push(a.kind === "back" ? { kind: "back" } : { kind: "wait", ms: a.ms })
        break
      case "answer": {
        const text = rename(a.text)
        steps.push({ kind: "answer", read: () => text })
        break
      }
      case "status":
        steps.push({ kind: "status", status: a.status })
        break
      default:
        return null
    }
  }
  return steps
}
