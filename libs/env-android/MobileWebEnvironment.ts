/**
 * Mobile web: the `Environment` on WebDriver (WebdriverIO 9, classic protocol) against
 * Debian's `/usr/bin/chromedriver` driving `/usr/bin/chromium` in Chrome's mobile
 * emulation — a phone viewport, a mobile user agent and touch input. The same driver code
 * that talks to Appium talks to chromedriver here, so this is the WebDriver path a device
 * run takes, on a platform that exists on these machines.
 *
 * Both binaries are set explicitly: WebdriverIO otherwise downloads a Chrome for Testing
 * and a matching driver. One browser session per environment (worker); each episode gets
 * a new window (its own history, so `back` cannot leave the episode) with the cookies and
 * storage of the last one cleared. Taps are touches at the element's centre, as a finger
 * would make them (see `tap`); element discovery, ids and the policy view are the web
 * environment's (`extractInPage` runs through `execute`), so a page gives the same element
 * list on both web platforms and label functions read both alike. The aria blob is the
 * page's text outline in the aria snapshot's shape (Outline.ts): Playwright's accessibility
 * tree is not available over WebDriver.
 *
 * @example
 * const env = yield* MobileWebEnvironment.make({ screenshots: "key", episodes: episodeSource(sites) })
 * const first = yield* env.reset({ taskId: "shop-open-category-1", site: "shop", siteSeed: 1 })
 */
import { accessSync, constants, statSync } from "node:fs"
import { Effect, Layer } from "effect"
import { remote } from "webdriverio"
import { BlobStore } from "@core/blobstore"
import type { Action } from "@core/events"
import {
  appOrigins, chromiumFlags, defaultElementLimit, elementsBlob, endEpisode, Environment, extractInPage, InfraError, interactableSelector, maskSecrets, isAllowed, maxWaitMs, oneLine, openSink, proxyBypass, refusal,
  stateChanging, storeObservation
} from "@core/env-web"
import type { EnvTask, EnvironmentShape, EpisodeSource, Extracted, ScreenshotPolicy } from "@core/env-web"
import { cdp, perform, recordedAction } from "./MobileWebActions.ts"
import type { Browser } from "./MobileWebActions.ts"
import { outlineInPage } from "./Outline.ts"

/** A phone as Chrome's device toolbar offers it (CSS pixels); pixel ratio 1 keeps screenshots small. */
export const PHONE = {
  width: 412,
  height: 915,
  pixelRatio: 1,
  userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36"
} as const

export interface MobileWebOptions {
  /** Default "all". */
  readonly screenshots?: ScreenshotPolicy
  /** Default `/usr/bin/chromium`. */
  readonly chromium?: string
  /** Default `/usr/bin/chromedriver`. */
  readonly chromedriver?: string
  /** Per action and page load, default 5000 ms. */
  readonly actionTimeoutMs?: number
  /** Upper bound on waiting for the document to finish loading after an action, default 1000 ms. */
  readonly settleMs?: number
  readonly elementLimit?: number
  readonly episodes?: EpisodeSource
  readonly device?: { readonly width: number; readonly height: number; readonly pixelRatio: number; readonly userAgent: string }
}

interface Episode {
  readonly episode: string | null
  readonly issued: Set<string>
  /** The app's origins (env-web's Origins.ts): the only ones its actions and requests may reach. */
  readonly origins: ReadonlyArray<string>
  nextId: number
  done: boolean
}

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

const messageOf = (cause: unknown): string =>
  oneLine((cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "")

/** The session or the browser is gone, not just the page unhappy. */
const sessionGone = (cause: unknown): boolean =>
  /invalid session id|session deleted|chrome not reachable|disconnected|ECONNREFUSED|no such window|target window already closed|session not created/i.test(messageOf(cause))

/**
 * One round trip per observation: the elements, title and URL — and a mark on the document
 * that says when it starts to unload, which is how `settle` tells a tap that navigates from
 * one that does not (WebDriver's actions return before a navigation they cause begins).
 */
const READ = `return (function(args){
  if (!window.__coreMark) { window.__coreMark = 1; addEventListener('beforeunload', function () { window.__coreLeaving = 1 }) }
  var r = (${extractInPage.toString()})(args);
  return { extracted: r, outline: (${outlineInPage.toString()})(), title: document.title, url: location.href } })(arguments[0])`

/** Where a document stands after an action: the observed one, still or leaving, or a new one. */
const PROBE = "return [!!window.__coreMark, !!window.__coreLeaving, document.readyState]"

/** How long an action's navigation may take to begin: a tap's click and a form's submit are a task away. */
const NAVIGATION_GRACE_MS = 40

/** The capabilities of a mobile-emulation session on Debian's Chromium and chromedriver. */
export const capabilities = (options: MobileWebOptions, confined?: { readonly origins: ReadonlyArray<string>; readonly sinkPort: number }) => {
  const device = options.device ?? PHONE
  // Everything but the app's origins goes to a dead-end proxy (loopback too, which Chromium
  // would otherwise never proxy): enforced by Chromium's network stack for links,
  // redirects, frames, fetches, popups and WebSockets alike.
  const proxy = confined === undefined ? [] : [
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
      args: [...chromiumFlags.map((f) => (f === "--headless" ? "--headless=new" : f)), "--disable-dev-shm-usage", `--window-size=${device.width},${device.height}`, ...proxy],
      mobileEmulation: {
        deviceMetrics: { width: device.width, height: device.height, pixelRatio: device.pixelRatio, touch: true, mobile: true },
        userAgent: device.userAgent
      }
    },
    timeouts: { pageLoad: options.actionTimeoutMs ?? 5000, script: options.actionTimeoutMs ?? 5000, implicit: 0 }
  }
}

export const make = Effect.fnUntraced(function*(options: MobileWebOptions = {}) {
  const blobs = yield* BlobStore
  const screenshots = options.screenshots ?? "all"
  const timeoutMs = options.actionTimeoutMs ?? 5000
  const settleMs = options.settleMs ?? 1000
  const limit = options.elementLimit ?? defaultElementLimit
  const source = options.episodes
  let browser: Browser | null = null
  let episode: Episode | null = null

  /** The origins the running session is confined to: the browser's proxy is fixed at launch. */
  let confinedTo = ""
  let sink: { readonly port: number; stop(closeActive?: boolean): void } | null = null
  // Registered first, so it runs after the session has quit.
  yield* Effect.addFinalizer(() => Effect.sync(() => sink?.stop(true)))
  const session = (origins: ReadonlyArray<string>) => Effect.tryPromise({
    try: async () => {
      if (browser !== null && confinedTo === JSON.stringify(origins)) return browser
      if (browser !== null) await browser.deleteSession().catch(() => undefined)
      browser = null
      confinedTo = JSON.stringify(origins)
      sink ??= openSink()
      // WebdriverIO reports a missing binary as an unhandled spawn error event, not as a rejection.
      for (const [what, path] of [["chromedriver", options.chromedriver ?? "/usr/bin/chromedriver"], ["chromium", options.chromium ?? "/usr/bin/chromium"]]) {
        if (!isExecutable(path!)) throw new Error(`${what} ${path} is not an executable file (bun core doctor)`)
      }
      browser = await remote({ logLevel: "silent", connectionRetryCount: 0, connectionRetryTimeout: 60_000, capabilities: capabilities(options, { origins, sinkPort: sink.port }) })
      return browser
    },
    catch: (cause) => new InfraError({ reason: `cannot start a mobile-web session (chromedriver ${options.chromedriver ?? "/usr/bin/chromedriver"}): ${messageOf(cause)}` })
  })

  /** Ends the browser session; a dead one has nothing left to end. */
  const quit = Effect.promise(async () => {
    const b = browser
    browser = null
    episode = null
    if (b !== null) await b.deleteSession().catch(() => undefined)
  })

  const infra = (what: string) => (cause: unknown) => new InfraError({ reason: `${what}: ${messageOf(cause)}` })

  /**
   * Waits, at most `settleMs`, until the action's effect has landed: the observed document
   * stayed (and did not start to unload), or a new one finished loading.
   */
  const settle = (b: Browser) =>
    Effect.promise(async () => {
      const until = performance.now() + settleMs
      await new Promise((resolve) => setTimeout(resolve, NAVIGATION_GRACE_MS))
      while (performance.now() < until) {
        const probe = (await b.execute(PROBE).catch(() => null)) as unknown as [boolean, boolean, string] | null
        if (probe !== null) {
          const [marked, leaving, state] = probe
          if (state === "complete" && !(marked && leaving)) return
        }
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    })

  const observe = Effect.fnUntraced(function*(b: Browser, ep: Episode, error: string | null, withScreenshot: boolean, timing: { actionMs: number; settleMs: number }) {
    const started = performance.now()
    const read = yield* Effect.tryPromise({
      try: async () => {
        let page: { extracted: Extracted; outline: string; title: string; url: string } | undefined
        for (let attempt = 0; page === undefined; attempt++) {
          try {
            page = (await b.execute(READ, { selector: interactableSelector, nextId: ep.nextId })) as unknown as { extracted: Extracted; outline: string; title: string; url: string }
          } catch (cause) {
            // A navigation racing the read: read the new document.
            if (attempt >= 2 || sessionGone(cause)) throw cause
            await new Promise((resolve) => setTimeout(resolve, 100))
          }
        }
        const png = withScreenshot ? Buffer.from(await b.takeScreenshot(), "base64") : null
        return { ...page, png: png === null ? null : new Uint8Array(png) }
      },
      catch: infra("cannot observe the page")
    })
    ep.nextId = read.extracted.nextId
    for (const e of read.extracted.elements) ep.issued.add(e.id)
    // A link or redirect the browser blocked leaves an error page: say why.
    const strayed = error === null && read.url !== "about:blank" && !isAllowed(read.url, ep.origins) ? refusal(read.url, ep.origins) : error
    return yield* storeObservation(blobs, {
      url: read.url, app: null, title: read.title, elements: read.extracted.elements, elementsBytes: elementsBlob(read.url, read.extracted),
      aria: maskSecrets(read.outline, read.extracted.secrets), screenshot: read.png, error: strayed, limit, timing, startedAt: started, done: ep.done, episode: ep.episode
    })
  })

  const close = () =>
    Effect.suspend(() => {
      const ep = episode
      episode = null
      return endEpisode(source, ep?.episode)
    })

  const reset = Effect.fn("MobileWebEnvironment.reset")(function*(task: EnvTask) {
    yield* close()
    const opened = task.startUrl === undefined && task.site !== undefined && task.siteSeed !== undefined && source !== undefined
      ? yield* Effect.tryPromise({ try: () => source.open(task.site!, task.siteSeed!, task.startPath), catch: infra(`cannot open a ${task.site} episode`) })
      : null
    const startUrl = opened?.startUrl ?? task.startUrl
    const ep: Episode = { episode: opened?.episode ?? null, issued: new Set(), origins: appOrigins(startUrl, opened?.origins ?? task.origins), nextId: 1, done: false }
    episode = ep
    const b = yield* session(ep.origins)
    const started = performance.now()
    const error = yield* Effect.tryPromise({
      try: async () => {
        // A fresh window: the last episode's history must not be one `back` away.
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
        if (!isAllowed(startUrl, ep.origins)) return refusal(startUrl, ep.origins)
        // Storage outlives windows: the start origin's is cleared before its page can read it.
        await cdp(b, "Storage.clearDataForOrigin", { origin: new URL(startUrl).origin, storageTypes: "all" }).catch(() => undefined)
        try {
          await b.url(startUrl)
        } catch (cause) {
          if (sessionGone(cause)) throw cause
          return `navigate failed: ${messageOf(cause)}`
        }
        return null
      },
      catch: (cause) => cause
    }).pipe(Effect.catch((cause) => Effect.andThen(quit, Effect.fail(infra("cannot start a mobile-web episode")(cause)))))
    const actionMs = Math.round(performance.now() - started)
    const settled = performance.now()
    yield* settle(b)
    return yield* observe(b, ep, error, screenshots !== "none", { actionMs, settleMs: Math.round(performance.now() - settled) })
  }, Effect.tapError(() => close()))

  const step = Effect.fn("MobileWebEnvironment.step")(function*(action: Action) {
    const ep = episode
    const b = browser
    if (ep === null || b === null) return yield* new InfraError({ reason: "no episode in progress: call reset first" })
    const noTiming = { actionMs: 0, settleMs: 0 }
    if (ep.done) return yield* observe(b, ep, "the episode has ended (answer or status was given)", false, noTiming)
    const started = performance.now()
    let performed: Action = action
    const error = yield* Effect.tryPromise({
      try: async () => {
        performed = await recordedAction(b, action)
        return perform(b, action, ep.issued, ep.origins)
      },
      catch: (cause) => cause
    }).pipe(
      Effect.timeoutOrElse({
        duration: timeoutMs + (action.kind === "wait" ? Math.min(action.ms, maxWaitMs) : 1000),
        orElse: () => Effect.succeed(`${action.kind} timed out after ${timeoutMs} ms`)
      }),
      Effect.catch((cause) =>
        sessionGone(cause)
          ? Effect.andThen(quit, Effect.fail(new InfraError({ reason: `browser lost during ${action.kind}: ${messageOf(cause)}` })))
          : Effect.succeed(`${action.kind} failed: ${messageOf(cause)}`)
      )
    )
    const actionMs = Math.round(performance.now() - started)
    if (action.kind === "answer" || action.kind === "status") ep.done = true
    const settled = performance.now()
    if (stateChanging.has(action.kind)) yield* settle(b)
    const withScreenshot = screenshots === "all" || (screenshots === "key" && stateChanging.has(action.kind))
    const observed = yield* observe(b, ep, error, withScreenshot, { actionMs, settleMs: Math.round(performance.now() - settled) })
    return performed === action ? observed : { ...observed, performed }
  })

  yield* Effect.addFinalizer(() => Effect.andThen(close(), quit))

  return Environment.of({ reset, step, close }) satisfies EnvironmentShape
})

export const layer = (options: MobileWebOptions = {}): Layer.Layer<Environment, never, BlobStore> =>
  Layer.effect(Environment, make(options))
