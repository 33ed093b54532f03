/**
 * The shared action vocabulary (`Action` in @core/events) on a Playwright page. `perform` resolves to an error
 * message for what the policy got wrong or the page refused (null when the action went
 * through) and throws only what the caller must classify: Playwright errors, timeouts,
 * a dead browser.
 */
import type { Locator, Page } from "playwright-core"
import { resolvedSelect } from "@core/events"
import type { Action, Target } from "@core/events"
import { longPressMs, maxWaitMs, typedText } from "@core/environment"
import type { ReadSecret } from "@core/environment"
import { checkNavigation } from "./Origins.ts"

export interface ActionContext {
  readonly timeoutMs: number
  /** Ids handed out in this episode: an issued id that is gone is stale, any other is unknown. */
  readonly issued: ReadonlySet<string>
  /** Where a `type` by reference (`secretEnv`) finds its value; default the process environment. */
  readonly readSecret?: ReadSecret
  /** Gets each value typed by reference: the episode's secrets, masked in what it observes (Scrub.ts). */
  readonly typedSecrets?: Set<string>
  /** The app's origins: `navigate` goes nowhere else (Origins.ts). */
  readonly origins: ReadonlyArray<string>
}

/** Actions after which the page may look different: `--screenshots key` captures only after these. */
export const stateChanging: ReadonlySet<Action["kind"]> = new Set([
  "click",
  "long_press",
  "type",
  "select",
  "scroll",
  "key",
  "navigate",
  "back"
])

/** Runs in the page: the value of the select's first option whose value or label is `value` (as `selectOption` picks it); null when none. */
const optionValueInPage = (args: { readonly id: string; readonly value: string }): string | null => {
  const el: any = (globalThis as any).document.querySelector(`[data-core-id="${args.id}"]`)
  if (el === null || el.tagName !== "SELECT") return null
  for (const o of Array.from(el.options as ArrayLike<any>)) if (o.value === args.value || o.label === args.value) return String(o.value)
  return null
}

/**
 * A select as the trajectory records it: by the value of the option it picks, with the label
 * the policy named it by (`resolvedSelect` of @core/events). Asked before the action; an
 * option that is not there leaves the action as it was.
 */
export const recordedSelect = async (page: Page, action: Action): Promise<Action> => {
  if (action.kind !== "select") return action
  const id = action.target?.elementId ?? null
  // Ids are only ever e<digits>; anything else is the action's error.
  if (id === null || !/^e\d+$/.test(id)) return action
  const value = await page.evaluate(optionValueInPage, { id, value: action.value }).catch(() => null)
  return value === null ? action : resolvedSelect(action, value)
}

type Resolved = { readonly locator: Locator } | { readonly error: string }

const resolveTarget = async (page: Page, target: Target | null, ctx: ActionContext, kind: string): Promise<Resolved> => {
  const id = target?.elementId ?? null
  if (id === null) return { error: `${kind} needs a target element id` }
  // Ids are only ever e<digits>; anything else could inject into the selector.
  if (!/^e\d+$/.test(id)) return { error: `unknown element id ${JSON.stringify(id)}` }
  const locator = page.locator(`[data-core-id="${id}"]`)
  if ((await locator.count()) === 0) {
    return {
      error: ctx.issued.has(id) ? `stale element id ${id}: the element is no longer on the page` : `unknown element id ${id}`
    }
  }
  return { locator: locator.first() }
}

const scrollDelta = (direction: "up" | "down" | "left" | "right") =>
  direction === "up" ? [0, -1] : direction === "down" ? [0, 1] : direction === "left" ? [-1, 0] : [1, 0]

/** Runs in the page: scrolls the nearest scrollable box around the element (or the page) by ~80% of it. */
export const scrollInPage = (el: any, args: { dx: number; dy: number; hasElement: boolean }): void => {
  const win: any = globalThis
  const scrollable = (node: any): boolean => {
    const style = win.getComputedStyle(node)
    const y = /(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight
    const x = /(auto|scroll)/.test(style.overflowX) && node.scrollWidth > node.clientWidth
    return args.dy !== 0 ? y : x
  }
  let node = args.hasElement ? el : null
  while (node && node !== win.document.body && !scrollable(node)) node = node.parentElement
  if (node && node !== win.document.body) {
    node.scrollBy(args.dx * node.clientWidth * 0.8, args.dy * node.clientHeight * 0.8)
  } else {
    win.scrollBy(args.dx * win.innerWidth * 0.8, args.dy * win.innerHeight * 0.8)
  }
}

/**
 * Runs in the page: readies a text field for an insert. A field that has focus keeps its caret
 * and selection (the `key` steps before put them there); one that does not gets focus with
 * the caret at the end — Chromium's `focus()` would restore the field's last selection
 * instead (the start, for a field never edited), which no trajectory records. Resolves to
 * an error, "end-key" when the field has no selection API (email, number) and End must
 * place the caret, or null.
 */
export const focusForInsert = (el: any): string | null => {
  const doc = el.ownerDocument
  const notText = ["checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color", "hidden"]
  const field = el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && !notText.includes(String(el.type).toLowerCase()))
  if (!field && !el.isContentEditable) return "type: mode insert needs a text field (input, textarea or contenteditable)"
  if (field && (el.disabled || el.readOnly)) return "type: the field is not editable"
  const active = doc.activeElement
  if (active === el || (el.isContentEditable && el.contains(active))) return null
  el.focus()
  if (!field) {
    const selection = doc.getSelection()
    selection.selectAllChildren(el)
    selection.collapseToEnd()
    return null
  }
  try {
    el.setSelectionRange(el.value.length, el.value.length)
    return null
  } catch {
    return "end-key"
  }
}

export const perform = async (page: Page, action: Action, ctx: ActionContext): Promise<string | null> => {
  const timeout = ctx.timeoutMs
  switch (action.kind) {
    case "click":
    case "long_press": {
      const r = await resolveTarget(page, action.target, ctx, action.kind)
      if ("error" in r) return r.error
      await r.locator.click(action.kind === "click" ? { timeout } : { timeout, delay: longPressMs })
      return null
    }
    case "type": {
      const r = await resolveTarget(page, action.target, ctx, action.kind)
      if ("error" in r) return r.error
      const text = typedText(action, ctx.readSecret)
      if (typeof text !== "string") return text.error
      // Before typing: a fill that fails part-way may still leave the value on the page.
      if (action.secretEnv !== undefined) ctx.typedSecrets?.add(text)
      if (action.mode === "insert") {
        const ready = await r.locator.evaluate(focusForInsert, undefined, { timeout })
        if (ready === "end-key") await page.keyboard.press("End")
        else if (ready !== null) return ready
        // As an IME commits text: no key events, so no shortcut fires and a newline is text.
        await page.keyboard.insertText(text)
      } else {
        // Playwright's fill waits for a read-only field (a date picker's input) to become editable: the whole timeout, for nothing.
        const locked = await r.locator.evaluate((el: any) => el.readOnly === true || el.disabled === true, undefined, { timeout })
        if (locked) return "type: the field is not editable"
        await r.locator.fill(text, { timeout })
      }
      if (action.submit === true) await r.locator.press("Enter", { timeout })
      return null
    }
    case "select": {
      const r = await resolveTarget(page, action.target, ctx, action.kind)
      if ("error" in r) return r.error
      // A string matches an option's value or its label.
      await r.locator.selectOption(action.value, { timeout })
      return null
    }
    case "scroll": {
      const [dx, dy] = scrollDelta(action.direction)
      if (action.target === null || action.target.elementId === null) {
        await page.locator("body").evaluate(scrollInPage, { dx: dx!, dy: dy!, hasElement: false }, { timeout })
        return null
      }
      const r = await resolveTarget(page, action.target, ctx, action.kind)
      if ("error" in r) return r.error
      await r.locator.evaluate(scrollInPage, { dx: dx!, dy: dy!, hasElement: true }, { timeout })
      return null
    }
    case "key":
      await page.keyboard.press(action.key)
      return null
    case "navigate": {
      const checked = checkNavigation(action.url, ctx.origins, page.url())
      if ("error" in checked) return checked.error
      await page.goto(checked.url, { timeout, waitUntil: "domcontentloaded" })
      return null
    }
    case "back": {
      const before = page.url()
      const response = await page.goBack({ timeout, waitUntil: "domcontentloaded" })
      return response === null && page.url() === before ? "there is no previous page to go back to" : null
    }
    case "wait":
      await new Promise((resolve) => setTimeout(resolve, Math.min(action.ms, maxWaitMs)))
      return null
    case "home":
    case "open_app":
      return `${action.kind} is not available on the web platform`
    case "answer":
    case "status":
      return null
  }
}
