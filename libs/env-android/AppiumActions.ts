/**
 * The shared action vocabulary (`Action` in @core/events) on an Android device through
 * Appium UiAutomator2. Like the web's `perform`, it resolves to an error message for what the policy got wrong
 * or the platform cannot do (null when the action went through) and throws only what the
 * caller must classify: WebDriver errors, a dead session.
 *
 * Taps and swipes are W3C touch pointer actions at the coordinates the last observation
 * gave (see Gestures.ts), so an element needs no WebDriver lookup: its id resolves through
 * the ids that observation issued. System keys are `mobile: pressKey` key codes.
 */
import { longPressMs, maxWaitMs, typedText } from "@core/environment"
import type { ReadSecret } from "@core/environment"
import type { Box, ElementInfo } from "@core/environment"
import type { Action, Target } from "@core/events"
import type { PointerActions, Viewport } from "./Gestures.ts"
import { contentArea, scrollSwipe, swipeActions, tapActions, tapPoint } from "./Gestures.ts"

/**
 * What the vocabulary needs from a session: a narrow slice of WebdriverIO's browser, so
 * the mapping from actions to device commands can be exercised without a device.
 */
export interface Device {
  performActions(actions: ReadonlyArray<PointerActions>): Promise<unknown>
  /** `mobile:` extension commands (`mobile: pressKey`, `mobile: activateApp`, …). */
  mobile(command: string, args: Record<string, unknown>): Promise<unknown>
  back(): Promise<unknown>
  /** The WebDriver id of the element with input focus, or null when none has it. */
  focusedElement(): Promise<string | null>
  /** Where an element (by WebDriver id) is on the screen: tells the focused field from the target. */
  elementRect(elementId: string): Promise<Box>
}

export interface ActionContext {
  /** Ids handed out in this episode: an issued id missing from `current` is stale, any other unknown. */
  readonly issued: ReadonlySet<string>
  /** The elements of the last observation by id: what a target id means now. */
  readonly current: ReadonlyMap<string, ElementInfo>
  readonly viewport: Viewport
  /** Where a `type` by reference finds its value (the app's episodes' reader); default the process environment. */
  readonly readSecret?: ReadSecret
}

/**
 * Android key codes for the key names a policy uses (the web's names where they exist:
 * "Home" and "End" move the cursor, as on the web; the home button is the `home` action).
 */
export const KEYCODES: Readonly<Record<string, number>> = {
  Enter: 66,
  Tab: 61,
  Backspace: 67,
  Delete: 112,
  Escape: 111,
  Space: 62,
  ArrowUp: 19,
  ArrowDown: 20,
  ArrowLeft: 21,
  ArrowRight: 22,
  PageUp: 92,
  PageDown: 93,
  Home: 122,
  End: 123,
  Back: 4,
  Search: 84,
  Menu: 82,
  AppSwitch: 187
}

export const HOME_KEYCODE = 3

/** Android meta states (left key + either key) for the modifiers a chord names. */
const META: Readonly<Record<string, number>> = { Shift: 0x41, Alt: 0x12, Control: 0x3000, Meta: 0x30000 }

/**
 * A key or chord (`Control+Shift+ArrowLeft`, `Control+a`) as `mobile: pressKey` arguments:
 * the key code with the modifiers' meta state (left out when none); null when Android has
 * no code for a part. A text view moves or selects as the web does — `Control+End` to the
 * end of the text, `Shift+…` extending the selection — as far as the app's view honours it.
 */
export const androidKey = (key: string): { readonly keycode: number; readonly metastate?: number } | null => {
  const parts = key.split("+")
  const last = parts.at(-1)!
  const keycode =
    KEYCODES[last] ??
    (/^[a-zA-Z]$/.test(last) ? 29 + last.toLowerCase().charCodeAt(0) - 97 : /^[0-9]$/.test(last) ? 7 + Number(last) : undefined)
  if (keycode === undefined || parts.slice(0, -1).some((m) => META[m] === undefined)) return null
  const metastate = parts.slice(0, -1).reduce((acc, m) => acc | META[m]!, 0)
  return metastate === 0 ? { keycode } : { keycode, metastate }
}

/** Bounds from the dump and from WebDriver name the same pixels; allow a pixel of rounding. */
const sameBox = (a: Box, b: Box): boolean =>
  Math.abs(a.x - b.x) <= 1 && Math.abs(a.y - b.y) <= 1 && Math.abs(a.width - b.width) <= 1 && Math.abs(a.height - b.height) <= 1

/** Actions after which the screen may look different: the web's, plus the system ones. */
export const androidStateChanging: ReadonlySet<Action["kind"]> = new Set([
  "click",
  "long_press",
  "type",
  "scroll",
  "key",
  "back",
  "home",
  "open_app"
])

export type AppTarget =
  | { readonly kind: "activity"; readonly intent: string; readonly appId: string }
  | { readonly kind: "package"; readonly appId: string }

const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/
const ACTIVITY = /^\.?[A-Za-z][A-Za-z0-9_$]*(\.[A-Za-z0-9_$]+)*$/

/** `com.android.settings` (a package) or `com.android.settings/.Settings` (an activity); null for anything else. */
export const appTarget = (app: string): AppTarget | null => {
  const [pkg, activity, ...rest] = app.trim().split("/")
  if (pkg === undefined || !PACKAGE.test(pkg) || rest.length > 0) return null
  if (activity === undefined) return { kind: "package", appId: pkg }
  return ACTIVITY.test(activity) ? { kind: "activity", intent: `${pkg}/${activity}`, appId: pkg } : null
}

type Resolved = { readonly element: ElementInfo } | { readonly error: string }

const resolveTarget = (target: Target | null, ctx: ActionContext, kind: string): Resolved => {
  const id = target?.elementId ?? null
  if (id === null) return { error: `${kind} needs a target element id` }
  if (!/^e\d+$/.test(id)) return { error: `unknown element id ${JSON.stringify(id)}` }
  const element = ctx.current.get(id)
  if (element === undefined) {
    return { error: ctx.issued.has(id) ? `stale element id ${id}: the element is no longer on the screen` : `unknown element id ${id}` }
  }
  return { element }
}

type Aimed = { readonly element: ElementInfo; readonly x: number; readonly y: number } | { readonly error: string }

/** The element and the point to touch it at: the centre of its part on the screen. */
const aim = (target: Target | null, ctx: ActionContext, kind: string): Aimed => {
  const r = resolveTarget(target, ctx, kind)
  if ("error" in r) return r
  const { element } = r
  if (element.box === null || !element.visible) return { error: `element ${element.id} is not visible` }
  const point = tapPoint(element.box, ctx.viewport)
  if (point === null) return { error: `element ${element.id} is off the screen: scroll to it first` }
  return { element, ...point }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `type` with `mode: "insert"`: the text at the field's cursor, through the keyboard
 * (`mobile: type`, Appium Settings' IME), nothing cleared. A target that already has focus
 * is not tapped — a tap moves Android's cursor to the finger — so the cursor the `key` steps
 * placed stays; one without focus is tapped, then its cursor moved to the end, as on the web.
 */
const insert = async (
  device: Device,
  a: { readonly element: ElementInfo; readonly x: number; readonly y: number },
  text: string,
  submit: boolean
): Promise<string | null> => {
  const before = await device.focusedElement()
  const onTarget = before !== null && a.element.box !== null && sameBox(await device.elementRect(before), a.element.box)
  if (!onTarget) {
    await device.performActions([tapActions(a)])
    if ((await device.focusedElement()) === null) return `tapping ${a.element.id} focused no text field: nothing to type into`
    await device.mobile("mobile: pressKey", { keycode: KEYCODES.End, metastate: META.Control })
  }
  await device.mobile("mobile: type", { text })
  if (submit) await device.mobile("mobile: pressKey", { keycode: KEYCODES.Enter })
  return null
}

export const perform = async (device: Device, action: Action, ctx: ActionContext): Promise<string | null> => {
  switch (action.kind) {
    case "click":
    case "long_press": {
      const a = aim(action.target, ctx, action.kind)
      if ("error" in a) return a.error
      await device.performActions([tapActions(a, action.kind === "long_press" ? longPressMs : 0)])
      return null
    }
    case "type": {
      const a = aim(action.target, ctx, action.kind)
      if ("error" in a) return a.error
      const text = typedText(action, ctx.readSecret)
      if (typeof text !== "string") return text.error
      if (action.mode === "insert") return insert(device, a, text, action.submit === true)
      await device.performActions([tapActions(a)])
      // The tap gives the field focus (and may move it when the keyboard opens): type into whatever has focus now.
      const focused = await device.focusedElement()
      if (focused === null) return `tapping ${a.element.id} focused no text field: nothing to type into`
      // Replaces the text, as the web's fill does.
      await device.mobile("mobile: replaceElementValue", { elementId: focused, text })
      if (action.submit === true) await device.mobile("mobile: pressKey", { keycode: KEYCODES.Enter })
      return null
    }
    case "scroll": {
      let area = contentArea(ctx.viewport)
      if (action.target !== null && action.target.elementId !== null) {
        const r = resolveTarget(action.target, ctx, action.kind)
        if ("error" in r) return r.error
        if (r.element.box === null) return `element ${r.element.id} is not visible`
        area = r.element.box
      }
      const { from, to } = scrollSwipe(action.direction, area, ctx.viewport)
      await device.performActions([swipeActions(from, to)])
      return null
    }
    case "key": {
      const pressed = androidKey(action.key)
      if (pressed === null) {
        return `key ${JSON.stringify(action.key)} is not available on Android (known: ${Object.keys(KEYCODES).join(", ")}, letters and digits, with Control, Shift, Alt, Meta)`
      }
      await device.mobile("mobile: pressKey", pressed)
      return null
    }
    case "back":
      await device.back()
      return null
    case "home":
      await device.mobile("mobile: pressKey", { keycode: HOME_KEYCODE })
      return null
    case "open_app": {
      const app = appTarget(action.app)
      if (app === null)
        return `open_app needs a package (com.example.app) or an activity (com.example.app/.MainActivity), got ${JSON.stringify(action.app)}`
      if (app.kind === "activity") await device.mobile("mobile: startActivity", { intent: app.intent, wait: true })
      else await device.mobile("mobile: activateApp", { appId: app.appId })
      return null
    }
    case "wait":
      await sleep(Math.min(action.ms, maxWaitMs))
      return null
    case "select":
      return "select is not available on Android: click the dropdown, then click the option"
    case "navigate":
      return "navigate is not available on the Android device platform: open an app with open_app"
    case "answer":
    case "status":
      return null
  }
}
