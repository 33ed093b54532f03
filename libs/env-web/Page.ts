/**
 * A web episode's page as the environment drives it: its own network-idle and DOM-quiet
 * waits, element extraction that survives a racing navigation, the top-level navigations
 * the confined context blocked, and what tells a lost browser from an unhappy page.
 *
 * @example
 * const ep = watchedEpisode(lease, { startUrl, origins, quietMs: 0, pageSettleMs: 1000, ready: null, timeoutMs: 5000 })
 * await lease.page.goto(startUrl)
 * await settleEpisode(ep, 1000)
 * const extracted = await extract(lease.page, ep.nextId, 1000, ep.origins)
 */
import type { Page, Request } from "playwright-core"
import { oneLine } from "@core/environment"
import type { Lease } from "./BrowserPool.ts"
import { extractInPage, interactableSelector } from "./Elements.ts"
import type { Extracted } from "./Elements.ts"
import { isAllowed, originOf } from "./Origins.ts"

/**
 * Requests in flight on a page and when the network last did anything: our own, cheaper
 * network-idle. `openForGood` holds the URLs of requests that outlasted a whole settle: a
 * shared worker's script, whose end Chromium never reports to the page, or a long poll.
 * Such a request is not waited for again, so it costs an episode one bound, not one per step.
 */
export interface Network {
  readonly inflight: Set<Request>
  readonly openForGood: Set<string>
  last: number
}

export interface WebEpisode {
  readonly lease: Lease
  /** Where the episode starts: the site episode's start URL, else the task's. */
  readonly startUrl: string | undefined
  readonly issued: Set<string>
  readonly net: Network
  /** The app's origins (Origins.ts): the only ones its actions and requests may reach. */
  readonly origins: ReadonlyArray<string>
  /** The app's `pageQuietMs` (0: none). */
  readonly quietMs: number
  /** Upper bound on the ready and DOM-quiet waits: the app's `pageSettleMs`, else the environment's `settleMs`. */
  readonly pageSettleMs: number
  /** The app's `pageReady` selector (null: none). */
  readonly ready: string | null
  /** The app's `pageSaveMs` (0: none): how long the page stays open after the episode's last action. */
  readonly saveMs: number
  /** When the episode's last action was performed (null: none yet). */
  actedAt: number | null
  /** The app's own origin (its start URL's), written as a placeholder in what is stored. */
  readonly base: string | null
  /** The last top-level navigation the browser blocked, until the next action. */
  blocked: string | null
  /** The last page observed on the app's origins: where a page stranded off them returns to (Guard.ts). */
  lastGood: string | null
  nextId: number
  crashed: boolean
  /** A log-in (the task's prelude) was played on the page before the episode started. */
  preluded: boolean
  /** Values typed by reference in this episode and its log-in: masked in all it observes (Scrub.ts). */
  readonly secrets: Set<string>
  /** Elements the last read found showing a secret: the set-of-marks image masks them as the screenshot did. */
  masked: ReadonlyArray<string>
}

export const messageOf = (cause: unknown): string => oneLine((cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "")

/** A failure that means the browser, not the page, is gone. */
export const browserGone = (episode: WebEpisode, cause: unknown): boolean =>
  episode.crashed ||
  episode.lease.page.isClosed() ||
  episode.lease.context.browser()?.isConnected() === false ||
  /Target page, context or browser has been closed|Browser has been closed|Target crashed|has disconnected/i.test(messageOf(cause))

const track = (page: Page): Network => {
  const net: Network = { inflight: new Set(), openForGood: new Set(), last: 0 }
  const done = (request: Request) => {
    if (!net.inflight.delete(request)) return
    net.last = performance.now()
  }
  page.on("request", (request) => {
    if (net.openForGood.has(request.url())) return
    net.inflight.add(request)
    net.last = performance.now()
  })
  page.on("requestfinished", done)
  page.on("requestfailed", done)
  return net
}

/** The network counts as idle once nothing is in flight and nothing started or ended for this long. */
const quietMs = 50

/**
 * Waits for `load`, then for network idle (see `quietMs`), at most `boundMs` in total.
 * Playwright's own "networkidle" always waits a fixed 500 ms; ours returns as soon as the
 * page is loaded and its requests are done and quiet, which after a pure DOM change is at once.
 */
const settle = async (page: Page, boundMs: number, net?: Network): Promise<void> => {
  const until = performance.now() + boundMs
  const left = () => Math.max(1, Math.round(until - performance.now()))
  await page.waitForLoadState("load", { timeout: left() }).catch(() => undefined)
  if (net === undefined) {
    await page.waitForLoadState("networkidle", { timeout: left() }).catch(() => undefined)
    return
  }
  for (;;) {
    const now = performance.now()
    if (now >= until) {
      for (const request of net.inflight) net.openForGood.add(request.url())
      net.inflight.clear()
      return
    }
    const quietFor = now - net.last
    if (net.inflight.size === 0 && quietFor >= quietMs) return
    await new Promise((resolve) => setTimeout(resolve, net.inflight.size === 0 ? Math.min(quietMs - quietFor, until - now) : 10))
  }
}

/** In the page: resolves once no DOM mutation has happened for `ms`, or after `boundMs` in all. */
const domQuietInPage = ({ ms, boundMs }: { ms: number; boundMs: number }) =>
  new Promise<null>((resolve) => {
    // Runs in the page: its globals, not this process's.
    const win: any = globalThis
    let timer: ReturnType<typeof setTimeout> | undefined
    const done = () => {
      observer.disconnect()
      clearTimeout(bound)
      resolve(null)
    }
    const observer = new win.MutationObserver(() => {
      clearTimeout(timer)
      timer = setTimeout(done, ms)
    })
    observer.observe(win.document, { subtree: true, childList: true, attributes: true, characterData: true })
    timer = setTimeout(done, ms)
    const bound = setTimeout(done, boundMs)
  })

/** Waits for the DOM to be quiet for `ms` (see `EnvTask.pageQuietMs`); a page navigating away ends the wait. */
const domQuiet = (page: Page, ms: number, boundMs: number): Promise<void> =>
  ms <= 0
    ? Promise.resolve()
    : page.evaluate(domQuietInPage, { ms, boundMs }).then(
        () => undefined,
        () => undefined
      )

/**
 * Waits until something matches the app's ready selector, across a navigation under way.
 * A page without it (an error page, one the app never marks) costs the whole bound; a
 * selector the page cannot parse waits for nothing.
 */
const readyShown = (page: Page, selector: string | null, boundMs: number): Promise<void> =>
  selector === null
    ? Promise.resolve()
    : page.waitForSelector(selector, { state: "attached", timeout: boundMs }).then(
        () => undefined,
        () => undefined
      )

/**
 * The page after a navigation or an action: loaded and its network quiet (at most `boundMs`,
 * the environment's: a page may hold a request open for good, a worker's script or a long
 * poll, and would cost every observation the app's longer bound), then shown ready and its
 * DOM quiet when the app asks for them, each at most `ep.pageSettleMs`.
 */
export const settleEpisode = async (ep: WebEpisode, boundMs: number): Promise<void> => {
  await settle(ep.lease.page, boundMs, ep.net)
  await readyShown(ep.lease.page, ep.ready, ep.pageSettleMs)
  await domQuiet(ep.lease.page, ep.quietMs, ep.pageSettleMs)
}

/** Resolves once the app's `pageSaveMs` has passed since the episode's last action: at once without one, or on a page already gone. */
export const saved = (ep: WebEpisode): Promise<void> => {
  const left = ep.actedAt === null || browserGone(ep, null) ? 0 : ep.saveMs - (performance.now() - ep.actedAt)
  return left <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, left))
}

/** A navigation racing the observation destroys the execution context: wait for the new document and retry. */
export const extract = async (page: Page, nextId: number, settleMs: number, origins: ReadonlyArray<string>): Promise<Extracted> => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await page.evaluate(extractInPage, { selector: interactableSelector, nextId, origins: [...origins] })
    } catch (cause) {
      if (attempt >= 2 || !/context was destroyed|navigat/i.test(messageOf(cause))) throw cause
      await settle(page, settleMs)
    }
  }
}

/** Whether `request` is for the page's own top frame (a popup's first request has no frame yet). */
const mainFrameOf = (request: Request, page: Page): boolean => {
  try {
    return request.frame() === page.mainFrame()
  } catch {
    return false
  }
}

/**
 * The pool's context already fails requests outside the app's origins (BrowserPool's
 * `confinedProxy`); a top-level one leaves chrome-error:// on the page, so remember where
 * it tried to go for the observation to say.
 */
const watchBlocked = (ep: WebEpisode): void => {
  const page = ep.lease.page
  page.on("requestfailed", (request) => {
    if (request.isNavigationRequest() && mainFrameOf(request, page) && !isAllowed(request.url(), ep.origins)) ep.blocked = request.url()
  })
}

/** A fresh episode on `lease`'s page, watched from its first request on. */
export const watchedEpisode = (
  lease: Lease,
  o: {
    readonly startUrl: string | undefined
    readonly origins: ReadonlyArray<string>
    readonly quietMs: number
    readonly pageSettleMs: number
    readonly ready: string | null
    readonly saveMs?: number
    readonly timeoutMs: number
  }
): WebEpisode => {
  const ep: WebEpisode = {
    lease,
    startUrl: o.startUrl,
    issued: new Set(),
    net: track(lease.page),
    origins: o.origins,
    quietMs: o.quietMs,
    pageSettleMs: o.pageSettleMs,
    ready: o.ready,
    saveMs: o.saveMs ?? 0,
    base: o.startUrl === undefined ? null : originOf(o.startUrl),
    blocked: null,
    lastGood: null,
    nextId: 1,
    crashed: false,
    preluded: false,
    actedAt: null,
    secrets: new Set(),
    masked: []
  }
  watchBlocked(ep)
  lease.page.on("crash", () => {
    ep.crashed = true
  })
  // A modal dialog would block every later action; the policy sees its effect, not the dialog.
  lease.page.on("dialog", (dialog) => void dialog.dismiss().catch(() => undefined))
  lease.page.setDefaultTimeout(o.timeoutMs)
  return ep
}

/**
 * A navigation still pending after its timeout makes every later evaluate wait for it;
 * stopping it leaves the policy on the page it was on, as a user pressing Esc would.
 */
export const stopLoading = async (page: Page): Promise<void> => {
  try {
    const cdp = await page.context().newCDPSession(page)
    await cdp.send("Page.stopLoading").finally(() => cdp.detach().catch(() => undefined))
  } catch {
    // Nothing to stop on a page that is gone; the observation will report it.
  }
}
