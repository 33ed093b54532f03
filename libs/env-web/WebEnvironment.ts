/**
 * The web `Environment`: one episode at a time on a fresh browser context from the
 * `BrowserPool`, observations stored as blobs in the `BlobStore`. For episodes in
 * parallel, `make` one environment per worker over the same pool.
 *
 * @example
 * const program = Effect.gen(function*() {
 *   const env = yield* Environment
 *   const obs = yield* env.reset({ taskId: "t", startUrl: "http://127.0.0.1:8080/" })
 *   yield* env.step({ kind: "navigate", url: "http://127.0.0.1:8080/next" })
 * })
 * Effect.runPromise(program.pipe(
 *   Effect.provide(WebEnvironment.layer({ screenshots: "key" })),
 *   Effect.provide(BrowserPool.layer()),
 *   Effect.provide(DirectoryBlobStore.layer({ dir: ".core/blobs" }))
 * ))
 */
import { Effect, Layer } from "effect"
import type { Page, Request } from "playwright-core"
import { BlobStore } from "@core/blobstore"
import type { Action } from "@core/events"
import { perform, stateChanging } from "./Actions.ts"
import type { Lease } from "./BrowserPool.ts"
import { BrowserPool } from "./BrowserPool.ts"
import { extractInPage, interactableSelector } from "./Elements.ts"
import { placeBase, placedElementsBlob, snapshot } from "./Snapshot.ts"
import type { Extracted } from "./Elements.ts"
import { Environment, InfraError, oneLine } from "./Environment.ts"
import type { EnvTask, EnvironmentShape, EpisodeSource, ScreenshotPolicy } from "./Environment.ts"
import { storeObservation } from "./Observation.ts"
import { playPrelude } from "./Prelude.ts"
import { appOrigins, isAllowed, originOf, refusal } from "./Origins.ts"
import { defaultElementLimit } from "./View.ts"
import { recordedAction } from "./Secrets.ts"
import type { SecretOptions } from "./Secrets.ts"

export interface WebEnvironmentOptions extends SecretOptions {
  /** Default "all". */
  readonly screenshots?: ScreenshotPolicy
  /** Per action, default 5000: a slower action is an error observation. */
  readonly actionTimeoutMs?: number
  /** Upper bound on waiting for load / network idle after an action, default 1000. */
  readonly settleMs?: number
  /** Elements in the policy view, default 150. */
  readonly elementLimit?: number
  /**
   * Opens bundled-site episodes for tasks given as `site` + `siteSeed`. After such a reset,
   * the next episode of the same site and seed is opened, navigated and settled in the
   * background, so the next `reset` of it only observes (a reset of anything else discards it).
   */
  readonly episodes?: EpisodeSource
  /**
   * Open the next episode of the same site and seed ahead (above); default true. Off when
   * every reset is of another task (an evaluation, one episode per task): each prepared
   * episode would be discarded, and its context and first load cost Chromium as much CPU
   * as a short episode.
   */
  readonly prepareAhead?: boolean
}

interface Episode {
  readonly lease: Lease
  /** The site episode opened through the `EpisodeSource`, if any. */
  readonly episode: string | null
  readonly issued: Set<string>
  readonly net: Network
  /** The app's origins (Origins.ts): the only ones its actions and requests may reach. */
  readonly origins: ReadonlyArray<string>
  /** The app's `pageQuietMs` (0: none). */
  readonly quietMs: number
  /** The app's own origin (its start URL's), written as a placeholder in what is stored. */
  readonly base: string | null
  /** The last top-level navigation the browser blocked, until the next action. */
  blocked: string | null
  nextId: number
  done: boolean
  crashed: boolean
}

/** A failure that means the browser, not the page, is gone. */
class Infra extends Error {}

const messageOf = (cause: unknown): string =>
  oneLine((cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "")

const browserGone = (episode: Episode, cause: unknown): boolean =>
  cause instanceof Infra ||
  episode.crashed ||
  episode.lease.page.isClosed() ||
  episode.lease.context.browser()?.isConnected() === false ||
  /Target page, context or browser has been closed|Browser has been closed|Target crashed|has disconnected/i
    .test(messageOf(cause))

/** Requests in flight on a page and when the network last did anything: our own, cheaper network-idle. */
interface Network {
  readonly inflight: Set<unknown>
  last: number
}

const track = (page: Page): Network => {
  const net: Network = { inflight: new Set(), last: 0 }
  const done = (request: unknown) => {
    net.inflight.delete(request)
    net.last = performance.now()
  }
  page.on("request", (request) => {
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
    if (now >= until) return
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
  ms <= 0 ? Promise.resolve() : page.evaluate(domQuietInPage, { ms, boundMs }).then(() => undefined, () => undefined)

/** A navigation racing the observation destroys the execution context: wait for the new document and retry. */
const extract = async (page: Page, nextId: number, settleMs: number): Promise<Extracted> => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await page.evaluate(extractInPage, { selector: interactableSelector, nextId })
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
const watchBlocked = (ep: Episode): void => {
  const page = ep.lease.page
  page.on("requestfailed", (request) => {
    if (request.isNavigationRequest() && mainFrameOf(request, page) && !isAllowed(request.url(), ep.origins)) ep.blocked = request.url()
  })
}

/**
 * A navigation still pending after its timeout makes every later evaluate wait for it;
 * stopping it leaves the policy on the page it was on, as a user pressing Esc would.
 */
const stopLoading = async (page: Page): Promise<void> => {
  try {
    const cdp = await page.context().newCDPSession(page)
    await cdp.send("Page.stopLoading").finally(() => cdp.detach().catch(() => undefined))
  } catch {
    // Nothing to stop on a page that is gone; the observation will report it.
  }
}

export const make = Effect.fnUntraced(function*(options: WebEnvironmentOptions = {}) {
  const pool = yield* BrowserPool
  const blobs = yield* BlobStore
  const screenshots = options.screenshots ?? "all"
  const timeoutMs = options.actionTimeoutMs ?? 5000
  const settleMs = options.settleMs ?? 1000
  const limit = options.elementLimit ?? defaultElementLimit
  const source = options.episodes
  let episode: Episode | null = null

  /** Reads the page and stores its blobs; `error` is the action's complaint, if any. */
  const observe = Effect.fnUntraced(function*(
    ep: Episode,
    error: string | null,
    withScreenshot: boolean,
    timing: { actionMs: number; settleMs: number }
  ) {
    const page = ep.lease.page
    const started = performance.now()
    const read = yield* Effect.tryPromise({
      try: async () => {
        const extracted = await extract(page, ep.nextId, settleMs)
        return placeBase(ep.base, { extracted, ...(await snapshot(page, extracted, timeoutMs, withScreenshot)) })
      },
      catch: (cause) => new InfraError({ reason: `cannot observe the page: ${messageOf(cause)}` })
    })
    ep.nextId = read.extracted.nextId
    for (const e of read.extracted.elements) ep.issued.add(e.id)
    // A link, redirect or script that tried to leave the app lands on the browser's error page: say why.
    const strayed = ep.blocked === null ? error : refusal(ep.blocked, ep.origins)
    return yield* storeObservation(blobs, {
      url: read.url, app: null, title: read.title, elements: read.extracted.elements, elementsBytes: placedElementsBlob(ep.base, read.url, read.extracted),
      aria: read.aria, screenshot: read.png, error: strayed, limit, timing, startedAt: started, done: ep.done, episode: ep.episode
    })
  })

  const close = () =>
    Effect.suspend(() => {
      const ep = episode
      episode = null
      if (ep === null) return Effect.void
      const end = ep.episode === null || source?.end === undefined ? Effect.void : Effect.promise(() => source.end!(ep.episode!).catch(() => undefined))
      return Effect.andThen(ep.lease.release, end)
    })

  /** An episode's page, navigated to its start URL and settled; `error` is the navigation's complaint, if any. */
  interface Started {
    readonly ep: Episode
    readonly error: string | null
    readonly timing: { actionMs: number; settleMs: number }
    /** Which reset it can serve when opened ahead of time: site and seed. */
    readonly key: string | null
  }

  const keyOf = (task: EnvTask): string | null =>
    task.startUrl === undefined && task.site !== undefined && task.siteSeed !== undefined && source !== undefined ? `${task.site}#${task.siteSeed}#${task.startPath ?? ""}` : null

  const start = Effect.fnUntraced(function*(task: EnvTask, ahead = false) {
    const site = keyOf(task) === null || source === undefined
      ? null
      : yield* Effect.tryPromise({
        try: () => source.open(task.site!, task.siteSeed!, task.startPath),
        catch: (cause) => new InfraError({ reason: `cannot open a ${task.site} episode: ${messageOf(cause)}` })
      })
    const startUrl = site?.startUrl ?? task.startUrl
    const origins = appOrigins(startUrl, site?.origins ?? task.origins)
    const lease = yield* pool.acquire(origins).pipe(
      Effect.tapError(() => site === null || source === undefined ? Effect.void : Effect.promise(() => source.discard(site.episode).catch(() => undefined)))
    )
    const ep: Episode = { lease, episode: site?.episode ?? null, issued: new Set(), net: track(lease.page), origins, quietMs: task.pageQuietMs ?? 0, base: startUrl === undefined ? null : originOf(startUrl), blocked: null, nextId: 1, done: false, crashed: false }
    watchBlocked(ep)
    lease.page.on("crash", () => {
      ep.crashed = true
    })
    // A modal dialog would block every later action; the policy sees its effect, not the dialog.
    lease.page.on("dialog", (dialog) => void dialog.dismiss().catch(() => undefined))
    lease.page.setDefaultTimeout(timeoutMs)
    const prelude = site?.prelude ?? task.prelude
    if (prelude !== undefined) {
      const quiet = () => settle(lease.page, settleMs, ep.net).then(() => domQuiet(lease.page, ep.quietMs, settleMs))
      const secrets = options.readSecret === undefined ? {} : { readSecret: options.readSecret }
      yield* playPrelude(prelude, { page: lease.page, origins, timeoutMs, settle: quiet, ...secrets }).pipe(Effect.tapError(() => discard(ep)))
      // A navigation the log-in had refused is not the episode's to report.
      ep.blocked = null
    }
    const started = performance.now()
    const error = yield* Effect.tryPromise({
      try: async () => {
        if (startUrl === undefined) return "the web platform needs a startUrl (or a site and siteSeed with an episode source)"
        if (!isAllowed(startUrl, origins)) return refusal(startUrl, origins)
        await lease.page.goto(startUrl, { timeout: timeoutMs, waitUntil: "domcontentloaded" })
        return null
      },
      catch: (cause) => cause
    }).pipe(Effect.catch((cause) => classify(ep, cause, "navigate")), Effect.tapError(() => discard(ep)))
    const actionMs = Math.round(performance.now() - started)
    const settled = performance.now()
    yield* Effect.promise(() => settle(lease.page, settleMs, ep.net).then(() => domQuiet(lease.page, ep.quietMs, settleMs)))
    // A page's first accessibility-tree read costs several times the later ones; pay it in the background. Read-only: the page is untouched.
    if (ahead) yield* Effect.promise(() => lease.page.ariaSnapshot({ timeout: timeoutMs }).catch(() => undefined))
    return { ep, error, timing: { actionMs, settleMs: Math.round(performance.now() - settled) }, key: keyOf(task) } satisfies Started
  })

  /** Frees an episode nobody will use: its context, and its site episode. */
  const discard = (ep: Episode) =>
    Effect.andThen(ep.lease.release, ep.episode === null || source === undefined ? Effect.void : Effect.promise(() => source.discard(ep.episode!).catch(() => undefined)))

  /** The episode opened ahead of time; never fails (null: it could not be opened). */
  let ahead: Promise<Started | null> | null = null

  const takeAhead = (key: string | null) =>
    Effect.gen(function*() {
      const pending = ahead
      ahead = null
      if (pending === null) return null
      const ready = yield* Effect.promise(() => pending)
      if (ready === null) return null
      if (ready.key === key && key !== null && !browserGone(ready.ep, null)) return ready
      yield* discard(ready.ep)
      return null
    })

  const reset = Effect.fn("WebEnvironment.reset")(function*(task: EnvTask) {
    yield* close()
    const key = keyOf(task)
    const started = (yield* takeAhead(key)) ?? (yield* start(task))
    episode = started.ep
    const first = yield* observe(started.ep, started.error, screenshots !== "none", started.timing)
    // Runs while the policy works on this episode: the same task is the likeliest next reset.
    if (key !== null && options.prepareAhead !== false) ahead = Effect.runPromise(start(task, true).pipe(Effect.catch(() => Effect.succeed(null))))
    return first
  }, Effect.tapError(() => close()))

  const classify = (ep: Episode, cause: unknown, kind: string): Effect.Effect<string, InfraError> => {
    if (browserGone(ep, cause)) return Effect.fail(new InfraError({ reason: `browser lost during ${kind}: ${messageOf(cause)}` }))
    if (cause instanceof Error && cause.name === "TimeoutError") {
      return Effect.as(Effect.promise(() => stopLoading(ep.lease.page)), `${kind} timed out after ${timeoutMs} ms`)
    }
    return Effect.succeed(`${kind} failed: ${messageOf(cause)}`)
  }

  const step = Effect.fn("WebEnvironment.step")(function*(action: Action) {
    const ep = episode
    if (ep === null) return yield* new InfraError({ reason: "no episode in progress: call reset first" })
    if (browserGone(ep, null)) return yield* new InfraError({ reason: "the browser is gone: reset to start over" })
    const noTiming = { actionMs: 0, settleMs: 0 }
    if (ep.done) return yield* observe(ep, "the episode has ended (answer or status was given)", false, noTiming)
    const started = performance.now()
    ep.blocked = null
    let performed: Action = action
    const error = yield* Effect.tryPromise({
      try: async () => {
        performed = await recordedAction(ep.lease.page, action, options)
        return perform(ep.lease.page, action, { timeoutMs, issued: ep.issued, origins: ep.origins, ...(options.readSecret ? { readSecret: options.readSecret } : {}) })
      },
      catch: (cause) => cause
    }).pipe(
      // Backstop for calls without their own timeout (keyboard, evaluate on a busy page).
      Effect.timeoutOrElse({
        duration: timeoutMs + (action.kind === "wait" ? Math.min(action.ms, 30_000) : 1000),
        orElse: () => Effect.fail(Object.assign(new Error("timeout"), { name: "TimeoutError" }))
      }),
      Effect.catch((cause) => classify(ep, cause, action.kind))
    )
    const actionMs = Math.round(performance.now() - started)
    if (action.kind === "answer" || action.kind === "status") ep.done = true
    const settled = performance.now()
    if (stateChanging.has(action.kind)) yield* Effect.promise(() => settle(ep.lease.page, settleMs, ep.net).then(() => domQuiet(ep.lease.page, ep.quietMs, settleMs)))
    const withScreenshot = screenshots === "all" || (screenshots === "key" && stateChanging.has(action.kind))
    const observed = yield* observe(ep, error, withScreenshot, { actionMs, settleMs: Math.round(performance.now() - settled) })
    return performed === action ? observed : { ...observed, performed }
  })

  yield* Effect.addFinalizer(() => Effect.andThen(close(), takeAhead(null)))

  return Environment.of({ reset, step, close }) satisfies EnvironmentShape
})

export const layer = (options: WebEnvironmentOptions = {}): Layer.Layer<Environment, never, BrowserPool | BlobStore> =>
  Layer.effect(Environment, make(options))
