/**
 * The action vocabulary's mapping to device commands. No device exists here, so the device
 * is a recorder of the commands it is sent; the screen is a real dump (the ANR dialog and
 * Settings), parsed as the environment parses it.
 */
import { describe, expect, test } from "bun:test"
import { Result } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { Box, ElementInfo } from "@core/environment"
import { longPressMs } from "@core/environment"
import type { Action } from "@core/events"
import { androidKey, appTarget, KEYCODES, perform } from "../AppiumActions.ts"
import type { ActionContext, Device } from "../AppiumActions.ts"
import type { PointerActions } from "../Gestures.ts"
import { parsePageSource } from "../PageSource.ts"

type Sent =
  | { readonly kind: "actions"; readonly actions: ReadonlyArray<PointerActions> }
  | { readonly kind: "mobile"; readonly command: string; readonly args: Record<string, unknown> }
  | { readonly kind: "back" }

/** A device that records what it is sent; `focused` is the field with focus, with where it is. */
const recorder = (focused: string | null = "wd-42", focusedBox: Box = { x: 0, y: 0, width: 1, height: 1 }) => {
  const sent: Array<Sent> = []
  const device: Device = {
    performActions: async (actions) => void sent.push({ kind: "actions", actions }),
    mobile: async (command, args) => void sent.push({ kind: "mobile", command, args }),
    back: async () => void sent.push({ kind: "back" }),
    focusedElement: async () => focused,
    elementRect: async () => focusedBox
  }
  return { device, sent }
}

const screen = (name: string) => {
  const r = parsePageSource(readFileSync(join(import.meta.dir, "fixtures/uiautomator2", `${name}.xml`), "utf8"))
  if (Result.isFailure(r)) throw new Error(r.failure.message)
  return r.success
}

const contextOf = (
  elements: ReadonlyArray<ElementInfo>,
  viewport = { width: 1080, height: 2088 },
  issued: ReadonlyArray<string> = []
): ActionContext => ({
  issued: new Set([...issued, ...elements.map((e) => e.id)]),
  current: new Map(elements.map((e) => [e.id, e])),
  viewport
})

const target = (e: ElementInfo) => ({ role: e.role, name: e.name, elementId: e.id, text: null })
const byName = (elements: ReadonlyArray<ElementInfo>, name: string) => elements.find((e) => e.name === name)!

/** Where a one-finger gesture touched down and lifted. */
const path = (s: Sent | undefined) => {
  if (s?.kind !== "actions") throw new Error(`expected pointer actions, got ${JSON.stringify(s)}`)
  const moves = s.actions[0]!.actions.filter((a) => a.type === "pointerMove")
  const point = (a: Record<string, unknown> | undefined) => ({ x: Number(a?.x), y: Number(a?.y) })
  return { from: point(moves[0]), to: point(moves.at(-1)), actions: s.actions[0]!.actions }
}

describe("touch actions land where the last observation put the element", () => {
  const anr = screen("appium-anr-dialog")
  const ctx = contextOf(anr.elements)

  test("given the ANR dialog, when Close app is clicked, then one touch taps its centre", async () => {
    const { device, sent } = recorder()
    expect(await perform(device, { kind: "click", target: target(byName(anr.elements, "Close app")) }, ctx)).toBeNull()
    expect(sent).toHaveLength(1)
    const tap = path(sent[0])
    expect(tap.from).toEqual({ x: 540, y: 1082 })
    expect(tap.actions.find((a) => a.type === "pause")).toEqual({ type: "pause", duration: 50 })
  })

  test("given Wait, when long-pressed, then the finger is held for the long-press time", async () => {
    const { device, sent } = recorder()
    await perform(device, { kind: "long_press", target: target(byName(anr.elements, "Wait")) }, ctx)
    const press = path(sent[0])
    expect(press.from).toEqual({ x: 540, y: 1214 })
    expect(press.actions.find((a) => a.type === "pause")).toEqual({ type: "pause", duration: longPressMs })
  })

  test("given the chat field, when text is typed and submitted, then it is tapped, its text replaced and Enter pressed", async () => {
    const chat = screen("dump-chat-edittext")
    const field = chat.elements.find((e) => e.role === "textbox")!
    const { device, sent } = recorder("wd-7")
    const action: Action = { kind: "type", target: target(field), text: "hello", submit: true }
    expect(await perform(device, action, contextOf(chat.elements, chat.viewport))).toBeNull()
    expect(path(sent[0]).from).toEqual({ x: 466, y: 2284 })
    expect(sent.slice(1)).toEqual([
      { kind: "mobile", command: "mobile: replaceElementValue", args: { elementId: "wd-7", text: "hello" } },
      { kind: "mobile", command: "mobile: pressKey", args: { keycode: 66 } }
    ])
  })

  test("given the chat field, when text is inserted, then it is typed at the cursor with nothing cleared; a tap only when it lacks focus", async () => {
    const chat = screen("dump-chat-edittext")
    const field = chat.elements.find((e) => e.role === "textbox")!
    const insert: Action = { kind: "type", target: target(field), text: " and more", mode: "insert" }
    const typed: Sent = { kind: "mobile", command: "mobile: type", args: { text: " and more" } }
    // Focused already: the cursor the key steps placed stays where it is.
    const focused = recorder("wd-7", field.box!)
    expect(await perform(focused.device, insert, contextOf(chat.elements, chat.viewport))).toBeNull()
    expect(focused.sent).toEqual([typed])
    // Focus elsewhere: tapped, then the cursor to the end of the text (Control+MOVE_END).
    const elsewhere = recorder("wd-9")
    expect(await perform(elsewhere.device, { ...insert, submit: true }, contextOf(chat.elements, chat.viewport))).toBeNull()
    expect(path(elsewhere.sent[0]).from).toEqual({ x: 466, y: 2284 })
    expect(elsewhere.sent.slice(1)).toEqual([
      { kind: "mobile", command: "mobile: pressKey", args: { keycode: 123, metastate: 0x3000 } },
      typed,
      { kind: "mobile", command: "mobile: pressKey", args: { keycode: 66 } }
    ])
  })

  test("given a tap that focuses nothing, when text is typed, then the policy is told and nothing is typed", async () => {
    const { device, sent } = recorder(null)
    const error = await perform(device, { kind: "type", target: target(byName(anr.elements, "Wait")), text: "x" }, ctx)
    expect(error).toBe("tapping e3 focused no text field: nothing to type into")
    expect(sent).toHaveLength(1)
  })
})

describe("scrolling swipes against the content direction", () => {
  const settings = screen("appium-settings-main")
  const ctx = contextOf(settings.elements, settings.viewport)

  test("given the Settings list, when scrolled down, then the finger moves up inside the list", async () => {
    const list = settings.elements.find((e) => e.role === "scrollable")!
    const { device, sent } = recorder()
    await perform(device, { kind: "scroll", target: target(list), direction: "down" }, ctx)
    const swipe = path(sent[0])
    expect(swipe.from.x).toBe(540)
    expect(swipe.from.y).toBeGreaterThan(swipe.to.y)
    expect(swipe.to.y).toBeGreaterThanOrEqual(66)
  })

  test("given no target, when scrolled up, then the finger moves down across the middle of the screen", async () => {
    const { device, sent } = recorder()
    await perform(device, { kind: "scroll", target: null, direction: "up" }, ctx)
    const swipe = path(sent[0])
    expect(swipe.to.y).toBeGreaterThan(swipe.from.y)
    expect(swipe.from.y).toBeGreaterThan(2088 * 0.1)
    expect(swipe.to.y).toBeLessThan(2088 * 0.9)
  })
})

describe("system actions", () => {
  const ctx = contextOf([])
  const run = async (action: Action) => {
    const { device, sent } = recorder()
    return { error: await perform(device, action, ctx), sent }
  }

  test("given back, home and Enter, when performed, then they are the back command and the key codes 3 and 66", async () => {
    expect((await run({ kind: "back" })).sent).toEqual([{ kind: "back" }])
    expect((await run({ kind: "home" })).sent).toEqual([{ kind: "mobile", command: "mobile: pressKey", args: { keycode: 3 } }])
    expect((await run({ kind: "key", key: "Enter" })).sent).toEqual([
      { kind: "mobile", command: "mobile: pressKey", args: { keycode: 66 } }
    ])
    expect(KEYCODES.Backspace).toBe(67)
  })

  const chords: ReadonlyArray<readonly [string, ReturnType<typeof androidKey>]> = [
    ["End", { keycode: 123 }],
    ["Home", { keycode: 122 }],
    ["Control+End", { keycode: 123, metastate: 0x3000 }],
    ["Control+Home", { keycode: 122, metastate: 0x3000 }],
    ["Shift+End", { keycode: 123, metastate: 0x41 }],
    ["Shift+Home", { keycode: 122, metastate: 0x41 }],
    ["Control+Shift+ArrowLeft", { keycode: 21, metastate: 0x3041 }],
    ["Control+Shift+ArrowRight", { keycode: 22, metastate: 0x3041 }],
    ["ArrowUp", { keycode: 19 }],
    ["Control+a", { keycode: 29, metastate: 0x3000 }],
    ["Hyper+End", null],
    ["F13", null]
  ]
  test.each(chords)("given the key %s, then its key code and meta state are as Android names them", (key, expected) => {
    expect(androidKey(key)).toEqual(expected)
  })

  test("given an unknown key, when pressed, then the error lists the known ones and nothing is sent", async () => {
    const { error, sent } = await run({ kind: "key", key: "F13" })
    expect(error).toStartWith(`key "F13" is not available on Android (known: Enter, Tab, `)
    expect(sent).toEqual([])
  })

  test("given a package or an activity, when opened, then activateApp or startActivity is used", async () => {
    expect((await run({ kind: "open_app", app: "com.android.settings" })).sent).toEqual([
      { kind: "mobile", command: "mobile: activateApp", args: { appId: "com.android.settings" } }
    ])
    expect((await run({ kind: "open_app", app: "com.android.settings/.Settings" })).sent).toEqual([
      { kind: "mobile", command: "mobile: startActivity", args: { intent: "com.android.settings/.Settings", wait: true } }
    ])
    const { error, sent } = await run({ kind: "open_app", app: "Clock" })
    expect(error).toBe(`open_app needs a package (com.example.app) or an activity (com.example.app/.MainActivity), got "Clock"`)
    expect(sent).toEqual([])
  })

  test("given select and navigate, when performed, then each is a clear error and nothing is sent", async () => {
    const select = await run({ kind: "select", target: null, value: "x" })
    expect(select.error).toBe("select is not available on Android: click the dropdown, then click the option")
    const navigate = await run({ kind: "navigate", url: "https://example.com" })
    expect(navigate.error).toBe("navigate is not available on the Android device platform: open an app with open_app")
    expect([...select.sent, ...navigate.sent]).toEqual([])
  })

  test("given answer, status and a short wait, when performed, then nothing is sent", async () => {
    for (const action of [
      { kind: "answer", text: "42" },
      { kind: "status", status: "complete" },
      { kind: "wait", ms: 1 }
    ] as const) {
      expect(await run(action)).toEqual({ error: null, sent: [] })
    }
  })

  test("given app strings, when read as targets, then packages and activities are told apart", () => {
    expect(appTarget("com.example.app")).toEqual({ kind: "package", appId: "com.example.app" })
    expect(appTarget("com.example.app/com.example.app.MainActivity")).toEqual({
      kind: "activity",
      intent: "com.example.app/com.example.app.MainActivity",
      appId: "com.example.app"
    })
    for (const bad of ["Clock", "com.example.app/", "a/b/c", "com.example app", ""]) expect(appTarget(bad)).toBeNull()
  })
})

describe("element ids", () => {
  const anr = screen("appium-anr-dialog")

  test("given an id issued earlier but not on the screen now, when clicked, then it is stale; an id never issued is unknown", async () => {
    const ctx = contextOf(anr.elements.slice(0, 2), undefined, ["e3"])
    const { device, sent } = recorder()
    const stale = { role: "button", name: "Wait", elementId: "e3", text: null }
    expect(await perform(device, { kind: "click", target: stale }, ctx)).toBe("stale element id e3: the element is no longer on the screen")
    expect(await perform(device, { kind: "click", target: { ...stale, elementId: "e99" } }, ctx)).toBe("unknown element id e99")
    expect(await perform(device, { kind: "click", target: { ...stale, elementId: "//button" } }, ctx)).toBe(`unknown element id "//button"`)
    expect(await perform(device, { kind: "click", target: null }, ctx)).toBe("click needs a target element id")
    expect(sent).toEqual([])
  })

  test("given an element entirely off the screen or hidden, when clicked, then nothing is tapped", async () => {
    const below: ElementInfo = { ...anr.elements[1]!, id: "e50", box: { x: 0, y: 2100, width: 100, height: 100 }, inViewport: false }
    const hidden: ElementInfo = { ...anr.elements[1]!, id: "e51", visible: false, inViewport: false }
    const ctx = contextOf([below, hidden])
    const { device, sent } = recorder()
    expect(await perform(device, { kind: "click", target: target(below) }, ctx)).toBe("element e50 is off the screen: scroll to it first")
    expect(await perform(device, { kind: "click", target: target(hidden) }, ctx)).toBe("element e51 is not visible")
    expect(sent).toEqual([])
  })
})
