/**
 * Semantic description (Semantic Code Abstraction step 1, docs/method.md): each step of a
 * demo as one sentence, templated from the action and its target the way the reference
 * does (`Click on a UI element 'Timer' on the screen.`). The role goes in brackets after
 * the name: two elements may share a name ("Cart" link, "Cart" heading button), and the
 * key-step model and an auditor both need to tell them apart.
 *
 * @example
 * describeStep({ kind: "click", role: "button", name: "Add to cart", ... })
 * // "Click on a UI element 'Add to cart' (button) on the screen."
 */
import type { LfAction, LfTrajectory } from "./LfTrajectory.ts"

const quoted = (s: string | null): string => `'${(s ?? "").replace(/\s+/g, " ").trim()}'`

const element = (a: LfAction): string => {
  const name = a.name ?? a.text
  if (name === null || name.trim() === "") return a.role === null ? "a UI element" : `a UI element (${a.role})`
  return `a UI element ${quoted(name)}${a.role === null ? "" : ` (${a.role})`}`
}

const field = (a: LfAction): string => quoted(a.name ?? a.role ?? "field")

export const describeStep = (a: LfAction): string => {
  switch (a.kind) {
    case "click":
      return `Click on ${element(a)} on the screen.`
    case "long_press":
      return `Long press on ${element(a)} on the screen.`
    case "type":
      // A fill's sentence is in recorded prompts and dataset records: it never changes.
      return a.mode === "insert"
        ? `Insert text ${quoted(a.typed)} at the cursor in the ${field(a)}${a.submit ? " and press Enter" : ""}.`
        : `Type text ${quoted(a.typed)} into the ${field(a)}${a.submit ? " and press Enter" : ""}.`
    case "select":
      return `Select ${quoted(a.value)} in the ${field(a)}.`
    case "scroll":
      return `Scroll ${a.direction ?? "down"} on the screen.`
    case "key":
      return `Press the key ${quoted(a.key)}.`
    case "navigate":
      return `Navigate to the URL ${quoted(a.url)}.`
    case "back":
      return "Navigate back."
    case "home":
      return "Navigate to the home screen."
    case "open_app":
      return `Open an app named ${quoted(a.app)}.`
    case "answer":
      return `Answer user's question with text: ${quoted(a.answer)}`
    case "status":
      return `Set the task's status as ${quoted(a.status)}.`
    case "wait":
      return "Wait for the screen to update."
  }
}

export interface StepDescription {
  readonly stepIndex: number
  readonly text: string
}

/** Every step described, in order: StepsDescribed's `descriptions`. */
export const describeSteps = (t: LfTrajectory): ReadonlyArray<StepDescription> =>
  t.steps.map((s) => ({ stepIndex: s.index, text: describeStep(s.action) }))
