/**
 * The action vocabulary on a mobile-web WebDriver session (MobileWebEnvironment): taps as a
 * finger makes them, typing, selecting, scrolling, keys and navigation. `perform` resolves
 * to the policy's error (null when the action went through) and throws only what the
 * environment must classify: WebDriver errors, a lost session.
 */
import type { remote } from "webdriverio"
import type { Action } from "@core/events"
import { maxWaitMs, readEnvSecret, typedText } from "@core/environment"
import type { ReadSecret } from "@core/environment"
import { checkNavigation, knownSecrets, scrollInPage } from "@core/env-web"
import { resolvedSelect, sealTyped } from "@core/events"

export type Browser = Awaited<ReturnType<typeof remote>>

/** Keys as the policy names them (Playwright's names) → WebDriver's key code points. */
const KEYS: Readonly<Record<string, string>> = {
  Enter: "\uE007",
  Tab: "\uE004",
  Escape: "\uE00C",
  Backspace: "\uE003",
  Delete: "\uE017",
  Space: " ",
  ArrowUp: "\uE013",
  ArrowDown: "\uE015",
  ArrowLeft: "\uE012",
  ArrowRight: "\uE014",
  PageUp: "\uE00E",
  PageDown: "\uE00F",
  Home: "\uE011",
  End: "\uE010"
}

const MODIFIERS: Readonly<Record<string, string>> = { Control: "\uE009", Shift: "\uE008", Alt: "\uE00A", Meta: "\uE03D" }

/**
 * A key or chord (`Control+Shift+ArrowLeft`) as WebDriver code points, pressed together and
 * released together by `keys`; null when a part has no code point.
 */
export const keyChord = (key: string): ReadonlyArray<string> | null => {
  // "+" alone, or as the chord's last part ("Control++"), is the plus key.
  const parts = key === "+" ? ["+"] : key.endsWith("++") ? [...key.slice(0, -2).split("+"), "+"] : key.split("+")
  const last = parts.at(-1)!
  const main = KEYS[last] ?? (last.length === 1 ? last : undefined)
  const mods = parts.slice(0, -1).map((m) => MODIFIERS[m])
  return main === undefined || mods.some((m) => m === undefined) ? null : [...(mods as Array<string>), main]
}

/** The longest a tap's click may lag it: the browser's double-tap wait, and some. */
const CLICK_DELAY_MS = 450

/**
 * A Chrome DevTools command through chromedriver's `goog/cdp/execute` endpoint, which the
 * classic protocol has and WebdriverIO does not wrap.
 */
export const cdp = async (b: Browser, cmd: string, params: Record<string, unknown>): Promise<unknown> => {
  const base = `${b.options.protocol ?? "http"}://${b.options.hostname}:${b.options.port}${b.options.path ?? "/"}`.replace(/\/$/, "")
  const response = await fetch(`${base}/session/${b.sessionId}/goog/cdp/execute`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ cmd, params })
  })
  if (!response.ok) throw new Error(`${cmd}: HTTP ${response.status}`)
  return ((await response.json()) as { value: unknown }).value
}

/** The element an action names, or why not: an id issued in this episode that is gone is stale, any other unknown. */
const resolve = async (
  b: Browser,
  id: string | null,
  issued: ReadonlySet<string>,
  kind: string
): Promise<{ readonly el: WebdriverIO.Element } | { readonly error: string }> => {
  if (id === null) return { error: `${kind} needs a target element id` }
  if (!/^e\d+$/.test(id)) return { error: `unknown element id ${JSON.stringify(id)}` }
  const el = await b.$(`[data-core-id="${id}"]`).getElement()
  if (!(await el.isExisting()))
    return { error: issued.has(id) ? `stale element id ${id}: the element is no longer on the page` : `unknown element id ${id}` }
  return { el }
}

/**
 * A finger's tap (or press held for `holdMs`) at the element's centre: a touch start and end
 * through DevTools, from which Chrome makes the click a real tap makes. WebDriver's touch
 * pointer actions (and DevTools' synthesized tap gesture) send the touch events but, here,
 * no click, so a button would never be pressed. Touches land in the visual viewport, which
 * a phone's emulated toolbar offsets from the layout viewport the element's box is in
 * (by 54 px once the page scrolled; chromedriver's own touch actions miss by as much). On a page without a mobile viewport tag the click follows the
 * tap by up to ~300 ms (the browser waits to rule out a double tap), so the tap waits for
 * it — or for the document to start unloading — before the observation reads the page.
 */
const tap = async (b: Browser, el: WebdriverIO.Element, holdMs: number): Promise<void> => {
  const [x, y, clicks] = (await b.execute(
    `var e = arguments[0]; e.scrollIntoView({ block: 'center', inline: 'center' }); var r = e.getBoundingClientRect(), v = visualViewport;
     if (window.__coreClicks === undefined) { window.__coreClicks = 0; addEventListener('click', function () { window.__coreClicks++ }, true) }
     return [(r.left + r.width / 2 - v.offsetLeft) * v.scale, (r.top + r.height / 2 - v.offsetTop) * v.scale, window.__coreClicks]`,
    el
  )) as unknown as [number, number, number]
  await cdp(b, "Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: Math.round(x), y: Math.round(y) }] })
  await new Promise((resolve) => setTimeout(resolve, holdMs > 0 ? holdMs : 50))
  await cdp(b, "Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] })
  const until = performance.now() + CLICK_DELAY_MS
  while (performance.now() < until) {
    const landed = await b
      .execute("return window.__coreClicks === undefined || window.__coreClicks > arguments[0] || !!window.__coreLeaving", clicks)
      .catch(() => true)
    if (landed === true) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** In the page: the index of a select's first option whose value, label or text is `v` (-1 for none); what a select picks and records. */
const OPTION_INDEX =
  "function optionIndex(s, v) { for (var i = 0; i < s.options.length; i++) { var o = s.options[i]; if (o.value === v || o.label === v || o.text.trim() === v) return i } return -1 }"

/**
 * The action as the trajectory records it (env-web's `recordedAction` and `recordedSelect` over
 * WebDriver): text typed into a password field sealed, a select by its option's value. Asked before the action: a submit may leave the page.
 */
export const recordedAction = async (b: Browser, action: Action): Promise<Action> => {
  if (action.kind !== "type" && action.kind !== "select") return action
  const id = action.target?.elementId ?? null
  if (id === null || !/^e\d+$/.test(id)) return action
  if (action.kind === "select") {
    // By the value of the option it picks, as on the web: a label and a value name one choice alike.
    const value: unknown = await b
      .execute(
        `${OPTION_INDEX} var s = document.querySelector('[data-core-id="' + arguments[0] + '"]'); if (!s || s.tagName !== 'SELECT') return null; var i = optionIndex(s, arguments[1]); return i < 0 ? null : s.options[i].value`,
        id,
        action.value
      )
      .catch(() => null)
    return typeof value === "string" ? resolvedSelect(action, value) : action
  }
  const password: unknown = await b.execute(
    "var el = document.querySelector('[data-core-id=\"' + arguments[0] + '\"]'); return !!el && el.tagName === 'INPUT' && String(el.type).toLowerCase() === 'password'",
    id
  )
  return password === true || action.secretEnv !== undefined ? sealTyped(action, knownSecrets({})) : action
}

/** The action vocabulary over WebDriver; resolves to the policy's error, or null. */
export const perform = async (
  b: Browser,
  action: Action,
  issued: ReadonlySet<string>,
  origins: ReadonlyArray<string>,
  readSecret: ReadSecret = readEnvSecret
): Promise<string | null> => {
  switch (action.kind) {
    case "click":
    case "long_press": {
      const r = await resolve(b, action.target?.elementId ?? null, issued, action.kind)
      if ("error" in r) return r.error
      await tap(b, r.el, action.kind === "click" ? 0 : 800)
      return null
    }
    case "type": {
      const r = await resolve(b, action.target?.elementId ?? null, issued, action.kind)
      if ("error" in r) return r.error
      const text = typedText(action, readSecret)
      if (typeof text !== "string") return text.error
      // chromedriver focuses a field that lacks focus with the caret at its end and leaves a
      // focused one's caret and selection as they are: `insert`'s rule, as on the web.
      if (action.mode !== "insert") await r.el.clearValue()
      await r.el.addValue(text)
      if (action.submit === true) await r.el.addValue(KEYS.Enter!)
      return null
    }
    case "select": {
      const r = await resolve(b, action.target?.elementId ?? null, issued, action.kind)
      if ("error" in r) return r.error
      // As on the web: the option's value or its label.
      const chosen: unknown = await b.execute(
        `${OPTION_INDEX} var s = arguments[0], i = optionIndex(s, arguments[1]); if (i < 0) return false; s.selectedIndex = i; s.dispatchEvent(new Event('input', { bubbles: true })); s.dispatchEvent(new Event('change', { bubbles: true })); return true`,
        r.el,
        action.value
      )
      return chosen === true ? null : `no option ${JSON.stringify(action.value)} in the ${action.target?.name ?? "list"}`
    }
    case "scroll": {
      const [dx, dy] =
        action.direction === "up" ? [0, -1] : action.direction === "down" ? [0, 1] : action.direction === "left" ? [-1, 0] : [1, 0]
      const id = action.target?.elementId ?? null
      if (id === null) {
        await b.execute(`(${scrollInPage.toString()})(null, arguments[0])`, { dx, dy, hasElement: false })
        return null
      }
      const r = await resolve(b, id, issued, action.kind)
      if ("error" in r) return r.error
      await b.execute(`(${scrollInPage.toString()})(arguments[0], arguments[1])`, r.el, { dx, dy, hasElement: true })
      return null
    }
    case "key": {
      const chord = keyChord(action.key)
      if (chord === null) return `unknown key ${JSON.stringify(action.key)}`
      await b.keys([...chord])
      return null
    }
    case "navigate": {
      const checked = checkNavigation(action.url, origins, await b.getUrl())
      if ("error" in checked) return checked.error
      await b.url(checked.url)
      return null
    }
    case "back": {
      const before = await b.getUrl()
      await b.back()
      const after = await b.getUrl()
      // The episode's window opened on about:blank: that entry is not a page of the episode.
      if (after.startsWith("about:")) await b.forward()
      return after === before || after.startsWith("about:") ? "there is no previous page to go back to" : null
    }
    case "wait":
      await new Promise((r) => setTimeout(r, Math.min(action.ms, maxWaitMs)))
      return null
    case "home":
    case "open_app":
      return `${action.kind} is not available on the mobile-web platform`
    case "answer":
    case "status":
      return null
  }
}
