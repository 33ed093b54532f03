/**
 * The `Environment` on a real Android device or emulator: WebdriverIO 9 (classic WebDriver)
 * against an Appium 3 server with the UiAutomator2 driver. An observation is the page
 * source parsed by PageSource.ts (elements, viewport, stable ids) plus a screenshot, stored
 * as blobs like the web's: the elements blob is `{ url: null, app, viewport, rotation,
 * elements }`, the tree blob (the web's aria slot) is the UiAutomator hierarchy with
 * password text masked, and `app` is `package/activity`.
 *
 * Sessions: one Appium session per environment, opened at the first `reset` and kept across
 * episodes (creating one installs and starts the UiAutomator2 server on the device: seconds
 * to a minute). A `reset` presses Home, stops the task's app and opens it afresh; app data
 * is kept unless the task sets `clearAppData`, which clears it (`mobile: clearApp`) before
 * the app opens. `close` ends the episode; the session ends with the environment's scope. A
 * session Appium dropped (e.g. after `appium:newCommandTimeout`) is reopened once by the
 * next reset.
 *
 * With an `EpisodeSource` (an app pack's leases), a task given as `site` + `siteSeed` opens
 * its episode there, and the episode names its Appium server (`serverUrl`): each instance
 * of a pack may run its own. The session moves when the server does; closing the episode
 * gives it back to the source.
 *
 * A session that cannot be created is one `InfraError` line naming the server and the
 * server's own first line (no device, no adb, no server) — never a stack trace or a hang:
 * WebdriverIO does not retry, and the attempt is bounded by `sessionTimeoutMs`.
 *
 * @example
 * const android = androidSettings(config)   // @core/config: appiumUrl, capabilities
 * const program = Effect.gen(function* () {
 *   const env = yield* Environment
 *   const first = yield* env.reset({ taskId: "t", app: "com.android.settings/.Settings" })
 *   const search = first.elements.find((e) => e.role === "button" && e.name === "Search settings")!
 *   yield* env.step({ kind: "click", target: targetOf(search) })
 * })
 * Effect.runPromise(program.pipe(
 *   Effect.provide(AppiumEnvironment.layer({ ...android, screenshots: "key" })),
 *   Effect.provide(DirectoryBlobStore.layer({ dir: ".core/blobs" }))
 * ))
 */
import { Effect, Layer, Result } from "effect"
import type { BlobStore } from "@core/blobstore"
import { Environment, InfraError, makeEnvironment } from "@core/environment"
import type { ElementInfo, EnvironmentAdapter, EnvironmentOptions, ReadSecret } from "@core/environment"
import { androidStateChanging, perform } from "./AppiumActions.ts"
import { appiumSessions, bounded, currentApp, deviceOf, prepareApp, serverMessage, sessionGone } from "./AppiumSession.ts"
import type { AppiumSessions, Browser } from "./AppiumSession.ts"
import type { Viewport } from "./Gestures.ts"
import type { IdState } from "./PageSource.ts"
import { foregroundPackage, freshIds, maskedHierarchy, parsePageSource } from "./PageSource.ts"

export { baseCapabilities, capabilitiesFor, connectionOf, serverMessage, sessionFailure } from "./AppiumSession.ts"
export type { Connection } from "./AppiumSession.ts"

/**
 * `actionTimeoutMs` (per device command) defaults to 10000; `episodes` are an app pack's
 * leases, each naming its Appium server.
 */
export interface AppiumOptions extends EnvironmentOptions {
  /** Where a `type` by reference finds its value when `episodes` gives none; default the process environment. */
  readonly readSecret?: ReadSecret
  /** Default "http://127.0.0.1:4723" (config `android.appiumUrl`); an episode from `episodes` names its own. */
  readonly appiumUrl?: string
  /** Over `baseCapabilities` (config `android.capabilities`): `appium:udid`, `appium:appPackage`, … */
  readonly capabilities?: Readonly<Record<string, unknown>>
  /** Pause after a state-changing action before observing, default 500 ms (UiAutomator then waits for idle itself). */
  readonly settleMs?: number
  /** Bound on creating a session, default 120000 ms: the first one installs the UiAutomator2 server. */
  readonly sessionTimeoutMs?: number
}

interface Episode {
  /** The Appium server the episode runs on: its source's, else the configured one. */
  readonly url: string
  readonly issued: Set<string>
  current: ReadonlyMap<string, ElementInfo>
  ids: IdState
  viewport: Viewport
}

const encoder = new TextEncoder()

/** Appium as the runner's platform: one session, kept across episodes, an app opened afresh per episode. */
const adapter = (sessions: AppiumSessions, options: AppiumOptions, timeoutMs: number): EnvironmentAdapter<Episode> => {
  const readSecret = options.episodes?.readSecret ?? options.readSecret
  const settleMs = options.settleMs ?? 500
  const defaultUrl = options.appiumUrl ?? "http://127.0.0.1:4723"
  /** The session; the runner asks for it only while it is open (`unavailable`). */
  const device = (): Browser => sessions.current()!
  return {
    name: "AppiumEnvironment",
    stateChanging: androidStateChanging,
    // A device settles by waiting, which a refused action does not need.
    settlesAfterError: false,
    describe: serverMessage,
    lostLabel: "Android session lost",
    open: (task, site) =>
      site !== null && site.serverUrl === undefined
        ? Effect.fail(new InfraError({ reason: `cannot open a ${task.site} episode: its source names no Appium server (serverUrl)` }))
        : Effect.succeed({
            url: site?.serverUrl ?? defaultUrl,
            issued: new Set(),
            current: new Map(),
            ids: freshIds,
            viewport: { width: 0, height: 0 }
          }),
    start: (ep, task) => {
      const attempt = Effect.flatMap(sessions.session(ep.url), (b) => bounded("reset", timeoutMs * 3, () => prepareApp(b, task)))
      return attempt.pipe(
        // A session Appium dropped between episodes is reopened once.
        Effect.catch((cause) =>
          cause instanceof InfraError || !sessionGone(cause) ? Effect.fail(cause) : Effect.andThen(sessions.quit, attempt)
        ),
        Effect.mapError((cause) =>
          cause instanceof InfraError ? cause : new InfraError({ reason: `cannot start the episode: ${serverMessage(cause)}` })
        )
      )
    },
    settle: () => Effect.sleep(settleMs),
    perform: (ep, action) =>
      perform(deviceOf(device()), action, {
        issued: ep.issued,
        current: ep.current,
        viewport: ep.viewport,
        ...(readSecret === undefined ? {} : { readSecret })
      }),
    read: (ep, withScreenshot, error) =>
      Effect.gen(function* () {
        const b = device()
        const [xml, png, reported] = yield* bounded("observation", timeoutMs * 2, () =>
          Promise.all([b.getPageSource(), withScreenshot ? b.takeScreenshot() : Promise.resolve(null), currentApp(b)])
        ).pipe(Effect.mapError((cause) => new InfraError({ reason: `cannot observe the device: ${serverMessage(cause)}` })))
        const parsed = parsePageSource(xml, ep.ids)
        if (Result.isFailure(parsed)) return yield* new InfraError({ reason: `cannot observe the device: ${parsed.failure.message}` })
        const page = parsed.success
        ep.ids = { nextId: page.nextId, known: page.known }
        ep.current = new Map(page.elements.map((e) => [e.id, e]))
        ep.viewport = page.viewport
        for (const e of page.elements) ep.issued.add(e.id)
        const app = reported ?? foregroundPackage(page.tree)
        const elementsBytes = encoder.encode(
          JSON.stringify({ url: null, app, viewport: page.viewport, rotation: page.tree.rotation, elements: page.elements })
        )
        const screenshot = png === null ? null : new Uint8Array(Buffer.from(png, "base64"))
        return { url: null, app, title: null, elements: page.elements, elementsBytes, aria: maskedHierarchy(page.tree), screenshot, error }
      }),
    unavailable: () => (sessions.current() === null ? "no episode in progress: call reset first" : null),
    isLost: (_, cause) => sessionGone(cause),
    isTimeout: () => false,
    quit: sessions.quit
  }
}

export const make = (options: AppiumOptions = {}) =>
  Effect.suspend(() => {
    const actionTimeoutMs = options.actionTimeoutMs ?? 10_000
    return makeEnvironment(adapter(appiumSessions(options), options, actionTimeoutMs), { ...options, actionTimeoutMs })
  })

export const layer = (options: AppiumOptions = {}): Layer.Layer<Environment, never, BlobStore> => Layer.effect(Environment, make(options))
