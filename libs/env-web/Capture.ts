/**
 * The recorder's capture in the page (Recorder.ts): the init script that turns a person's
 * input into messages through a binding, the messages' shape, and the steps each records.
 */
import { Schema } from "effect"
import type { Action } from "@core/events"
import { extractInPage, interactableSelector } from "./Elements.ts"
import { targetOf } from "@core/environment"
import type { ElementInfo, ReadSecret } from "@core/environment"
import { typedAction } from "./Secrets.ts"
import { editActions } from "./TextEdits.ts"

export const binding = "__coreRecord"

/** Source of an in-page function `(floor) => Extracted`: labels the page, continuing the larger of the two counters. */
export const labelSource = `(floor) => {
  const extract = ${extractInPage.toString()};
  const win = globalThis;
  let next = Math.max(1, floor, Number(win.__coreNextId) || 0);
  try { next = Math.max(next, Number(win.sessionStorage.getItem("__coreNextId")) || 0) } catch {}
  const found = extract({ selector: ${JSON.stringify(interactableSelector)}, nextId: next });
  win.__coreNextId = found.nextId;
  try { win.sessionStorage.setItem("__coreNextId", String(found.nextId)) } catch {}
  return found;
}`

/** Runs in the page (as source, from an init script): must not close over anything in this module. */
export const captureInPage = (args: { selector: string; binding: string }, label: (floor: number) => any): void => {
  const win: any = globalThis
  if (win.top !== win || win.__coreCapturing) return
  win.__coreCapturing = true
  const notText = ["checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color", "hidden"]
  const isTextField = (el: any): boolean => el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && !notText.includes(String(el.type)))
  // A field's value when focused or last reported: a commit that changes nothing is no step.
  const committed = new WeakMap<object, string>()
  const send = (kind: string, el: any, extra: Record<string, unknown>): boolean => {
    const before = label(0)
    const id = el.getAttribute("data-core-id")
    const element = before.elements.find((e: any) => e.id === id) ?? null
    win[args.binding]({ kind, ...extra, element, url: win.location.href, title: win.document.title, nextId: before.nextId, before })
    return true
  }
  const type = (el: any, submit: boolean): boolean => {
    const text = String(el.value)
    const previous = committed.get(el)
    if (!submit && previous === text) return false
    committed.set(el, text)
    // Node records a password by reference to a variable, never its text; a textarea's edit
    // from its value before (TextEdits.ts).
    const password = el.tagName === "INPUT" && String(el.type).toLowerCase() === "password"
    return send("type", el, { text, submit, password, ...(el.tagName === "TEXTAREA" && previous !== undefined ? { previous } : {}) })
  }
  win.addEventListener(
    "focusin",
    (e: any) => {
      if (e.target && isTextField(e.target)) committed.set(e.target, String(e.target.value))
    },
    true
  )
  win.addEventListener(
    "click",
    (e: any) => {
      // Clicks by page scripts (el.click()) are not the person's.
      if (!e.isTrusted || !e.target?.closest) return
      const el = e.target.closest(args.selector)
      // Focusing a field or opening a select is not a step: the `type` / `select` that follows is.
      if (!el || isTextField(el) || el.isContentEditable || el.tagName === "SELECT" || el.closest("select")) return
      // Enter in a field clicks the form's submit button (no pointer, focus stays in the field): the `type` has `submit`.
      const focused = win.document.activeElement
      if (e.detail === 0 && focused && focused !== el && isTextField(focused) && el.form && el.form === focused.form) return
      send("click", el, {})
    },
    true
  )
  win.addEventListener(
    "keydown",
    (e: any) => {
      if (e.isTrusted && e.key === "Enter" && !e.isComposing && e.target?.tagName === "INPUT" && isTextField(e.target)) type(e.target, true)
    },
    true
  )
  // `change` is not required to be trusted: Playwright's selectOption dispatches its own, as some widgets do.
  win.addEventListener(
    "change",
    (e: any) => {
      const el = e.target
      if (el?.tagName === "SELECT") send("select", el, { value: String(el.value) })
      else if (el && isTextField(el)) type(el, false)
    },
    true
  )
  // Text still in the focused field when the person ends the recording.
  win.__coreFlush = (): boolean => {
    const el = win.document.activeElement
    return el !== null && el !== undefined && isTextField(el) && type(el, false)
  }
}

export const Captured = Schema.Struct({
  kind: Schema.Literals(["click", "type", "select"]),
  text: Schema.optionalKey(Schema.String),
  submit: Schema.optionalKey(Schema.Boolean),
  password: Schema.optionalKey(Schema.Boolean),
  /** A textarea's value when the person started editing it. */
  previous: Schema.optionalKey(Schema.String),
  value: Schema.optionalKey(Schema.String),
  element: Schema.NullOr(Schema.Struct({ id: Schema.String, role: Schema.String, name: Schema.String, text: Schema.String })),
  url: Schema.String,
  title: Schema.String,
  nextId: Schema.Number,
  before: Schema.Any
})
export type Captured = typeof Captured.Type
export const decodeCaptured = Schema.decodeUnknownOption(Captured)

/** How a captured password is recorded, and where warnings about it go. */
export interface CaptureSecrets {
  readonly secretEnv: string
  readonly read: ReadSecret
  readonly warn: (line: string) => void
  /** Gets the text of each step recorded by reference: the recording's secrets, masked in what it observes (Scrub.ts). */
  readonly typed: Set<string>
}

/** The steps one captured input records: one, or an edit's click, caret key and insert (TextEdits.ts). */
export const toActions = (c: Captured, secrets: CaptureSecrets): ReadonlyArray<Action> => {
  const target = c.element === null ? null : targetOf(c.element as ElementInfo)
  if (c.kind === "type") {
    const typed = { text: c.text ?? "", submit: c.submit === true }
    const { action, warning } = typedAction(target, { ...typed, password: c.password === true }, secrets.secretEnv, secrets.read)
    if (action.kind !== "type" || action.secretEnv === undefined) return editActions(target, { ...typed, previous: c.previous ?? null })
    if (warning !== null) secrets.warn(warning)
    if (typed.text !== "") secrets.typed.add(typed.text)
    return [action]
  }
  if (c.kind === "select") return [{ kind: "select", target, value: c.value ?? "" }]
  return [{ kind: "click", target }]
}
