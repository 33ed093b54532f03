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
 * const program = Effect.gen(function*() {
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
import { remote } from "webdriverio"
import { BlobStore } from "@core/blobstore"
import type { ElementInfo, EnvTask, EnvironmentShape, EpisodeSource, ScreenshotPolicy } from "@core/env-web"
import { defaultElementLimit, endEpisode, Environment, InfraError, maxWaitMs, oneLine, storeObservation } from "@core/env-web"
import type { Action } from "@core/events"
import type { Device } from "./AppiumActions.ts"
import { androidStateChanging, appTarget, HOME_KEYCODE, perform } from "./AppiumActions.ts"
import type { Viewport } from "./Gestures.ts"
import type { IdState } from "./PageSource.ts"
import { foregroundPackage, freshIds, maskedHierarchy, parsePageSource } from "./PageSource.ts"

export interface AppiumOptions {
  /** Default "http://127.0.0.1:4723" (config `android.appiumUrl`); an episode from `episodes` names its own. */
  readonly appiumUrl?: string
  /** Opens episodes of tasks given as `site` + `siteSeed`: an app pack's leases, each naming its Appium server. */
  readonly episodes?: EpisodeSource
  /** Over `baseCapabilities` (config `android.capabilities`): `appium:udid`, `appium:appPackage`, … */
  readonly capabilities?: Readonly<Record<string, unknown>>
  /** Default "all". */
  readonly screenshots?: ScreenshotPolicy
  /** Per device command, default 10000 ms: a slower action is an error observation. */
  readonly actionTimeoutMs?: number
  /** Pause after a state-changing action before observing, default 500 ms (UiAutomator then waits for idle itself). */
  readonly settleMs?: number
  /** Bound on creating a session, default 120000 ms: the first one installs the UiAutomator2 server. */
  readonly sessionTimeoutMs?: number
  /** Elements in the policy view, default 150. */
  readonly elementLimit?: number
}

/** What every session asks for; the configured capabilities override it. */
export const baseCapabilities: Readonly<Record<string, unknown>> = {
  platformName: "Android",
  "appium:automationName": "UiAutomator2",
  // A policy may think for minutes between steps; Appium's default drops the session after 60 s.
  "appium:newCommandTimeout": 600,
  // BiDi would be a second channel to keep in step; Appium speaks classic WebDriver.
  "wdio:enforceWebDriverClassic": true
}

export const capabilitiesFor = (configured: Readonly<Record<string, unknown>> = {}): Record<string, unknown> => ({
  ...baseCapabilities,
  ...configured
})

export interface Connection {
  readonly protocol: "http" | "https"
  readonly hostname: string
  readonly port: number
  readonly path: string
}

/** `http://127.0.0.1:4723/wd/hub` → WebdriverIO's connection options; null for anything that is not an http(s) URL. */
export const connectionOf = (url: string): Connection | null => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null
  const protocol = parsed.protocol === "https:" ? "https" : "http"
  return {
    protocol,
    hostname: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port === "" ? (protocol === "https" ? 443 : 80) : Number(parsed.port),
    path: parsed.pathname === "" ? "/" : parsed.pathname
  }
}

/**
 * The server's own words, in one line: WebdriverIO wraps them as
 * `WebDriverError: <message> when running "<url>" with method "POST"`.
 */
export const serverMessage = (cause: unknown): string => {
  const raw = cause instanceof Error ? cause.message : String(cause)
  const first = raw.split("\n").find((l) => l.trim() !== "") ?? ""
  return oneLine(first.replace(/^(WebDriverError|Error|UnknownError|SessionNotCreatedError):\s*/i, "").replace(/ when running "[^"]*" with method "[A-Z]+"\s*$/, ""))
}

/** Why a session could not be created, as the one line an `InfraError` carries. */
export const sessionFailure = (url: string, cause: unknown): string => {
  const why = serverMessage(cause)
  const unreachable = /Unable to connect|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|fetch failed|connection refused/i.test(why)
  return `cannot start an Android session at ${url}: ${unreachable
    ? "no Appium server answers there (start one: node node_modules/appium/index.js --address 127.0.0.1 --port 4723)"
    : why}`
}

type Browser = Awaited<ReturnType<typeof remote>>

interface Episode {
  /** The episode opened through the `EpisodeSource`, if any. */
  readonly episode: string | null
  readonly issued: Set<string>
  current: ReadonlyMap<string, ElementInfo>
  ids: IdState
  viewport: Viewport
  done: boolean
}

/** The session, not just the action, is gone: Appium dropped it, the device went away, the server stopped. */
const sessionGone = (cause: unknown): boolean =>
  /invalid session id|session.*(terminated|deleted|does not exist|not found)|ECONNREFUSED|Unable to connect|socket hang up|instrumentation process is not running|UiAutomator2 server.*(crashed|not running)|device .*not found/i
    .test(serverMessage(cause))

const WEB_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

const deviceOf = (b: Browser): Device => ({
  performActions: (actions) => b.performActions(actions as unknown as Parameters<Browser["performActions"]>[0]),
  mobile: (command, args) => b.executeScript(command, [args]),
  back: () => b.back(),
  focusedElement: async () => {
    // WebdriverIO answers "no such element" with the error object rather than throwing.
    const ref = (await b.findElement("xpath", "//*[@focused='true']")) as unknown as Record<string, unknown>
    const id = ref?.[WEB_ELEMENT] ?? ref?.ELEMENT
    return typeof id === "string" ? id : null
  },
  elementRect: (elementId) => b.getElementRect(elementId)
})

/** `package/activity` as Appium reports them; null when it does not say. */
const currentApp = async (b: Browser): Promise<string | null> => {
  const [pkg, activity] = await Promise.all([
    b.executeScript("mobile: getCurrentPackage", []).catch(() => null),
    b.executeScript("mobile: getCurrentActivity", []).catch(() => null)
  ])
  if (typeof pkg !== "string" || pkg === "") return null
  return typeof activity === "string" && activity !== "" ? `${pkg}/${activity}` : pkg
}

const encoder = new TextEncoder()

export const make = Effect.fnUntraced(function*(options: AppiumOptions = {}) {
  const blobs = yield* BlobStore
  const defaultUrl = options.appiumUrl ?? "http://127.0.0.1:4723"
  const source = options.episodes
  const screenshots = options.screenshots ?? "all"
  const timeoutMs = options.actionTimeoutMs ?? 10_000
  const settleMs = options.settleMs ?? 500
  const sessionTimeoutMs = options.sessionTimeoutMs ?? 120_000
  const limit = options.elementLimit ?? defaultElementLimit
  let browser: Browser | null = null
  /** The server `browser`'s session is on. */
  let browserUrl: string | null = null
  let episode: Episode | null = null

  /** A device call bounded by `ms`: a hung server is a timeout, not a hang. */
  const bounded = <A>(what: string, ms: number, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (cause) => cause }).pipe(
      Effect.timeoutOrElse({ duration: ms, orElse: () => Effect.fail(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)) })
    )

  const open = (url: string) => Effect.suspend(() => {
    const connection = connectionOf(url)
    if (connection === null) return Effect.fail(new InfraError({ reason: `cannot start an Android session: ${JSON.stringify(url)} is not an http(s) URL (android.appiumUrl)` }))
    const pending = remote({
      ...connection,
      logLevel: "silent",
      connectionRetryCount: 0,
      connectionRetryTimeout: sessionTimeoutMs,
      capabilities: capabilitiesFor(options.capabilities) as WebdriverIO.Capabilities
    })
    return bounded("session creation", sessionTimeoutMs + 1000, () => pending).pipe(
      // A session that arrives after we gave up would hold the device: end it.
      Effect.tapError(() => Effect.sync(() => void pending.then((b) => b.deleteSession()).catch(() => undefined))),
      Effect.mapError((cause) => new InfraError({ reason: sessionFailure(url, cause) }))
    )
  })

  /** The session on `url`: the open one when it is there, else a new one (the old one ended first). */
  const session = (url: string) => Effect.suspend(() =>
    browser !== null && browserUrl === url
      ? Effect.succeed(browser)
      : Effect.andThen(quit, Effect.tap(open(url), (b) => Effect.sync(() => void ((browser = b), (browserUrl = url))))))

  /** Ends the session; a dead one has nothing left to end. */
  const quit = Effect.suspend(() => {
    const b = browser
    browser = null
    browserUrl = null
    // Bounded without a timer of its own: a pending timer would keep the process alive after the scope closed.
    return b === null
      ? Effect.void
      : Effect.promise(() => b.deleteSession().catch(() => undefined)).pipe(Effect.timeoutOrElse({ duration: 5000, orElse: () => Effect.void }))
  })

  /** Reads the screen and stores its blobs; `error` is the action's complaint, if any. */
  const observe = Effect.fnUntraced(function*(b: Browser, ep: Episode, error: string | null, withScreenshot: boolean, timing: { actionMs: number; settleMs: number }) {
    const started = performance.now()
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
    const screenshot = png === null ? null : new Uint8Array(Buffer.from(png, "base64"))
    const aria = maskedHierarchy(page.tree)
    const elementsBytes = encoder.encode(JSON.stringify({ url: null, app, viewport: page.viewport, rotation: page.tree.rotation, elements: page.elements }))
    return yield* storeObservation(blobs, {
      url: null, app, title: null, elements: page.elements, elementsBytes, aria, screenshot, error, limit, timing, startedAt: started, done: ep.done, episode: ep.episode
    })
  })

  /**
   * Home, then the task's app stopped (its data cleared when the task asks) and opened
   * afresh; resolves to the policy-visible complaint, if any (an app that is not installed),
   * and throws when the device does not answer or the data could not be cleared.
   */
  const prepare = async (b: Browser, task: EnvTask): Promise<string | null> => {
    const device = deviceOf(b)
    await device.mobile("mobile: pressKey", { keycode: HOME_KEYCODE })
    if (task.app === undefined) {
      return task.startUrl === undefined ? null : "the Android device platform opens apps, not URLs: give the task an app (package or package/.Activity)"
    }
    const app = appTarget(task.app)
    if (app === null) return `cannot open ${JSON.stringify(task.app)}: an app is a package (com.example.app) or an activity (com.example.app/.MainActivity)`
    await device.mobile("mobile: terminateApp", { appId: app.appId }).catch(() => undefined)
    if (task.clearAppData === true) {
      // Before the app starts, or it would run on the last episode's data.
      await device.mobile("mobile: clearApp", { appId: app.appId }).catch((cause: unknown) => {
        throw sessionGone(cause) ? cause : new Error(`cannot clear the data of ${app.appId}: ${serverMessage(cause)}`)
      })
    }
    try {
      return await perform(device, { kind: "open_app", app: task.app }, { issued: new Set(), current: new Map(), viewport: { width: 0, height: 0 } })
    } catch (cause) {
      if (sessionGone(cause)) throw cause
      return `open_app failed: ${serverMessage(cause)}`
    }
  }

  const classify = (cause: unknown, kind: string): Effect.Effect<string, InfraError> =>
    sessionGone(cause)
      ? Effect.fail(new InfraError({ reason: `Android session lost during ${kind}: ${serverMessage(cause)}` }))
      : Effect.succeed(`${kind} failed: ${serverMessage(cause)}`)

  const close = () =>
    Effect.suspend(() => {
      const ep = episode
      episode = null
      return endEpisode(source, ep?.episode)
    })

  /** The episode's own server from the source, or the configured one. */
  const openEpisode = (task: EnvTask) =>
    Effect.gen(function*() {
      if (task.startUrl !== undefined || task.site === undefined || task.siteSeed === undefined || source === undefined) return { episode: null, url: defaultUrl }
      const opened = yield* Effect.tryPromise({
        try: () => source.open(task.site!, task.siteSeed!, task.startPath),
        catch: (cause) => new InfraError({ reason: `cannot open a ${task.site} episode: ${serverMessage(cause)}` })
      })
      if (opened.serverUrl === undefined) {
        yield* Effect.promise(() => source.discard(opened.episode).catch(() => undefined))
        return yield* new InfraError({ reason: `cannot open a ${task.site} episode: its source names no Appium server (serverUrl)` })
      }
      return { episode: opened.episode, url: opened.serverUrl }
    })

  const reset = Effect.fn("AppiumEnvironment.reset")(function*(task: EnvTask) {
    yield* close()
    const opened = yield* openEpisode(task)
    const ep: Episode = { episode: opened.episode, issued: new Set(), current: new Map(), ids: freshIds, viewport: { width: 0, height: 0 }, done: false }
    // Set before anything can fail, so that a failed reset gives the source's episode back.
    episode = ep
    const started = performance.now()
    const attempt = Effect.flatMap(session(opened.url), (b) =>
      Effect.map(bounded("reset", timeoutMs * 3, () => prepare(b, task)), (error) => ({ b, error })))
    const { b, error } = yield* attempt.pipe(
      // A session Appium dropped between episodes is reopened once.
      Effect.catch((cause) => (cause instanceof InfraError || !sessionGone(cause) ? Effect.fail(cause) : Effect.andThen(quit, attempt))),
      Effect.mapError((cause) => (cause instanceof InfraError ? cause : new InfraError({ reason: `cannot start the episode: ${serverMessage(cause)}` })))
    )
    const actionMs = Math.round(performance.now() - started)
    yield* Effect.sleep(settleMs)
    return yield* observe(b, ep, error, screenshots !== "none", { actionMs, settleMs })
  }, Effect.tapError(() => close()))

  const step = Effect.fn("AppiumEnvironment.step")(function*(action: Action) {
    const ep = episode
    const b = browser
    if (ep === null || b === null) return yield* new InfraError({ reason: "no episode in progress: call reset first" })
    const noTiming = { actionMs: 0, settleMs: 0 }
    if (ep.done) return yield* observe(b, ep, "the episode has ended (answer or status was given)", false, noTiming)
    const started = performance.now()
    const budget = timeoutMs + (action.kind === "wait" ? Math.min(action.ms, maxWaitMs) : 1000)
    const error = yield* bounded(action.kind, budget, () => perform(deviceOf(b), action, { issued: ep.issued, current: ep.current, viewport: ep.viewport })).pipe(
      Effect.catch((cause) => classify(cause, action.kind))
    )
    const actionMs = Math.round(performance.now() - started)
    if (action.kind === "answer" || action.kind === "status") ep.done = true
    const changed = androidStateChanging.has(action.kind) && error === null
    if (changed) yield* Effect.sleep(settleMs)
    const withScreenshot = screenshots === "all" || (screenshots === "key" && androidStateChanging.has(action.kind))
    return yield* observe(b, ep, error, withScreenshot, { actionMs, settleMs: changed ? settleMs : 0 })
  })

  yield* Effect.addFinalizer(() => Effect.andThen(close(), quit))

  return Environment.of({ reset, step, close }) satisfies EnvironmentShape
})

export const layer = (options: AppiumOptions = {}): Layer.Layer<Environment, never, BlobStore> =>
  Layer.effect(Environment, make(options))
