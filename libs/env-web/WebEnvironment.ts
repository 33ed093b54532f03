/**
 * The web `Environment`: one episode at a time on a fresh browser context from the
 * `BrowserPool`, observations stored as blobs in the `BlobStore`. For episodes in
 * parallel, `make` one environment per worker over the same pool. The episode lifecycle is
 * @core/environment's runner; this is its Playwright adapter (the page itself: Page.ts).
 *
 * @example
 * const program = Effect.gen(function* () {
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
import type { BlobStore } from "@core/blobstore"
import { Environment, InfraError, makeEnvironment } from "@core/environment"
import type { EnvironmentAdapter, EnvironmentOptions } from "@core/environment"
import { perform, recordedSelect, stateChanging } from "./Actions.ts"
import { BrowserPool } from "./BrowserPool.ts"
import { guardOffsite, leaveErrorPage } from "./Guard.ts"
import { clearMarksInPage, markedScreenshot } from "./Marks.ts"
import { appOrigins, isAllowed, refusal } from "./Origins.ts"
import { browserGone, extract, messageOf, saved, settleEpisode, stopLoading, watchedEpisode } from "./Page.ts"
import { pageRead } from "./PageParts.ts"
import type { WebEpisode } from "./Page.ts"
import { playPrelude } from "./Prelude.ts"
import { screenshotMask, scrubText } from "./Scrub.ts"
import { recordedAction } from "./Secrets.ts"
import type { SecretOptions } from "./Secrets.ts"
import { placeBase, placedElementsBlob, snapshot } from "./Snapshot.ts"

/**
 * `actionTimeoutMs` defaults to 5000. With `episodes`, after a reset of a bundled site's
 * episode the next one of the same site and seed is opened, navigated and settled in the
 * background, so the next `reset` of it only observes (a reset of anything else discards it).
 */
export interface WebEnvironmentOptions extends EnvironmentOptions, SecretOptions {
  /** Upper bound on waiting for load / network idle after an action, default 1000 (a task's `pageSettleMs` bounds its ready and DOM-quiet waits). */
  readonly settleMs?: number
  /**
   * Open the next episode of the same site and seed ahead (above); default true. Off when
   * every reset is of another task (an evaluation, one episode per task): each prepared
   * episode would be discarded, and its context and first load cost Chromium as much CPU
   * as a short episode.
   */
  readonly prepareAhead?: boolean
}

/** The action's own complaint, unless the page was kept from leaving the app: then the refusal. */
const refusedOf = (ep: WebEpisode, guarded: string | undefined, error: string | null): string | null => {
  const url = ep.blocked ?? guarded ?? null
  return url === null ? error : refusal(url, ep.origins)
}

const nullableScrub = (text: string | null, secrets: ReadonlySet<string>): string | null =>
  text === null ? null : scrubText(text, secrets)

/** Playwright as the runner's platform: a context per episode, closed with it. */
const adapter = (pool: BrowserPool["Service"], options: WebEnvironmentOptions, timeoutMs: number): EnvironmentAdapter<WebEpisode> => {
  const settleMs = options.settleMs ?? 1000
  // The app's own rule first: a pack's episodes type only what the user allowed that pack.
  const readSecret = options.episodes?.readSecret ?? options.readSecret
  const secrets = readSecret === undefined ? {} : { readSecret }
  /** Episodes whose set-of-marks overlay could not be removed: it is removed before their next read. */
  const overlaid = new WeakSet<WebEpisode>()
  const clearLeftover = async (ep: WebEpisode) => {
    if (!overlaid.has(ep)) return
    overlaid.delete(ep)
    await ep.lease.page.evaluate(clearMarksInPage).catch(() => undefined)
  }
  return {
    name: "WebEnvironment",
    stateChanging,
    describe: messageOf,
    lostLabel: "browser lost",
    open: (task, site) =>
      Effect.gen(function* () {
        const startUrl = site?.startUrl ?? task.startUrl
        const origins = appOrigins(startUrl, site?.origins ?? task.origins)
        const lease = yield* pool.acquire(origins)
        const page = {
          quietMs: task.pageQuietMs ?? 0,
          pageSettleMs: task.pageSettleMs ?? settleMs,
          ready: task.pageReady ?? null,
          saveMs: task.pageSaveMs ?? 0
        }
        const ep = watchedEpisode(lease, { startUrl, origins, ...page, timeoutMs })
        yield* Effect.tryPromise(() => guardOffsite(lease.context, origins)).pipe(
          Effect.mapError((cause) => new InfraError({ reason: `cannot guard the page: ${messageOf(cause)}` })),
          Effect.tapError(() => lease.release)
        )
        const prelude = site?.prelude ?? task.prelude
        if (prelude === undefined) return ep
        const settle = () => settleEpisode(ep, settleMs)
        yield* playPrelude(prelude, { page: lease.page, origins, timeoutMs, settle, typedSecrets: ep.secrets, ...secrets }).pipe(
          Effect.tapError(() => lease.release)
        )
        // A navigation the log-in had refused is not the episode's to report.
        ep.blocked = null
        ep.preluded = true
        return ep
      }),
    start: (ep) =>
      Effect.tryPromise({
        try: async () => {
          if (ep.startUrl === undefined) return "the web platform needs a startUrl (or a site and siteSeed with an episode source)"
          if (!isAllowed(ep.startUrl, ep.origins)) return refusal(ep.startUrl, ep.origins)
          // A log-in that ended on the start page has loaded it already: an app that opens its data on every load pays that once.
          if (ep.preluded && ep.lease.page.url() === new URL(ep.startUrl).href) return null
          await ep.lease.page.goto(ep.startUrl, { timeout: timeoutMs, waitUntil: "domcontentloaded" })
          return null
        },
        catch: (cause) => cause
      }),
    settle: (ep) => Effect.promise(() => settleEpisode(ep, settleMs)),
    // A page's first accessibility-tree read costs several times the later ones; pay it in the background. Read-only: the page is untouched.
    warm: (ep) => Effect.promise(() => ep.lease.page.ariaSnapshot({ timeout: timeoutMs }).catch(() => undefined)),
    perform: async (ep, action, record) => {
      ep.blocked = null
      const recorded = await recordedSelect(ep.lease.page, await recordedAction(ep.lease.page, action, options))
      record(recorded)
      // A configured secret's value typed in clear is recorded by reference: it is as secret as one typed so.
      if (action.kind === "type" && action.secretEnv === undefined && recorded.kind === "type" && recorded.secretEnv !== undefined)
        ep.secrets.add(action.text)
      try {
        const context = { timeoutMs, issued: ep.issued, origins: ep.origins, typedSecrets: ep.secrets, ...secrets }
        return await perform(ep.lease.page, action, context)
      } finally {
        ep.actedAt = performance.now()
      }
    },
    read: (ep, withScreenshot, error) =>
      Effect.tryPromise({
        try: async () => {
          await clearLeftover(ep)
          // No step is observed on the browser's error page: a navigation that got off the app is undone first,
          // and once more should the error page have come in while the page was read.
          for (let attempt = 0; ; attempt++) {
            const guarded = { page: ep.lease.page, origins: ep.origins, lastGood: ep.lastGood }
            if (await leaveErrorPage(guarded, timeoutMs)) await settleEpisode(ep, settleMs)
            const extracted = await extract(ep.lease.page, ep.nextId, settleMs, ep.origins)
            const read = placeBase(ep.base, await snapshot(ep.lease.page, extracted, timeoutMs, withScreenshot, ep.secrets))
            if (isAllowed(read.url, ep.origins)) ep.lastGood = read.url
            else if (attempt === 0 && ep.lastGood !== null) continue
            ep.masked = read.masked
            return read
          }
        },
        catch: (cause) => new InfraError({ reason: `cannot observe the page: ${messageOf(cause)}` })
      }).pipe(
        Effect.map((read) =>
          pageRead(ep, read, {
            elementsBytes: placedElementsBlob(ep.base, read.url, read.extracted),
            aria: read.aria,
            // A link, form, redirect or script that tried to leave the app was stopped: say why. A refused URL may carry a secret.
            error: nullableScrub(refusedOf(ep, read.extracted.refused, error), ep.secrets)
          })
        )
      ),
    mark: (ep, marks) =>
      Effect.tryPromise({
        try: () => {
          overlaid.add(ep)
          const mask = screenshotMask(ep.lease.page, ep.masked, ep.secrets)
          return markedScreenshot(ep.lease.page, marks, timeoutMs, (ran) => void (ran && overlaid.delete(ep)), mask)
        },
        catch: (cause) => cause
      }).pipe(
        // A page that would not be pictured again is no reason to lose the observation: it keeps its plain screenshot.
        Effect.catch((cause) =>
          browserGone(ep, cause)
            ? Effect.fail(new InfraError({ reason: `cannot mark the page: ${messageOf(cause)}` }))
            : Effect.succeed(null)
        )
      ),
    unavailable: (ep) => (browserGone(ep, null) ? "the browser is gone: reset to start over" : null),
    isLost: browserGone,
    isTimeout: (cause) => cause instanceof Error && cause.name === "TimeoutError",
    stop: (ep) => Effect.promise(() => stopLoading(ep.lease.page)),
    // An app that saves in the background (a worker's sync the page's network does not show) gets its `pageSaveMs` first.
    release: (ep) =>
      Effect.andThen(
        Effect.promise(() => saved(ep)),
        ep.lease.release
      )
  }
}

export const make = Effect.fnUntraced(function* (options: WebEnvironmentOptions = {}) {
  const pool = yield* BrowserPool
  const actionTimeoutMs = options.actionTimeoutMs ?? 5000
  // A scripted demo is checked against its site episode after the environment closed: keep it.
  const settings = { ...options, actionTimeoutMs, prepareAhead: options.prepareAhead !== false, keepUnended: true }
  return yield* makeEnvironment(adapter(pool, options, actionTimeoutMs), settings)
})

export const layer = (options: WebEnvironmentOptions = {}): Layer.Layer<Environment, never, BrowserPool | BlobStore> =>
  Layer.effect(Environment, make(options))
