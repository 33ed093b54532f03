/**
 * The Android platform's Appium side (AppiumEnvironment): the session on an Appium server,
 * what a lost session looks like, the server's errors in one line, and an episode's start
 * (Home, the task's app stopped and opened afresh).
 *
 * A session that cannot be created is one `InfraError` line naming the server and the
 * server's own first line (no device, no adb, no server) — never a stack trace or a hang:
 * WebdriverIO does not retry, and the attempt is bounded by `sessionTimeoutMs`.
 *
 * @example
 * const sessions = appiumSessions({ capabilities: { "appium:udid": "emulator-5554" } })
 * const b = yield* sessions.session("http://127.0.0.1:4723")
 * const complaint = await prepareApp(b, { taskId: "t", app: "com.android.settings/.Settings" })
 */
import { Effect } from "effect"
import { remote } from "webdriverio"
import { InfraError, oneLine } from "@core/environment"
import type { EnvTask } from "@core/environment"
import type { Device } from "./AppiumActions.ts"
import { appTarget, HOME_KEYCODE, perform } from "./AppiumActions.ts"

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
  return oneLine(
    first
      .replace(/^(WebDriverError|Error|UnknownError|SessionNotCreatedError):\s*/i, "")
      .replace(/ when running "[^"]*" with method "[A-Z]+"\s*$/, "")
  )
}

/** Why a session could not be created, as the one line an `InfraError` carries. */
export const sessionFailure = (url: string, cause: unknown): string => {
  const why = serverMessage(cause)
  const unreachable = /Unable to connect|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|fetch failed|connection refused/i.test(why)
  return `cannot start an Android session at ${url}: ${
    unreachable ? "no Appium server answers there (start one: node node_modules/appium/index.js --address 127.0.0.1 --port 4723)" : why
  }`
}

export type Browser = Awaited<ReturnType<typeof remote>>

/** The session, not just the action, is gone: Appium dropped it, the device went away, the server stopped. */
export const sessionGone = (cause: unknown): boolean =>
  /invalid session id|session.*(terminated|deleted|does not exist|not found)|ECONNREFUSED|Unable to connect|socket hang up|instrumentation process is not running|UiAutomator2 server.*(crashed|not running)|device .*not found/i.test(
    serverMessage(cause)
  )

const WEB_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

export const deviceOf = (b: Browser): Device => ({
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
export const currentApp = async (b: Browser): Promise<string | null> => {
  const [pkg, activity] = await Promise.all([
    b.executeScript("mobile: getCurrentPackage", []).catch(() => null),
    b.executeScript("mobile: getCurrentActivity", []).catch(() => null)
  ])
  if (typeof pkg !== "string" || pkg === "") return null
  return typeof activity === "string" && activity !== "" ? `${pkg}/${activity}` : pkg
}

/** A device call bounded by `ms`: a hung server is a timeout, not a hang. */
export const bounded = <A>(what: string, ms: number, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (cause) => cause }).pipe(
    Effect.timeoutOrElse({ duration: ms, orElse: () => Effect.fail(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)) })
  )

export interface AppiumSessions {
  /** The session on `url`: the open one when it is there, else a new one (the old one ended first). */
  readonly session: (url: string) => Effect.Effect<Browser, InfraError>
  /** The open session, if any. */
  readonly current: () => Browser | null
  /** Ends the session; a dead one has nothing left to end. */
  readonly quit: Effect.Effect<void>
}

/** One Appium session at a time, following the server an episode names. */
export const appiumSessions = (options: {
  readonly capabilities?: Readonly<Record<string, unknown>>
  readonly sessionTimeoutMs?: number
}): AppiumSessions => {
  const sessionTimeoutMs = options.sessionTimeoutMs ?? 120_000
  let browser: Browser | null = null
  /** The server `browser`'s session is on. */
  let browserUrl: string | null = null

  const open = (url: string) =>
    Effect.suspend(() => {
      const connection = connectionOf(url)
      if (connection === null)
        return Effect.fail(
          new InfraError({ reason: `cannot start an Android session: ${JSON.stringify(url)} is not an http(s) URL (android.appiumUrl)` })
        )
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

  const quit = Effect.suspend(() => {
    const b = browser
    browser = null
    browserUrl = null
    // Bounded without a timer of its own: a pending timer would keep the process alive after the scope closed.
    return b === null
      ? Effect.void
      : Effect.promise(() => b.deleteSession().catch(() => undefined)).pipe(
          Effect.timeoutOrElse({ duration: 5000, orElse: () => Effect.void })
        )
  })

  const session = (url: string) =>
    Effect.suspend(() =>
      browser !== null && browserUrl === url
        ? Effect.succeed(browser)
        : Effect.andThen(
            quit,
            Effect.tap(open(url), (b) => Effect.sync(() => void ((browser = b), (browserUrl = url))))
          )
    )

  return { session, current: () => browser, quit }
}

/**
 * Home, then the task's app stopped (its data cleared when the task asks) and opened
 * afresh; resolves to the policy-visible complaint, if any (an app that is not installed),
 * and throws when the device does not answer or the data could not be cleared.
 */
export const prepareApp = async (b: Browser, task: EnvTask): Promise<string | null> => {
  const device = deviceOf(b)
  await device.mobile("mobile: pressKey", { keycode: HOME_KEYCODE })
  if (task.app === undefined) {
    return task.startUrl === undefined
      ? null
      : "the Android device platform opens apps, not URLs: give the task an app (package or package/.Activity)"
  }
  const app = appTarget(task.app)
  if (app === null)
    return `cannot open ${JSON.stringify(task.app)}: an app is a package (com.example.app) or an activity (com.example.app/.MainActivity)`
  await device.mobile("mobile: terminateApp", { appId: app.appId }).catch(() => undefined)
  if (task.clearAppData === true) {
    // Before the app starts, or it would run on the last episode's data.
    await device.mobile("mobile: clearApp", { appId: app.appId }).catch((cause: unknown) => {
      throw sessionGone(cause) ? cause : new Error(`cannot clear the data of ${app.appId}: ${serverMessage(cause)}`)
    })
  }
  try {
    return await perform(
      device,
      { kind: "open_app", app: task.app },
      { issued: new Set(), current: new Map(), viewport: { width: 0, height: 0 } }
    )
  } catch (cause) {
    if (sessionGone(cause)) throw cause
    return `open_app failed: ${serverMessage(cause)}`
  }
}
