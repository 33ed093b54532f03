/**
 * Recording a person's demonstration in a headed Chromium, as steps of the shared action
 * vocabulary with the observation after each, and the page as it opened (`initial`) before
 * them (README "Recording").
 *
 * Capture (Capture.ts) runs in the page, in the capture phase, before the page's own
 * handlers and before a click's default action can navigate away: the handler labels the
 * page with the environment's own extraction (`extractInPage`, same ids, same role / name /
 * text) and calls a binding synchronously, so the message is on its way before any navigation. The
 * page keeps the episode's id counter too (window + sessionStorage), so it can label at the
 * moment of an input with no round trip; Node takes the larger counter on every message.
 *
 * Each message also carries the element list at that moment — the state *before* this
 * input, which is the state *after* the previous one. Node processes inputs in order: it
 * waits for the page to settle, then observes (elements, aria snapshot, screenshot, as
 * `WebEnvironment` does); when the person was faster and the next input arrived first
 * (typing a field, then at once clicking Save), that step's observation is the element
 * list carried by the next input instead, without aria snapshot or screenshot.
 *
 * An edit that added text at one end of a textarea records a click, a caret key and an insert
 * (TextEdits.ts); the first two get no observation of their own — the person did all three
 * before the page could be read — and the insert the page after it.
 *
 * Back and typed URLs are not DOM events: they are read from the tab's navigation history
 * after each main-frame navigation.
 */
import { Deferred, Effect } from "effect"
import { chromium } from "playwright-core"
import type { BrowserContext, CDPSession, Page } from "playwright-core"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BlobStore } from "@core/blobstore"
import { defaultSecretEnv } from "@core/events"
import type { Action, Observation } from "@core/events"
import { chromiumFlags } from "./BrowserPool.ts"
import { binding, captureInPage, decodeCaptured, labelSource, toActions } from "./Capture.ts"
import { interactableSelector } from "./Elements.ts"
import { placeBase, placedElementsBlob, snapshot } from "./Snapshot.ts"
import { scrubExtracted, scrubText } from "./Scrub.ts"
import { appOrigins, originOf } from "./Origins.ts"
import { playPrelude } from "./Prelude.ts"
import type { Extracted } from "./Elements.ts"
import { InfraError, oneLine, policyView, readEnvSecret } from "@core/environment"
import type { Prelude, ReadSecret } from "@core/environment"

export interface RecorderOptions {
  readonly startUrl: string
  readonly executablePath?: string
  /** Default 1280×800, as the web environment. */
  readonly viewport?: { readonly width: number; readonly height: number }
  /** Upper bound on waiting for the page to settle after an input, default 3000 ms. */
  readonly settleMs?: number
  /** The app routes by the URL's fragment: urls keep it (EnvTask.hashRouting). */
  readonly hashRouting?: boolean
  /** Also accept DevTools clients on this port: how a test drives the headed browser. */
  readonly cdpPort?: number
  /** Each step as it is recorded (index from 1), for progress. */
  readonly onStep?: (step: RecordedStep, index: number) => void
  /** The variable a typed password is recorded as (`secretEnv`), default CORE_DEMO_PASSWORD. */
  readonly secretEnv?: string
  /** Where that variable is read, to warn when it would not replay the password; default the process environment. */
  readonly readSecret?: ReadSecret
  /** A line for the person (a password its variable would not replay). */
  readonly onWarning?: (line: string) => void
  /** Played before the start page, with nothing captured: the app's log-in (Environment.ts `Prelude`). */
  readonly prelude?: Prelude
}

/** One step as in a demo file, with urls as path + query and observation blobs as hashes. */
export interface RecordedStep {
  readonly action: Action
  readonly urlBefore: string | null
  readonly urlAfter: string | null
  readonly observation: Observation
}

export interface Recording {
  /** The page as it opened, before the first input: a demo's `initial`. */
  readonly initial: Observation
  /** Succeeds once the person closed the window (or the browser died): nothing more can be recorded. */
  readonly closed: Effect.Effect<void>
  /** Drops the last recorded step (after recording any input still pending); null when there is none. */
  readonly undo: Effect.Effect<RecordedStep | null, InfraError>
  /** Records the last step (`answer` or `status`) on the page as it is now and returns every step. */
  readonly finish: (end: Action) => Effect.Effect<ReadonlyArray<RecordedStep>, InfraError>
}

/**
 * Path + query (+ the fragment for an app that routes by it): recordings on different server
 * ports record the same urls (as scripted solutions do).
 */
export const sitePath = (url: string | null, hashRouting = false): string | null => {
  if (url === null) return null
  try {
    const u = new URL(url)
    return u.protocol === "http:" || u.protocol === "https:" ? u.pathname + u.search + (hashRouting ? u.hash : "") : url
  } catch {
    return url
  }
}

/** What Node queues: an input captured in the page, or a history navigation (back, a typed url). */
interface Input {
  readonly action: Action
  readonly url: string
  /** The page when the input happened: null for history navigations, which are seen only after the fact. */
  readonly before: { readonly extracted: Extracted; readonly title: string } | null
  /** A step of an edit before its `type` (click, caret key): the page was not seen between them. */
  readonly unobserved?: boolean
}

/** A navigation may still start after the input's message arrived: wait at least this long for it. */
const graceMs = 150
/** The network counts as idle once nothing is in flight and nothing happened for this long. */
const quietMs = 50
const encoder = new TextEncoder()
const messageOf = (cause: unknown): string => oneLine((cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "")

export const open = Effect.fnUntraced(function* (options: RecorderOptions) {
  const blobs = yield* BlobStore
  const settleMs = options.settleMs ?? 3000
  const hashRouting = options.hashRouting === true
  const base = originOf(options.startUrl)
  // `typed`: what the log-in and the person typed by reference, masked in every observation (Scrub.ts).
  const secrets = {
    secretEnv: options.secretEnv ?? defaultSecretEnv,
    read: options.readSecret ?? readEnvSecret,
    warn: options.onWarning ?? (() => undefined),
    typed: new Set<string>()
  }
  const closed = yield* Deferred.make<void>()
  const context = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const dir = mkdtempSync(join(tmpdir(), "core-recorder-"))
        const launched = await chromium
          .launchPersistentContext(dir, {
            executablePath: options.executablePath ?? "/usr/bin/chromium",
            headless: false,
            viewport: options.viewport ?? { width: 1280, height: 800 },
            args: [
              ...chromiumFlags.filter((f) => f !== "--headless"),
              ...(options.cdpPort === undefined ? [] : [`--remote-debugging-port=${options.cdpPort}`])
            ]
          })
          .catch((cause) => {
            rmSync(dir, { recursive: true, force: true })
            throw cause
          })
        return { launched, dir }
      },
      catch: (cause) =>
        new InfraError({
          // Playwright's first line is only "browser has been closed"; the browser log below it says why.
          reason: /XServer|X server|cannot open display/i.test(cause instanceof Error ? cause.message : String(cause))
            ? `no X server on DISPLAY=${process.env.DISPLAY ?? ""} for the headed chromium: run on a desktop or under xvfb-run -a`
            : `cannot launch a headed chromium: ${messageOf(cause)}`
        })
    }),
    ({ launched, dir }) =>
      Effect.promise(async () => {
        await launched.close().catch(() => undefined)
        rmSync(dir, { recursive: true, force: true })
      })
  ).pipe(Effect.map((c): BrowserContext => c.launched))

  let page: Page = context.pages()[0]!
  let cdp: CDPSession | null = null
  let finished = false
  let nextId = 1
  let received = 0
  const pending: Array<Input> = []
  const steps: Array<RecordedStep> = []
  let queue: Promise<void> = Promise.resolve()
  // Our own network-idle, as WebEnvironment's (internal there): requests in flight, main frame loading, last activity.
  const net = { inflight: new Set<unknown>(), loading: false, last: 0 }
  /** Notes network or navigation activity (its argument is the change being noted, for one-line handlers). */
  const touch = (_change?: unknown) => void (net.last = performance.now())

  const enqueue = (input: Input) => {
    received++
    pending.push(input)
    queue = queue.then(recordNext)
  }

  const put = (bytes: Uint8Array) => Effect.runPromise(blobs.put(bytes))

  /** Labels the page (retrying once across a navigation that destroyed the document). */
  const label = async (): Promise<Extracted> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const found = (await page.evaluate(`(${labelSource})(${nextId})`)) as Extracted
        nextId = Math.max(nextId, found.nextId)
        return found
      } catch (cause) {
        if (attempt >= 2 || !/context was destroyed|navigat/i.test(messageOf(cause))) throw cause
        await page.waitForLoadState("load", { timeout: settleMs }).catch(() => undefined)
      }
    }
  }

  const truncated = (url: string, title: string, e: Extracted) => policyView({ url, app: null, title, error: null }, e.elements).truncated

  /** What WebEnvironment's observation reads: elements, then the same snapshot (aria, title, screenshot). */
  const read = async () => placeBase(base, await snapshot(page, await label(), settleMs, true, secrets.typed))

  /** Stores what was read as blobs, as WebEnvironment does. */
  const store = async ({ extracted, aria, title, png, url }: Awaited<ReturnType<typeof read>>): Promise<Observation> => {
    const [elements, ariaHash, screenshot] = await Promise.all([
      put(placedElementsBlob(base, url, extracted)),
      put(encoder.encode(aria)),
      png === null ? null : put(png)
    ])
    return { url, app: null, title, screenshot, elements, aria: ariaHash, truncated: truncated(url, title, extracted), error: null }
  }

  /** The page as the next input found it: its element list only. */
  const asFoundBy = async (next: Input | undefined, fallbackUrl: string): Promise<Observation> => {
    const before = next?.before ?? null
    const url = scrubText(next?.url ?? fallbackUrl, secrets.typed)
    if (before === null) return { url, app: null, title: null, screenshot: null, elements: null, aria: null, truncated: false, error: null }
    const { extracted } = scrubExtracted(before.extracted, secrets.typed)
    const placed = placeBase(base, { extracted, aria: "", title: scrubText(before.title, secrets.typed) })
    const elements = await put(placedElementsBlob(base, url, placed.extracted))
    return {
      url,
      app: null,
      title: placed.title,
      screenshot: null,
      elements,
      aria: null,
      truncated: truncated(url, placed.title, placed.extracted),
      error: null
    }
  }

  /** Waits for the input's effect: a navigation it started, then network idle and `load`; true when the next input came first. */
  const settle = async (since: number, overtaken: () => boolean): Promise<boolean> => {
    const until = since + settleMs
    for (;;) {
      if (overtaken()) return true
      const now = performance.now()
      if (now >= until) return false
      if (now - since >= graceMs && !net.loading && net.inflight.size === 0 && now - net.last >= quietMs) {
        await page.waitForLoadState("load", { timeout: Math.max(1, Math.round(until - now)) }).catch(() => undefined)
        return overtaken()
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  const recordNext = async (): Promise<void> => {
    const input = pending.shift()
    if (input === undefined || finished) return
    const seen = received
    const overtaken = () => received !== seen
    let observation: Observation
    try {
      if (input.unobserved === true) observation = await asFoundBy(undefined, input.url)
      else if (await settle(performance.now(), overtaken)) observation = await asFoundBy(pending[0], input.url)
      else {
        const current = await read()
        // An input during the reads may have changed what they saw: its own snapshot is exact.
        observation = overtaken() ? await asFoundBy(pending[0], current.url) : await store(current)
      }
    } catch (cause) {
      if (page.isClosed()) return
      observation = {
        url: scrubText(page.url(), secrets.typed),
        app: null,
        title: null,
        screenshot: null,
        elements: null,
        aria: null,
        truncated: false,
        error: `cannot observe the page: ${messageOf(cause)}`
      }
    }
    const step = {
      action: input.action,
      urlBefore: sitePath(scrubText(input.url, secrets.typed), hashRouting),
      urlAfter: sitePath(observation.url, hashRouting),
      observation
    }
    steps.push(step)
    options.onStep?.(step, steps.length)
  }

  /** Waits until every input received so far is recorded. */
  const drain = async (): Promise<void> => {
    while (pending.length > 0) await queue
    await queue
  }

  // History: the entry the tab is on, to tell back and typed urls from navigations an input caused.
  let history: { index: number; id: number; url: string } | null = null
  const readHistory = async () => {
    const h = await cdp!.send("Page.getNavigationHistory")
    const entry = h.entries[h.currentIndex]!
    return { index: h.currentIndex, id: entry.id, url: entry.url, transition: entry.transitionType }
  }
  let navigations: Promise<void> = Promise.resolve()
  const onNavigated = async () => {
    if (history === null || finished) return
    let now = null
    // The tab may be between documents: the history reads again a moment later.
    for (let attempt = 0; now === null && attempt < 5; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100))
      now = await readHistory().catch(() => null)
    }
    if (now === null || now.id === history.id) return
    const before = history
    history = { index: now.index, id: now.id, url: now.url }
    if (now.index < before.index) enqueue({ action: { kind: "back" }, url: before.url, before: null })
    else if (now.transition === "typed" || now.transition === "auto_bookmark")
      enqueue({ action: { kind: "navigate", url: now.url }, url: before.url, before: null })
  }

  if (options.prelude !== undefined) {
    const origins = appOrigins(options.startUrl, undefined)
    // Before the capture is installed: the person's demonstration begins where the log-in ends.
    yield* playPrelude(options.prelude, {
      page,
      origins,
      timeoutMs: 5000,
      settle: () => settle(performance.now(), () => false).then(() => undefined),
      readSecret: secrets.read,
      typedSecrets: secrets.typed
    })
    // A start page in the same document would never get the capture script: leave it first.
    yield* Effect.promise(() => page.goto("about:blank").catch(() => undefined))
  }

  const initial = yield* Effect.tryPromise({
    try: async () => {
      page = context.pages()[0] ?? (await context.newPage())
      page.on("close", () => Deferred.doneUnsafe(closed, Effect.void))
      context.on("close", () => Deferred.doneUnsafe(closed, Effect.void))
      // A modal dialog would block the page for the observer; the person sees its effect.
      page.on("dialog", (dialog) => void dialog.dismiss().catch(() => undefined))
      page.on("request", (request) => touch(net.inflight.add(request)))
      page.on("requestfinished", (request) => touch(net.inflight.delete(request)))
      page.on("requestfailed", (request) => touch(net.inflight.delete(request)))
      await context.exposeBinding(binding, (source, payload: unknown) => {
        if (source.page !== page || finished) return
        const decoded = decodeCaptured(payload)
        if (decoded._tag === "None") return
        const c = decoded.value
        nextId = Math.max(nextId, c.nextId)
        const actions = toActions(c, secrets)
        actions.forEach((action, i) =>
          enqueue({ action, url: c.url, before: { extracted: c.before as Extracted, title: c.title }, unobserved: i < actions.length - 1 })
        )
      })
      await context.addInitScript({
        content: `(${captureInPage.toString()})(${JSON.stringify({ selector: interactableSelector, binding })}, ${labelSource})`
      })
      cdp = await context.newCDPSession(page)
      // Main-frame navigations and loading from CDP, on the session that also reads the history.
      await cdp.send("Page.enable")
      const navigated = (main: boolean) => {
        if (!main) return
        touch()
        // A new origin has no sessionStorage counter: hand it ours before the person acts there.
        void page.evaluate(`globalThis.__coreNextId = Math.max(Number(globalThis.__coreNextId) || 0, ${nextId})`).catch(() => undefined)
        navigations = navigations.then(onNavigated)
      }
      const mainFrameId = (await cdp.send("Page.getFrameTree")).frameTree.frame.id
      cdp.on("Page.frameNavigated", (e) => navigated(e.frame.parentId === undefined))
      cdp.on("Page.navigatedWithinDocument", (e) => navigated(e.frameId === mainFrameId))
      // Raised as soon as a click's navigation is requested, before its first request goes out.
      const loading = (frameId: string, now: boolean) => frameId === mainFrameId && touch((net.loading = now))
      cdp.on("Page.frameStartedLoading", (e) => loading(e.frameId, true))
      cdp.on("Page.frameStoppedLoading", (e) => loading(e.frameId, false))
      await page.goto(options.startUrl, { waitUntil: "domcontentloaded", timeout: 30_000 })
      await settle(performance.now(), () => false)
      // The screen the first step is taken on, read once the page settled (a person faster than the load acts on an earlier one).
      const first = await store(await read())
      history = await readHistory()
      return first
    },
    catch: (cause) => new InfraError({ reason: `cannot open ${options.startUrl} in the recorder: ${messageOf(cause)}` })
  })

  const guarded = <A>(what: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (cause) => new InfraError({ reason: `${what}: ${messageOf(cause)}` }) })

  const undo = guarded("cannot undo", async () => {
    await drain()
    return steps.pop() ?? null
  })

  const finish = (end: Action) =>
    guarded("cannot finish the recording", async () => {
      const before = received
      const flushed = (await page.evaluate("globalThis.__coreFlush ? globalThis.__coreFlush() : false").catch(() => false)) === true
      // The flushed field's message is on its way through the binding: wait for it.
      for (let i = 0; flushed && received === before && i < 100; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      await drain()
      finished = true
      const observation = await store(await read())
      const url = sitePath(observation.url, hashRouting)
      steps.push({ action: end, urlBefore: url, urlAfter: url, observation })
      return [...steps] as ReadonlyArray<RecordedStep>
    })

  return { initial, closed: Deferred.await(closed), undo, finish } satisfies Recording
})
