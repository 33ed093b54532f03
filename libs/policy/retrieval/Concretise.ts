/**
 * A recorded action made concrete on the live page: the new instruction's parameters put
 * in for the recorded ones, the target found again by role and name (Grounding), and the
 * element id taken from the live element — a recorded id names nothing here.
 */
import type { Action } from "@core/events"
import type { PolicyElement, PolicyInput } from "../PolicyView.ts"
import { normalizeText } from "@core/domain"
import { substitute, substitutePage } from "./Alignment.ts"
import type { Substituted, Substitution } from "./Alignment.ts"
import { ground } from "./Grounding.ts"
import type { Grounded } from "./Grounding.ts"
import { readAnswer } from "./Reading.ts"
import { pageKey } from "./Text.ts"

const targetOf = (e: PolicyElement) => ({ role: e.role, name: e.name, elementId: e.id, text: e.text === "" ? null : e.text })

export interface Concrete {
  readonly action: Action
  /** How surely the target is the recorded one (1 for actions without a target but answers and statuses). */
  readonly grounding: number
  /** Whether a parameter substitution changed any of its strings: the action follows the instruction, not its instance. */
  readonly substituted: boolean
}

/**
 * The recorded action made concrete here: parameters substituted, target grounded; null when
 * it cannot be done here. `terminal`: the grounding an answer or a status gets, having no
 * target to find. `page`: the live page's accessibility snapshot, when the policy reads
 * answers off it (version 2, Reading.ts); an answer read there follows the instruction, as a
 * substituted one does.
 */
export const concretise = (
  a: Action,
  subs: ReadonlyArray<Substitution>,
  input: PolicyInput,
  terminal: number,
  page: string | null = null
): Concrete | null => {
  let substituted = false
  const sub = (s: string): Substituted => {
    const r = substitute(s, subs)
    substituted ||= r.text !== s
    return r
  }
  const grounded = (editable: boolean): Grounded | null => {
    if (!("target" in a) || a.target === null) return null
    const name = sub(a.target.name ?? "")
    const text = sub(a.target.text ?? "")
    const label = { role: a.target.role, name: a.target.name === null ? null : name.text, text: a.target.text === null ? null : text.text }
    return ground(label, input.elements, { editable, introduced: [...new Set([...name.introduced, ...text.introduced])] })
  }
  const made = ((): { readonly action: Action; readonly grounding: number } | null => {
    switch (a.kind) {
      case "click":
      case "long_press": {
        const g = grounded(false)
        // a checked radio button is chosen already: clicking it again does nothing
        if (g === null || (normalizeText(g.element.role) === "radio" && g.element.checked === true)) return null
        return { action: { kind: a.kind, target: targetOf(g.element) }, grounding: g.quality }
      }
      case "type": {
        const g = grounded(true)
        if (g === null) return null
        // A password recorded by reference types its variable again: its value is unknown here, so never "already typed".
        if (a.secretEnv !== undefined) {
          return {
            action: {
              kind: "type",
              target: targetOf(g.element),
              text: "",
              secretEnv: a.secretEnv,
              ...(a.submit === undefined ? {} : { submit: a.submit })
            },
            grounding: g.quality
          }
        }
        const text = sub(a.text).text
        // A fill whose text the field already shows is done; an insert adds to whatever is there.
        if (a.mode !== "insert" && normalizeText(g.element.value ?? "") === normalizeText(text)) return null
        const action: Action = {
          kind: "type",
          target: targetOf(g.element),
          text,
          ...(a.submit === undefined ? {} : { submit: a.submit }),
          ...(a.mode === undefined ? {} : { mode: a.mode })
        }
        return { action, grounding: g.quality }
      }
      case "select": {
        const g = grounded(false)
        const value = sub(a.value).text
        if (g === null || normalizeText(g.element.value ?? "") === normalizeText(value)) return null
        return { action: { kind: "select", target: targetOf(g.element), value }, grounding: g.quality }
      }
      case "scroll": {
        const g = a.target === null ? null : grounded(false)
        return { action: { kind: "scroll", target: g === null ? null : targetOf(g.element), direction: a.direction }, grounding: 1 }
      }
      case "navigate": {
        const page = pageKey(a.url)
        const path = substitutePage(page, subs)
        substituted ||= path !== page
        return { action: { kind: "navigate", url: rebase(path ?? a.url, input.url) }, grounding: 1 }
      }
      case "open_app":
        return { action: { kind: "open_app", app: sub(a.app).text }, grounding: 1 }
      case "answer": {
        const text = sub(a.text).text
        const values = subs.filter((x) => x.strength === 1).map((x) => x.to)
        const read = page === null ? null : readAnswer(text, values, input.instruction, page)
        substituted ||= read !== null && read !== text
        return { action: { kind: "answer", text: read ?? text }, grounding: terminal }
      }
      case "status":
        return { action: a, grounding: terminal }
      default:
        return { action: a, grounding: 1 }
    }
  })()
  return made === null ? null : { ...made, substituted }
}

/** A recorded path on the live page's origin: ports and hosts change between runs. */
const rebase = (path: string, current: string | null): string => {
  if (current === null) return path
  try {
    return new URL(path, new URL(current)).toString()
  } catch {
    return path
  }
}
