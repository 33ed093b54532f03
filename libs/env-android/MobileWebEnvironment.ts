/**
 * Mobile web: the `Environment` on WebDriver (WebdriverIO 9, classic protocol) against
 * Debian's `/usr/bin/chromedriver` driving `/usr/bin/chromium` in Chrome's mobile
 * emulation — a phone viewport, a mobile user agent and touch input. The same driver code
 * that talks to Appium talks to chromedriver here, so this is the WebDriver path a device
 * run takes, on a platform that exists on these machines.
 *
 * One browser session per environment (worker); each episode gets a new window (its own
 * history, so `back` cannot leave the episode) with the cookies and storage of the last
 * one cleared (MobileWebSession.ts). Taps are touches at the element's centre, as a finger
 * would make them (see `tap`); element discovery, ids and the policy view are the web
 * environment's (`extractInPage` runs through `execute`), so a page gives the same element
 * list on both web platforms and label functions read both alike. The aria blob is the
 * page's text outline in the aria snapshot's shape (Outline.ts): Playwright's accessibility
 * tree is not available over WebDriver. The episode lifecycle is @core/environment's runner.
 *
 * @example
 * const env = yield* MobileWebEnvironment.make({ screenshots: "key", episodes: episodeSource(sites) })
 * const first = yield* env.reset({ taskId: "shop-open-category-1", site: "shop", siteSeed: 1 })
 */
import { Effect, Layer } from "effect"
import type { BlobStore } from "@core/blobstore"
import { ActionTimeout, Environment, InfraError, makeEnvironment, typedText } from "@core/environment"
import type { EnvironmentAdapter, EnvironmentOptions, ReadSecret } from "@core/environment"
import {
  appOrigins,
  elementsBlob,
  isAllowed,
  maskSecrets,
  pageRead,
  refusal,
  scrubExtracted,
  scrubText,
  stateChanging
} from "@core/env-web"
import { perform, recordedAction } from "./MobileWebActions.ts"
import type { Browser } from "./MobileWebActions.ts"
import {
  clearMarks,
  freshWindow,
  leaveErrorPage,
  markedScreenshot,
  messageOf,
  mobileWebSessions,
  readPage,
  sessionGone,
  settlePage
} from "./MobileWebSession.ts"
import type { MobileWebSessions, PageRead, SessionOptions } from "./MobileWebSession.ts"

export { capabilities, PHONE } from "./MobileWebSession.ts"

/** `actionTimeoutMs` (per action and page load) defaults to 5000. */
export interface MobileWebOptions extends EnvironmentOptions, SessionOptions {
  /** Where a `type` by reference finds its value when `episodes` gives none; default the process environment. */
  readonly readSecret?: ReadSecret
  /** Upper bound on waiting for the document to finish loading after an action, default 1000 ms. */
  readonly settleMs?: number
}

interface Episode {
  readonly browser: Browser
  readonly startUrl: string | undefined
  readonly issued: Set<string>
  /** The app's origins (env-web's Origins.ts): the only ones its actions and requests may reach. */
  readonly origins: ReadonlyArray<string>
  /** The last page observed on the app's origins: where a window stranded off them returns to. */
  lastGood: string | null
  nextId: number
  /** Values this episode typed by reference: scrubbed from every read (env-web's Scrub.ts). */
  readonly secrets: Set<string>
  /** The last read showed a secret: WebDriver cannot paint over a box, so no screenshot or marks of it are kept. */
  showsSecret: boolean
}

/**
 * The read with the episode's secrets masked in its elements, outline, title and URL; its
 * screenshot dropped when any of them showed one, since WebDriver has no mask.
 */
const scrubbedRead = <R extends PageRead>(ep: Episode, read: R): R => {
  if (ep.secrets.size === 0) return read
  const { extracted, masked } = scrubExtracted(read.extracted, ep.secrets)
  const outline = scrubText(read.outline, ep.secrets)
  const title = scrubText(read.title, ep.secrets)
  const url = scrubText(read.url, ep.secrets)
  ep.showsSecret = masked.length > 0 || outline !== read.outline || title !== read.title || url !== read.url
  return { ...read, extracted, outline, title, url, png: ep.showsSecret ? null : read.png }
}

/** Episodes whose set-of-marks overlay could not be removed: it is removed before their next read. */
const overlaid = new WeakSet<Episode>()

/** The action's own complaint, unless the window was kept from leaving the app (or stranded off it at the start): then the refusal. */
const refusedOf = (ep: Episode, read: PageRead & { readonly stranded: string | null }, error: string | null): string | null => {
  const offApp = read.url !== "about:blank" && !isAllowed(read.url, ep.origins) ? read.url : null
  const url = read.stranded ?? read.extracted.refused ?? offApp
  return url === null ? error : refusal(url, ep.origins)
}

/** chromedriver as the runner's platform: one session, a fresh window per episode. */
const adapter = (sessions: MobileWebSessions, settleMs: number, readSecret: ReadSecret | undefined): EnvironmentAdapter<Episode> => ({
  name: "MobileWebEnvironment",
  stateChanging,
  describe: messageOf,
  lostLabel: "browser lost",
  open: (task, site) => {
    const startUrl = site?.startUrl ?? task.startUrl
    const origins = appOrigins(startUrl, site?.origins ?? task.origins)
    return Effect.map(
      sessions.session(origins),
      (browser): Episode => ({
        browser,
        startUrl,
        issued: new Set(),
        origins,
        lastGood: null,
        nextId: 1,
        secrets: new Set(),
        showsSecret: false
      })
    )
  },
  start: (ep) =>
    Effect.tryPromise({
      try: () => freshWindow(ep.browser, ep.startUrl, ep.origins),
      catch: (cause) => new InfraError({ reason: `cannot start a mobile-web episode: ${messageOf(cause)}` })
    }).pipe(Effect.tapError(() => sessions.quit)),
  settle: (ep) => Effect.promise(() => settlePage(ep.browser, settleMs)),
  perform: async (ep, action, record) => {
    const recorded = await recordedAction(ep.browser, action)
    record(recorded)
    if (action.kind === "type") {
      // What it types by reference, or a configured secret's value typed in clear, is as secret as a password.
      const typed =
        action.secretEnv === undefined
          ? recorded.kind === "type" && recorded.secretEnv !== undefined
            ? action.text
            : null
          : typedText(action, readSecret)
      if (typeof typed === "string" && typed !== "") ep.secrets.add(typed)
    }
    return perform(ep.browser, action, ep.issued, ep.origins, readSecret)
  },
  read: (ep, withScreenshot, error) =>
    Effect.tryPromise({
      try: async () => {
        if (overlaid.delete(ep)) await clearMarks(ep.browser)
        // No step is observed on the browser's error page: a navigation that got off the app is undone first,
        // and once more should the error page have come in while the page was read.
        let stranded: string | null = null
        for (let attempt = 0; ; attempt++) {
          stranded = (await leaveErrorPage(ep.browser, ep.origins, ep.lastGood)) ?? stranded
          if (stranded !== null) await settlePage(ep.browser, settleMs)
          const read = await readPage(ep.browser, ep.nextId, withScreenshot, ep.origins)
          if (isAllowed(read.url, ep.origins)) ep.lastGood = read.url
          else if (attempt === 0 && ep.lastGood !== null && read.url !== "about:blank") continue
          return { ...scrubbedRead(ep, read), stranded }
        }
      },
      catch: (cause) => new InfraError({ reason: `cannot observe the page: ${messageOf(cause)}` })
    }).pipe(
      Effect.map((read) =>
        pageRead(ep, read, {
          elementsBytes: elementsBlob(read.url, read.extracted),
          aria: maskSecrets(read.outline, read.extracted.secrets),
          // A link, form, redirect or script that tried to leave the app was stopped: say why.
          error: ((e) => (e === null ? null : scrubText(e, ep.secrets)))(refusedOf(ep, read, error))
        })
      )
    ),
  // The desktop's overlay, drawn through `execute` (env-web's Marks.ts says why in the page).
  mark: (ep, marks) =>
    ep.showsSecret
      ? Effect.succeed(null)
      : Effect.tryPromise({
          try: () => {
            overlaid.add(ep)
            return markedScreenshot(ep.browser, marks, (ran) => void (ran && overlaid.delete(ep)))
          },
          catch: (cause) => cause
        }).pipe(
          Effect.catch((cause) =>
            sessionGone(cause) ? Effect.fail(new InfraError({ reason: `cannot mark the page: ${messageOf(cause)}` })) : Effect.succeed(null)
          )
        ),
  unavailable: () => (sessions.current() === null ? "no episode in progress: call reset first" : null),
  isLost: (_, cause) => sessionGone(cause),
  // Only the runner's own budget: chromedriver's errors are the action's failures.
  isTimeout: (cause) => cause instanceof ActionTimeout,
  drop: sessions.quit,
  quit: sessions.quit
})

export const make = Effect.fnUntraced(function* (options: MobileWebOptions = {}) {
  const sessions = yield* mobileWebSessions(options)
  return yield* makeEnvironment(adapter(sessions, options.settleMs ?? 1000, options.episodes?.readSecret ?? options.readSecret), {
    ...options,
    actionTimeoutMs: options.actionTimeoutMs ?? 5000
  })
})

export const layer = (options: MobileWebOptions = {}): Layer.Layer<Environment, never, BlobStore> =>
  Layer.effect(Environment, make(options))
