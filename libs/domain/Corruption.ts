/**
 * Deliberate corruptions of a right trajectory: the wrong ones that look most like it, for
 * measuring a judge on hard negatives. Pure and generic over the step shape (a bundled site's
 * script, a pack's step file): a `StepForm` says what a step of that shape does. Whether a
 * corruption is really wrong is for the app's own check to say after it has been played (a
 * duplicated link click still succeeds).
 *
 * The key steps are read off the steps, never off CORE's label functions, so what is being
 * judged does not choose its own test: the steps that change what the app holds (typing,
 * selecting, pressing a control that is not a link), else the last move before the end.
 * `signature` names the run a corruption makes, so two types that make the same run (a
 * toggle done twice, right away or at the end) are played once.
 *
 * @example
 * const [c] = dropKeySteps(form, steps) // { steps, note: "step 3 (click button Upvote) dropped", signature: "drop:2", step: 3 }
 */

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

export interface Corruption<S> {
  readonly steps: ReadonlyArray<S>
  readonly note: string
  /** The run it makes, as edits of the steps: equal signatures make the same run. */
  readonly signature: string
  /** For a type made once per key step: which step (1-based), to tell the runs apart. */
  readonly step?: number
}

/** What a step of one shape does, as the corruptions need to know it. */
export interface StepForm<S> {
  /** Ends the episode (a status or an answer). */
  readonly ends: (s: S) => boolean
  /** Changes what the app holds: typing, selecting, a control that is not a link. */
  readonly changes: (s: S) => boolean
  /** Goes to another page: a link, a navigation. */
  readonly moves: (s: S) => boolean
  /** A field's value left unsubmitted: clearing it undoes it, pressing Save again does not. */
  readonly typed: (s: S) => boolean
  /** The step that undoes `s` once the rest is done, or null when it has no known way back. */
  readonly undo: (s: S) => S | null
  readonly describe: (s: S) => string
}

/** The closing step (a status or an answer), which ends the episode. */
export const endingOf = <S>(form: StepForm<S>, steps: ReadonlyArray<S>): ReadonlyArray<S> => {
  const last = steps.at(-1)
  return last !== undefined && form.ends(last) ? [last] : []
}
export const bodyOf = <S>(form: StepForm<S>, steps: ReadonlyArray<S>): ReadonlyArray<S> =>
  steps.slice(0, steps.length - endingOf(form, steps).length)

/** Indices of the key steps (see the module comment); none for steps that only answer or stop. */
export const keyStepsOf = <S>(form: StepForm<S>, steps: ReadonlyArray<S>): ReadonlyArray<number> => {
  const body = bodyOf(form, steps)
  const changing = [...body.keys()].filter((i) => form.changes(body[i]!))
  if (changing.length > 0) return changing
  const last = body.findLastIndex(form.moves)
  return last < 0 ? [] : [last]
}

/** One corruption per key step: that step left out. */
export const dropKeySteps = <S>(form: StepForm<S>, steps: ReadonlyArray<S>): ReadonlyArray<Corruption<S>> =>
  keyStepsOf(form, steps).map((k) => ({
    steps: steps.filter((_, i) => i !== k),
    note: `step ${k + 1} (${form.describe(steps[k]!)}) dropped`,
    signature: `drop:${k}`,
    step: k + 1
  }))

/** One corruption per key step: that step done twice in a row. */
export const duplicateKeySteps = <S>(form: StepForm<S>, steps: ReadonlyArray<S>): ReadonlyArray<Corruption<S>> =>
  keyStepsOf(form, steps).map((k) => ({
    steps: [...steps.slice(0, k + 1), steps[k]!, ...steps.slice(k + 1)],
    note: `step ${k + 1} (${form.describe(steps[k]!)}) done twice`,
    signature: `repeat:${k}@${k + 1}`,
    step: k + 1
  }))

/** The last key step swapped with the step before it (or after it, when it comes first). */
export const swapSteps = <S>(form: StepForm<S>, steps: ReadonlyArray<S>): Corruption<S> | null => {
  const body = bodyOf(form, steps)
  const k = keyStepsOf(form, steps).at(-1)
  if (k === undefined) return null
  const j = k > 0 ? k - 1 : k + 1
  if (j >= body.length) return null
  const [a, b] = [Math.min(j, k), Math.max(j, k)]
  const swapped = [...steps]
  ;[swapped[a], swapped[b]] = [swapped[b]!, swapped[a]!]
  return { steps: swapped, note: `steps ${a + 1} and ${b + 1} swapped (${form.describe(steps[b]!)} first)`, signature: `swap:${a}-${b}` }
}

/**
 * The last key step undone once the rest is done (the last typed field, when there is one,
 * since pressing Save again undoes nothing); then the body's last step again when it came
 * later (the save that makes the clearing stick).
 */
export const undoAfter = <S>(form: StepForm<S>, steps: ReadonlyArray<S>): Corruption<S> | null => {
  const body = bodyOf(form, steps)
  const keys = keyStepsOf(form, steps)
  const k = keys.findLast((i) => form.typed(body[i]!)) ?? keys.at(-1)
  if (k === undefined) return null
  const s = body[k]!
  const undo = form.undo(s)
  if (undo === null) return null
  const again = k < body.length - 1 ? [body.at(-1)!] : []
  return {
    steps: [...body, undo, ...again, ...endingOf(form, steps)],
    note: `step ${k + 1} (${form.describe(s)}) undone after the rest${again.length > 0 ? `, then step ${body.length} again` : ""}`,
    signature: undo === s && again.length === 0 ? `repeat:${k}@${body.length}` : `undo:${k}`
  }
}

/** The episode ended one step early: the body's last step left out. */
export const stopEarly = <S>(form: StepForm<S>, steps: ReadonlyArray<S>): Corruption<S> | null => {
  const body = bodyOf(form, steps)
  if (body.length === 0) return null
  return {
    steps: [...body.slice(0, -1), ...endingOf(form, steps)],
    note: `ended before step ${body.length} (${form.describe(body.at(-1)!)})`,
    signature: `drop:${body.length - 1}`
  }
}

/**
 * The task done, and then another item changed too: `other` (the same way for another item)
 * played from `home`, the app's start, before the task's own ending. Null when the other
 * way changes nothing.
 */
export const sideEffect = <S>(
  form: StepForm<S>,
  steps: ReadonlyArray<S>,
  home: S,
  other: ReadonlyArray<S>,
  otherName: string
): Corruption<S> | null => {
  const extra = bodyOf(form, other)
  if (!extra.some(form.changes)) return null
  return {
    steps: [...bodyOf(form, steps), home, ...extra, ...endingOf(form, steps)],
    note: `then the same done to ${otherName}`,
    signature: `side:${otherName}`
  }
}

const NUMBER = /\$?\d[\d,]*(?:\.\d+)?/g
const QUOTED = /^\s*-\s*'?(?:link|heading|cell|listitem|text|paragraph|option)\s*"((?:[^"\\]|\\.)*)"/gm

/**
 * Another value read off the same page (its aria snapshot): when the right answer holds a
 * number, its first number replaced by another number the page shows (its phrasing kept);
 * else another link, heading or cell text the page shows. `draw` in [0, 1) picks which. Null
 * when the page shows nothing else.
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

/** A corruption to play, named `<task>/<type>/<source>[#<key step>]`. */
export interface PlannedCorruption<S> {
  readonly id: string
  readonly kind: CorruptionType
  readonly corruption: Corruption<S>
}

/**
 * Which of one source's corruptions to play, in order: a type that does not apply (its reason
 * instead of a corruption) or that makes the same run as an earlier one is set aside with why.
 */
export const planCorruptions = <S>(
  taskId: string,
  source: string,
  made: ReadonlyArray<readonly [CorruptionType, Corruption<S> | string]>
): {
  readonly play: ReadonlyArray<PlannedCorruption<S>>
  readonly setAside: ReadonlyArray<{ readonly id: string; readonly kind: CorruptionType; readonly reason: string }>
} => {
  const play: Array<PlannedCorruption<S>> = []
  const setAside: Array<{ id: string; kind: CorruptionType; reason: string }> = []
  const signatures = new Map<string, CorruptionType>()
  for (const [kind, c] of made) {
    const id = `${taskId}/${kind}/${source}${typeof c !== "string" && c.step !== undefined ? `#${c.step}` : ""}`
    const same = typeof c === "string" ? undefined : signatures.get(c.signature)
    if (typeof c === "string") setAside.push({ id, kind, reason: c })
    else if (same !== undefined) setAside.push({ id, kind, reason: `the same run as ${same}` })
    else {
      signatures.set(c.signature, kind)
      play.push({ id, kind, corruption: c })
    }
  }
  return { play, setAside }
}
