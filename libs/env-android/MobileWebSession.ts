/**
 * The mobile-web platform's WebDriver side (MobileWebEnvironment): the chromedriver session
 * in Chrome's mobile emulation, confined to the app's origins, a fresh window per episode,
 * settling after an action and reading the page in one round trip.
 *
 * Both binaries are set explicitly: WebdriverIO otherwise downloads a Chrome for Testing
 * and a matching driver.
 *
 * @example
 * const sessions = yield* mobileWebSessions(options)
 * const b = yield* sessions.session(["http://127.0.0.1:4312"])
 * const complaint = await freshWindow(b, "http://127.0.0.1:4312/shop", ["http://127.0.0.1:4312"])
 */
import { accessSync, constants, statSync } from "node:fs"
import { Effect } from "effect"
import type { Scope } from "effect"
import { remote } from "webdriverio"
import { InfraError, oneLine } from "@core/environment"
import type { Mark } from "@core/environment"
import {
  chromiumFlags,
  clearMarksInPage,
  drawMarksInPage,
  extractInPage,
  guardInPage,
  interactableSelector,
  isAllowed,
  openSink,
  proxyBypass,
  refusal
} from "@core/env-web"
import type { Extracted } from "@core/env-web"
import { cdp } from "./MobileWebActions.ts"
import type { Browser } from "./MobileWebActions.ts"
import { outlineInPage } from "./Outline.ts"

/** A phone as Chrome's device toolbar offers it (CSS pixels); pixel ratio 1 keeps screenshots small. */
export const PHONE = {
  width: 412,
  height: 915,
  pixelRatio: 1,
  userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36"
} as const

export interface SessionOptions {
  /** Default `/usr/bin/chromium`. */
  readonly chromium?: string
  /** Default `/usr/bin/chromedriver`. */
  readonly chromedriver?: string
  /** Chromium's page-load and script timeouts, default 5000 ms. */
  readonly actionTimeoutMs?: number
  readonly device?: { readonly width: number; readonly height: number; readonly pixelRatio: number; readonly userAgent: string }
}

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

export const messageOf = (cause: unknown): string => oneLine((cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "")

/** The session or the browser is gone, not just the page unhappy. */
export const sessionGone = (cause: unknown): boolean =>
  /invalid session id|session deleted|chrome not reachable|disconnected|ECONNREFUSED|no such window|target window already closed|session not created/i.test(
    messageOf(cause)
  )

/**
 * One round trip per observation: the elements, title and URL — the offsite guard (env-web's
 * Guard.ts: WebDriver has no init script, but every document is read before it is acted on)
 * — and a mark on the document that says when it starts to unload, which is how `settle` tells a tap that navigates from
 * one that does not (WebDriver's actions return before a navigation they cause begins).
 */
const READ = `return (function(args){
  if (!window.__coreMark) { window.__coreMark = 1; addEventListener('beforeunload', function () { window.__coreLeaving = 1 }) }
  if (args.origins.length > 0) (${guardInPage.toString()})(args.origins);
  var r = (${extractInPage.toString()})(args);
  return { extracted: r, outline: (${outlineInPage.toString()})(), title: document.title, url: location.href } })(arguments[0])`

/** Where a document stands after an action: the observed one, still or leaving, or a new one. */
const PROBE = "return [!!window.__coreMark, !!window.__coreLeaving, document.readyState]"

/** How long an action's navigation may take to begin: a tap's click and a form's submit are a task away. */
const NAVIGATION_GRACE_MS = 40

/** The capabilities of a mobile-emulation session on Debian's Chromium and chromedriver. */
export const capabilities = (
  options: SessionOptions,
  confined?: { readonly origins: ReadonlyArray<string>; readonly sinkPort: number }
) => {
  const device = options.device ?? PHONE
  // Everything but the app's origins goes to a dead-end proxy (loopback too, which Chromium
  // would otherwise never proxy): enforced by Chromium's network stack for links,
  // redirects, frames, fetches, popups and WebSockets alike.
  const proxy =
    confined === undefined
      ? []
      : [
          `--proxy-server=http://127.0.0.1:${confined.sinkPort}`,
          `--proxy-bypass-list=<-loopback>;${proxyBypass(confined.origins).replaceAll(",", ";")}`
        ]
  return {
    browserName: "chrome",
    // BiDi would add a second channel to keep in step; the classic protocol is what Appium speaks too.
    "wdio:enforceWebDriverClassic": true,
    "wdio:chromedriverOptions": { binary: options.chromedriver ?? "/usr/bin/chromedriver" },
    "goog:chromeOptions": {
      binary: options.chromium ?? "/usr/bin/chromium",
      // The window as large as the phone: a smaller one shifts where touches land on the emulated screen.
      args: [
        ...chromiumFlags.map((f) => (f === "--headless" ? "--headless=new" : f)),
        "--disable-dev-shm-usage",
        `--window-size=${device.width},${device.height}`,
        ...proxy
      ],
      mobileEmulation: {
        deviceMetrics: { width: device.width, height: device.height, pixelRatio: device.pixelRatio, touch: true, mobile: true },
        userAgent: device.userAgent
      }
    },
    timeouts: { pageLoad: options.actionTimeoutMs ?? 5000, script: options.actionTimeoutMs ?? 5000, implicit: 0 }
  }
}

export interface MobileWebSessions {
  /** The session confined to `origins`: the open one, else a new one (the browser's proxy is fixed at launch). */
  readonly session: (origins: ReadonlyArray<string>) => Effect.Effect<Browser, InfraError>
  /** The open session, if any. */
  readonly current: () => Browser | null
  /** Ends the session; a dead one has nothing left to end. */
  readonly quit: Effect.Effect<void>
}

/** One browser session at a time; the dead-end proxy port closes with the scope, after the session. */
export const mobileWebSessions = (options: SessionOptions): Effect.Effect<MobileWebSessions, never, Scope.Scope> =>
  Effect.gen(function* () {
    let browser: Browser | null = null
    let confinedTo = ""
    let sink: { readonly port: number; stop(closeActive?: boolean): void } | null = null
    // Registered before the environment's own finalizer, so it runs after the session has quit.
    yield* Effect.addFinalizer(() => Effect.sync(() => sink?.stop(true)))
    const session = (origins: ReadonlyArray<string>) =>
      Effect.tryPromise({
        try: async () => {
          if (browser !== null && confinedTo === JSON.stringify(origins)) return browser
          if (browser !== null) await browser.deleteSession().catch(() => undefined)
          browser = null
          confinedTo = JSON.stringify(origins)
          sink ??= openSink()
          // WebdriverIO reports a missing binary as an unhandled spawn error event, not as a rejection.
          for (const [what, path] of [
            ["chromedriver", options.chromedriver ?? "/usr/bin/chromedriver"],
            ["chromium", options.chromium ?? "/usr/bin/chromium"]
          ]) {
            if (!isExecutable(path!)) throw new Error(`${what} ${path} is not an executable file (bun core doctor)`)
          }
          browser = await remote({
            logLevel: "silent",
            connectionRetryCount: 0,
            connectionRetryTimeout: 60_000,
            capabilities: capabilities(options, { origins, sinkPort: sink.port })
          })
          return browser
        },
        catch: (cause) =>
          new InfraError({
            reason: `cannot start a mobile-web session (chromedriver ${options.chromedriver ?? "/usr/bin/chromedriver"}): ${messageOf(cause)}`
          })
      })
    const quit = Effect.promise(async () => {
      const b = browser
      browser = null
      if (b !== null) await b.deleteSession().catch(() => undefined)
    })
    return { session, current: () => browser, quit }
  })

/**
 * Opens the episode in a fresh window (the last episode's history must not be one `back`
 * away) with the start origin's cookies and storage cleared, and goes to `startUrl`.
 * Resolves to the first observation's complaint; throws when the session is gone.
 */
export const freshWindow = async (b: Browser, startUrl: string | undefined, origins: ReadonlyArray<string>): Promise<string | null> => {
  const old = await b.getWindowHandles()
  await b.deleteAllCookies().catch(() => undefined)
  const fresh = await b.createWindow("tab")
  await b.switchToWindow(fresh.handle)
  for (const h of old) {
    await b.switchToWindow(h)
    await b.closeWindow()
  }
  await b.switchToWindow(fresh.handle)
  if (startUrl === undefined) return "the mobile-web platform needs a startUrl (or a site and siteSeed with an episode source)"
  if (!isAllowed(startUrl, origins)) return refusal(startUrl, origins)
  // Storage outlives windows: the start origin's is cleared before its page can read it.
  await cdp(b, "Storage.clearDataForOrigin", { origin: new URL(startUrl).origin, storageTypes: "all" }).catch(() => undefined)
  try {
    await b.url(startUrl)
  } catch (cause) {
    if (sessionGone(cause)) throw cause
    return `navigate failed: ${messageOf(cause)}`
  }
  return null
}

/**
 * A window stranded off the app (the error page of a navigation the proxy blocked) goes
 * back, else to `lastGood`, the last page observed on the app. Returns where it was
 * stranded, or null when it was on the app (or has nowhere to return to).
 */
export const leaveErrorPage = async (b: Browser, origins: ReadonlyArray<string>, lastGood: string | null): Promise<string | null> => {
  const at = await b.getUrl()
  if (lastGood === null || at === "about:blank" || isAllowed(at, origins)) return null
  await b.back().catch(() => undefined)
  if (!isAllowed(await b.getUrl(), origins)) await b.url(lastGood).catch(() => undefined)
  return at
}

/**
 * Waits, at most `boundMs`, until the action's effect has landed: the observed document
 * stayed (and did not start to unload), or a new one finished loading.
 */
export const settlePage = async (b: Browser, boundMs: number): Promise<void> => {
  const until = performance.now() + boundMs
  await new Promise((resolve) => setTimeout(resolve, NAVIGATION_GRACE_MS))
  while (performance.now() < until) {
    const probe = (await b.execute(PROBE).catch(() => null)) as unknown as [boolean, boolean, string] | null
    if (probe !== null) {
      const [marked, leaving, state] = probe
      if (state === "complete" && !(marked && leaving)) return
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

export interface PageRead {
  readonly extracted: Extracted
  readonly outline: string
  readonly title: string
  readonly url: string
  readonly png: Uint8Array | null
}

const DRAW_MARKS = `return (${drawMarksInPage.toString()})(arguments[0])`
const CLEAR_MARKS = `return (${clearMarksInPage.toString()})()`

/**
 * The screen with `marks` drawn over it by the page (env-web's Marks.ts, the desktop's very
 * overlay), as PNG bytes; null when the document was replaced while the overlay was up.
 * The overlay is removed whatever the screenshot did; `removed(false)`: the removal could
 * not run, so `clearMarks` must run before the next read.
 */
export const markedScreenshot = async (
  b: Browser,
  marks: ReadonlyArray<Mark>,
  removed: (ran: boolean) => void
): Promise<Uint8Array | null> => {
  await b.execute(DRAW_MARKS, marks)
  let png: string
  let cleared = false
  try {
    png = await b.takeScreenshot()
  } finally {
    let ran = true
    cleared =
      (await b.execute(CLEAR_MARKS).catch(() => {
        ran = false
        return false
      })) === true
    removed(ran)
  }
  return cleared ? new Uint8Array(Buffer.from(png, "base64")) : null
}

/** Removes a set-of-marks overlay left on the page; never fails (a page that is gone took it along). */
export const clearMarks = (b: Browser): Promise<void> =>
  b.execute(CLEAR_MARKS).then(
    () => undefined,
    () => undefined
  )

/** The page in one round trip (and its screenshot in a second); a navigation racing the read reads the new document. */
export const readPage = async (b: Browser, nextId: number, withScreenshot: boolean, origins: ReadonlyArray<string>): Promise<PageRead> => {
  let page: Omit<PageRead, "png"> | undefined
  for (let attempt = 0; page === undefined; attempt++) {
    try {
      page = (await b.execute(READ, { selector: interactableSelector, nextId, origins: [...origins] })) as unknown as Omit<PageRead, "png">
    } catch (cause) {
      if (attempt >= 2 || sessionGone(cause)) throw cause
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  const png = withScreenshot ? Buffer.from(await b.takeScreenshot(), "base64") : null
  return { ...page, png: png === null ? null : new Uint8Array(png) }
}
