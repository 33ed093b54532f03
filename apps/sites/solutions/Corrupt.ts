/**
 * Deliberate corruptions of a scripted solution (the generic corruptions of @core/domain
 * Corruption.ts over the sites' script steps): the wrong trajectories that look most like
 * right ones, for measuring a judge on hard negatives. Whether a corruption is really wrong is
 * for the task's checker to say after the corrupted script has been played.
 *
 * @example
 * const [v] = dropKeySteps(script) // { steps, note: "step 3 (click button /^Upvote$/) dropped", signature: "drop:2", step: 3 }
 */
import { Corruption as C } from "@core/domain"
import type { FullObservation } from "@core/environment"
import type { Action } from "@core/events"
import { sitePath, sitePrefix } from "./Runner.ts"
import { exact } from "./Script.ts"
import type { Step } from "./Runner.ts"
import type { Rng } from "./Perturb.ts"

export type CorruptionType = C.CorruptionType
export const CORRUPTION_TYPES = C.CORRUPTION_TYPES
export const nearMissOn = C.nearMissOn
export type Corruption = C.Corruption<Step>

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

/** A script step's form: a control pressed again toggles back; a typed field is cleared; a move is gone back from. A select has no known way back. */
export const siteForm: C.StepForm<Step> = {
  ends: (s) => s.kind === "status" || s.kind === "answer",
  changes: (s) => s.kind === "type" || s.kind === "select" || (s.kind === "click" && s.find.role !== "link"),
  moves: (s) => s.kind === "click" || s.kind === "navigate",
  typed: (s) => s.kind === "type" && s.submit !== true,
  undo: (s) =>
    s.kind === "click" && s.find.role !== "link"
      ? s
      : s.kind === "type"
        ? { ...s, text: "", submit: false }
        : s.kind === "click" || s.kind === "navigate"
          ? { kind: "back" }
          : null,
  describe: describeStep
}

export const keyStepsOf = (script: ReadonlyArray<Step>) => C.keyStepsOf(siteForm, script)
export const dropKeySteps = (script: ReadonlyArray<Step>) => C.dropKeySteps(siteForm, script)
export const duplicateKeySteps = (script: ReadonlyArray<Step>) => C.duplicateKeySteps(siteForm, script)
export const swapSteps = (script: ReadonlyArray<Step>) => C.swapSteps(siteForm, script)
export const undoAfter = (script: ReadonlyArray<Step>) => C.undoAfter(siteForm, script)
export const stopEarly = (script: ReadonlyArray<Step>) => C.stopEarly(siteForm, script)

export const nearMissAnswer = (script: ReadonlyArray<Step>, rng: Rng): Corruption | null => {
  const end = script.at(-1)
  if (end?.kind !== "answer") return null
  const draw = rng.float()
  const read = (obs: FullObservation): string => C.nearMissOn(obs.aria, end.read(obs), draw) ?? "unknown"
  return {
    steps: [...script.slice(0, -1), { kind: "answer", read }],
    note: `answered with another value the same page shows (draw ${draw.toFixed(3)})`,
    signature: "near-miss"
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

/** The task done, and then the same done for a sibling item (`other`, its script), from the site's start page. */
export const sideEffect = (script: ReadonlyArray<Step>, other: ReadonlyArray<Step>, otherName: string): Corruption | null =>
  C.sideEffect(siteForm, script, home, other, otherName)

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
