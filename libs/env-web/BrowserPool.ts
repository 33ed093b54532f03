/**
 * One shared Chromium per process, launched on first use and relaunched if it died; every
 * episode gets a fresh context (own cookies, storage, cache) and page. The layer closes
 * the browser when it is torn down, so no Chromium outlives its scope.
 *
 * @example
 * const lease = yield* (yield* BrowserPool).acquire()
 * yield* Effect.promise(() => lease.page.goto("http://127.0.0.1:8080/"))
 * yield* lease.release
 * // provided with BrowserPool.layer()
 */
import { existsSync } from "node:fs"
import { Context, Effect, Layer, Semaphore } from "effect"
import { chromium } from "playwright-core"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { InfraError, oneLine } from "@core/environment"
import { proxyBypass } from "./Origins.ts"

/** Debian's `chromium-headless-shell`: Chromium's headless-only build, as Playwright itself runs headless. */
export const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"

/**
 * The Chromium that headless episodes use: Debian's headless shell when it is installed,
 * else Debian's full `chromium` in its new headless mode. The full browser runs its whole
 * UI process and WebUI renderers without a screen: on 2 cores the same 15 held-out
 * episodes took 40 s there and 19 s in the shell, with the same results.
 */
export const headlessChromium = (): string => (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium")

/** The flags every Chromium here runs with: Debian's Chromium, headless, without the background traffic a run must not depend on. */
export const chromiumFlags: ReadonlyArray<string> = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

export interface BrowserPoolOptions {
  readonly executablePath?: string
  readonly viewport?: { readonly width: number; readonly height: number }
  /** Keep one context open in the background so the next `acquire` does not wait for it. Default false. */
  readonly prewarm?: boolean
}

export interface Lease {
  readonly context: BrowserContext
  readonly page: Page
  /** Closes the context; never fails (a dead browser has nothing left to close). */
  readonly release: Effect.Effect<void>
}

export class BrowserPool extends Context.Service<
  BrowserPool,
  {
    /**
     * A fresh context and page. With `origins`, the context's network reaches only those
     * origins (see `confinedProxy`); without, it reaches anything.
     */
    acquire(origins?: ReadonlyArray<string>): Effect.Effect<Lease, InfraError>
    /** How many times Chromium was launched: more than one means it died and was relaunched. */
    readonly launches: Effect.Effect<number>
  }
>()("@core/env-web/BrowserPool") {
  static readonly layer = (options: BrowserPoolOptions = {}): Layer.Layer<BrowserPool> => Layer.effect(BrowserPool, make(options))
}

const infra = (what: string) => (cause: unknown) =>
  new InfraError({ reason: `${what}: ${oneLine(cause instanceof Error ? cause.message : String(cause))}` })

const closeQuietly = (target: { close(): Promise<void> }): Promise<void> => target.close().catch(() => undefined)

/** A local port that closes every connection: where a confined browser's foreign requests end. */
export const openSink = (): { readonly port: number; stop(closeActive?: boolean): void } =>
  Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (socket) => void socket.end(), data: () => undefined } })

/**
 * The proxy settings that confine a context to `origins`: their hosts and ports go direct,
 * everything else (loopback included: Playwright adds `<-loopback>`) to `sink`, a local port
 * that closes every connection. Chromium's network stack applies them to every request of
 * the context — redirects, frames, workers, popups, WebSockets — at no cost per request,
 * where routing through Playwright would pause each request (and cannot see redirects).
 */
const confinedProxy = (origins: ReadonlyArray<string>, sinkPort: number) => ({
  server: `http://127.0.0.1:${sinkPort}`,
  bypass: proxyBypass(origins)
})

export const make = Effect.fnUntraced(function* (options: BrowserPoolOptions) {
  const viewport = options.viewport ?? { width: 1280, height: 800 }
  let browser: Browser | null = null
  let launches = 0
  /** The context opened ahead for the next `acquire`, and the origins it is confined to ("" for none). */
  let spare: { readonly key: string; readonly opened: Promise<{ context: BrowserContext; page: Page }> } | null = null
  let sink: { readonly port: number; stop(closeActive?: boolean): void } | null = null
  const sinkPort = (): number => {
    sink ??= openSink()
    return sink.port
  }
  // Two episodes resetting at once must not launch two browsers.
  const lock = yield* Semaphore.make(1)

  const launch = Effect.tryPromise({
    try: async () => {
      const launched = await chromium.launch({
        executablePath: options.executablePath ?? headlessChromium(),
        args: [...chromiumFlags],
        // Playwright would close the browser on a signal and leave the process running, and
        // the pool would launch another: the command's interruption closes it instead.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false
      })
      launched.on("disconnected", () => {
        if (browser === launched) browser = null
        spare = null
      })
      return launched
    },
    catch: infra("cannot launch chromium")
  })

  const current = lock.withPermits(1)(
    Effect.gen(function* () {
      if (browser !== null && browser.isConnected()) return browser
      browser = yield* launch
      launches++
      return browser
    })
  )

  const open = (b: Browser, origins: ReadonlyArray<string> | undefined) => async () => {
    const context = await b.newContext({ viewport, ...(origins === undefined ? {} : { proxy: confinedProxy(origins, sinkPort()) }) })
    try {
      return { context, page: await context.newPage() }
    } catch (cause) {
      await closeQuietly(context)
      throw cause
    }
  }

  const acquire = Effect.fn("BrowserPool.acquire")(function* (origins?: ReadonlyArray<string>) {
    const b = yield* current
    const key = origins === undefined ? "" : JSON.stringify(origins)
    const warmed = spare
    spare = null
    const reused =
      warmed === null
        ? null
        : yield* Effect.promise(() =>
            warmed.opened.then(
              (o) => o,
              () => null
            )
          )
    let opened: { context: BrowserContext; page: Page }
    // A spare from a browser that died since is useless: open a fresh one instead.
    // A spare confined to other origins is as useless.
    if (reused !== null && warmed!.key === key && reused.context.browser() === b && b.isConnected() && !reused.page.isClosed()) {
      opened = reused
    } else {
      if (reused !== null) yield* Effect.promise(() => closeQuietly(reused.context))
      opened = yield* Effect.tryPromise({ try: open(b, origins), catch: infra("cannot open a browser context") })
    }
    if (options.prewarm === true) {
      const next = open(b, origins)()
      next.catch(() => undefined)
      spare = { key, opened: next }
    }
    return {
      ...opened,
      release: Effect.promise(() => closeQuietly(opened.context))
    } satisfies Lease
  })

  yield* Effect.addFinalizer(() =>
    Effect.promise(async () => {
      const b = browser
      browser = null
      spare = null
      if (b !== null) await closeQuietly(b)
      sink?.stop(true)
      sink = null
    })
  )

  return BrowserPool.of({ acquire, launches: Effect.sync(() => launches) })
})
