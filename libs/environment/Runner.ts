/**
 * The episode lifecycle, written once for every platform. A platform (web, mobile web,
 * Android) is an `EnvironmentAdapter`: how it opens an episode, goes to its start, performs
 * an action, waits for the screen to settle and reads it. The runner does the rest alike on
 * all of them, so an episode means the same everywhere: a bundled site's episode opened
 * through the `EpisodeSource` and handed back, `reset` as close + start + settle + first
 * observation, the action's time budget, what becomes an error observation and what an
 * `InfraError`, the end after `answer` / `status`, settling only after state-changing
 * actions, the screenshot policy and set-of-marks images, the timings and the stored blobs.
 *
 * @example
 * const env = yield* makeEnvironment(adapter, { screenshots: "key", actionTimeoutMs: 5000, elementLimit: 150, episodes })
 * const first = yield* env.reset({ taskId: "t", site: "shop", siteSeed: 1 })
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import { BlobStore } from "@core/blobstore"
import type { Action } from "@core/events"
import { endEpisode, Environment, InfraError } from "./Environment.ts"
import type { EnvironmentShape, EnvTask, EpisodeSource, FullObservation, ScreenshotPolicy } from "./Environment.ts"
import { storeObservation } from "./Observation.ts"
import type { ObservationParts } from "./Observation.ts"
import { defaultElementLimit, marksOf } from "./View.ts"
import type { Mark } from "./View.ts"
import { maxWaitMs } from "./Vocabulary.ts"

/** A bundled site's (or an app pack's) episode, as `EpisodeSource.open` gives it. */
export type SiteEpisode = Awaited<ReturnType<EpisodeSource["open"]>>

/** One read of the screen: what an observation stores, before its blobs and policy view. */
export type ScreenRead = Omit<ObservationParts, "limit" | "timing" | "startedAt" | "done" | "episode">

/** A platform as the runner drives it; `E` is its episode (a browser context, a session's state). */
export interface EnvironmentAdapter<E> {
  /** Names the spans: `<name>.reset`, `<name>.step`. */
  readonly name: string
  /** Actions after which the screen may differ: settled after, and screenshotted under "key". */
  readonly stateChanging: ReadonlySet<Action["kind"]>
  /** Settle after an action that failed too (default true); a device that settles by waiting skips it. */
  readonly settlesAfterError?: boolean
  /** A platform failure as the one line an error observation or an `InfraError` carries. */
  readonly describe: (cause: unknown) => string
  /** How an `InfraError` names what was lost: "browser lost" gives `browser lost during click: …`. */
  readonly lostLabel: string
  /** A fresh episode on the platform (context, page, session), before its start page or app opens. */
  readonly open: (task: EnvTask, site: SiteEpisode | null) => Effect.Effect<E, InfraError>
  /**
   * Goes to the task's start: resolves to the first observation's complaint (null: none). A
   * failure other than an `InfraError` is classified as a `navigate` action's would be.
   */
  readonly start: (episode: E, task: EnvTask) => Effect.Effect<string | null, unknown>
  /** Waits, bounded, until the effect of the start or of an action has landed. */
  readonly settle: (episode: E) => Effect.Effect<void>
  /** Pays an episode's first-read costs while it waits, opened ahead, for its reset. */
  readonly warm?: (episode: E) => Effect.Effect<void>
  /**
   * Performs the action: resolves to what the policy got wrong or the platform refused (null:
   * it went through) and throws what the runner classifies. `record` is told the action as a
   * trajectory must record it (a password sealed), before it runs.
   */
  readonly perform: (episode: E, action: Action, record: (performed: Action) => void) => Promise<string | null>
  /** Reads the screen; `error` is the action's complaint, which the platform may replace with its own. */
  readonly read: (episode: E, withScreenshot: boolean, error: string | null) => Effect.Effect<ScreenRead, InfraError>
  /**
   * Right after a `read` with a screenshot, for `setOfMarks`: the screen again as a PNG with
   * each of `marks` boxed and labelled with its id. It must leave the screen as `read` found
   * it. Null when the image could not be made faithfully (the page changed under it); fails
   * only when the platform is lost. A platform without it records no marks.
   */
  readonly mark?: (episode: E, marks: ReadonlyArray<Mark>) => Effect.Effect<Uint8Array | null, InfraError>
  /** Why no step can be taken now (the browser or session is gone), or null. */
  readonly unavailable: (episode: E) => string | null
  /** Whether `cause` means the platform, not the action, failed. */
  readonly isLost: (episode: E, cause: unknown) => boolean
  /** Whether `cause` is a timeout the observation reports as `<kind> timed out after <ms> ms`. */
  readonly isTimeout: (cause: unknown) => boolean
  /** After a timeout: stops what is still pending, so later reads do not wait for it. */
  readonly stop?: (episode: E) => Effect.Effect<void>
  /** After the platform was lost: ends what is left of it. */
  readonly drop?: Effect.Effect<void>
  /** Frees what the episode holds on the platform (its browser context). */
  readonly release?: (episode: E) => Effect.Effect<void>
  /** Ends the platform itself (a session) when the environment's scope closes. */
  readonly quit?: Effect.Effect<void>
}

/** The options every platform's environment takes. */
export interface EnvironmentOptions {
  /** Which observations carry a screenshot; default "all". */
  readonly screenshots?: ScreenshotPolicy
  /** Per action: a slower one is an error observation. The default is the platform's. */
  readonly actionTimeoutMs?: number
  /** Elements in the policy view, default 150. */
  readonly elementLimit?: number
  /**
   * After each screenshot, a second image with the policy view's element ids drawn over
   * their boxes (`observation.marks`), for a policy that reads pixels. Default false: the
   * observation then has no `marks` key, as before marks existed. Ignored by a platform that
   * cannot draw them (its adapter has no `mark`).
   */
  readonly setOfMarks?: boolean
  /** Opens the episodes of tasks given as `site` + `siteSeed`. */
  readonly episodes?: EpisodeSource
}

export interface RunnerSettings extends EnvironmentOptions {
  readonly actionTimeoutMs: number
  /**
   * After a reset of a site's episode, open the next episode of the same site and seed in
   * the background, so the next reset of it only observes. Only for a platform whose
   * episodes do not share a session.
   */
  readonly prepareAhead?: boolean
  /**
   * On close, keep a site episode whose source has no `end` (default: discard it). The
   * bundled sites keep their episodes for a scripted demo checked after its web environment closed.
   */
  readonly keepUnended?: boolean
}

/** The runner's own budget for an action ran out: the platform did not answer in time. */
export class ActionTimeout extends Error {
  override readonly name = "TimeoutError"
  constructor(kind: string, budgetMs: number) {
    super(`${kind}: no answer within ${Math.round(budgetMs / 1000)} s`)
  }
}

interface Timing {
  readonly actionMs: number
  readonly settleMs: number
}

/** The episode in progress: the platform's part and what every platform tracks. */
interface Current<E> {
  readonly platform: E
  /** The site episode opened through the `EpisodeSource`, if any. */
  readonly episode: string | null
  done: boolean
}

/** An episode at its start page, settled, not yet observed. */
interface Started<E> {
  readonly current: Current<E>
  /** The start's complaint, for the first observation. */
  readonly error: string | null
  readonly timing: Timing
  /** Which reset it can serve when opened ahead of time: site, seed and start path. */
  readonly key: string | null
}

const noTiming: Timing = { actionMs: 0, settleMs: 0 }

const ended = "the episode has ended (answer or status was given)"

/**
 * What the runner does for a platform apart from the episode in progress: start an episode
 * (its site episode first), classify a failure, observe, and hand an episode back.
 */
const episodes = <E>(adapter: EnvironmentAdapter<E>, settings: RunnerSettings, blobs: BlobStore["Service"]) => {
  const source = settings.episodes
  const timeoutMs = settings.actionTimeoutMs
  const limit = settings.elementLimit ?? defaultElementLimit

  const opensSite = (task: EnvTask): boolean =>
    task.startUrl === undefined && task.site !== undefined && task.siteSeed !== undefined && source !== undefined

  const keyOf = (task: EnvTask): string | null => (opensSite(task) ? `${task.site}#${task.siteSeed}#${task.startPath ?? ""}` : null)

  const mark = settings.setOfMarks === true ? adapter.mark : undefined

  /**
   * The set-of-marks image of a screen just read: undefined when not asked for, null without
   * a screenshot. With nothing to label it is the screenshot itself (the same blob): the
   * platform would only take the same picture again.
   */
  const marksFor = (cur: Current<E>, screen: ScreenRead): Effect.Effect<Uint8Array | null | undefined, InfraError> => {
    if (mark === undefined) return Effect.succeed(undefined)
    if (screen.screenshot === null) return Effect.succeed(null)
    const marks = marksOf(screen.elements, limit)
    return marks.length === 0 ? Effect.succeed(screen.screenshot) : mark(cur.platform, marks)
  }

  const observe = (cur: Current<E>, error: string | null, withScreenshot: boolean, timing: Timing) =>
    Effect.gen(function* () {
      const startedAt = performance.now()
      const screen = yield* adapter.read(cur.platform, withScreenshot, error)
      // After the read, never during it: the element list, aria and plain screenshot are the page's own.
      const marks = yield* marksFor(cur, screen)
      const parts = marks === undefined ? screen : { ...screen, marks }
      return yield* storeObservation(blobs, { ...parts, limit, timing, startedAt, done: cur.done, episode: cur.episode })
    })

  const classify = (cur: Current<E>, cause: unknown, kind: string): Effect.Effect<string, InfraError> => {
    if (adapter.isLost(cur.platform, cause)) {
      const lost = new InfraError({ reason: `${adapter.lostLabel} during ${kind}: ${adapter.describe(cause)}` })
      return Effect.andThen(adapter.drop ?? Effect.void, Effect.fail(lost))
    }
    if (adapter.isTimeout(cause)) return Effect.as(adapter.stop?.(cur.platform) ?? Effect.void, `${kind} timed out after ${timeoutMs} ms`)
    return Effect.succeed(`${kind} failed: ${adapter.describe(cause)}`)
  }

  /** Hands a site episode back: `end` once it was played (unless the platform keeps it), `discard` when it never was. */
  const giveBack = (episode: string | null, how: "discard" | "end"): Effect.Effect<void> =>
    episode === null || source === undefined
      ? Effect.void
      : how === "end"
        ? settings.keepUnended === true && source.end === undefined
          ? Effect.void
          : endEpisode(source, episode)
        : Effect.promise(() => source.discard(episode).catch(() => undefined))

  /** Frees an episode nobody will use: its platform resources, and its site episode. */
  const discard = (cur: Current<E>) => Effect.andThen(adapter.release?.(cur.platform) ?? Effect.void, giveBack(cur.episode, "discard"))

  /** Ends an episode that was played. */
  const end = (cur: Current<E>) => Effect.andThen(adapter.release?.(cur.platform) ?? Effect.void, giveBack(cur.episode, "end"))

  const start = (task: EnvTask, warm = false) =>
    Effect.gen(function* () {
      const site = !opensSite(task)
        ? null
        : yield* Effect.tryPromise({
            try: () => source!.open(task.site!, task.siteSeed!, task.startPath),
            catch: (cause) => new InfraError({ reason: `cannot open a ${task.site} episode: ${adapter.describe(cause)}` })
          })
      const platform = yield* adapter.open(task, site).pipe(Effect.tapError(() => giveBack(site?.episode ?? null, "discard")))
      const cur: Current<E> = { platform, episode: site?.episode ?? null, done: false }
      const started = performance.now()
      const error = yield* adapter.start(platform, task).pipe(
        Effect.catch((cause) => (cause instanceof InfraError ? Effect.fail(cause) : classify(cur, cause, "navigate"))),
        Effect.tapError(() => discard(cur))
      )
      const actionMs = Math.round(performance.now() - started)
      const settled = performance.now()
      yield* adapter.settle(platform)
      if (warm && adapter.warm !== undefined) yield* adapter.warm(platform)
      return {
        current: cur,
        error,
        timing: { actionMs, settleMs: Math.round(performance.now() - settled) },
        key: keyOf(task)
      } satisfies Started<E>
    })

  return { keyOf, observe, classify, discard, end, start }
}

/** The environment of one platform: one episode at a time, its blobs in the `BlobStore`. */
export const makeEnvironment = <E>(
  adapter: EnvironmentAdapter<E>,
  settings: RunnerSettings
): Effect.Effect<EnvironmentShape, never, BlobStore | Scope.Scope> =>
  Effect.gen(function* () {
    const { keyOf, observe, classify, discard, end, start } = episodes(adapter, settings, yield* BlobStore)
    const screenshots = settings.screenshots ?? "all"
    let current: Current<E> | null = null
    /** The episode opened ahead of time; never fails (null: it could not be opened). */
    let ahead: Promise<Started<E> | null> | null = null

    const takeAhead = (key: string | null) =>
      Effect.gen(function* () {
        const pending = ahead
        ahead = null
        if (pending === null) return null
        const ready = yield* Effect.promise(() => pending)
        if (ready === null) return null
        if (ready.key === key && key !== null && adapter.unavailable(ready.current.platform) === null) return ready
        yield* discard(ready.current)
        return null
      })

    const close = () =>
      Effect.suspend(() => {
        const cur = current
        current = null
        return cur === null ? Effect.void : end(cur)
      })

    const reset = Effect.fn(`${adapter.name}.reset`)(
      function* (task: EnvTask) {
        yield* close()
        const key = keyOf(task)
        const started = (yield* takeAhead(key)) ?? (yield* start(task))
        current = started.current
        const first = yield* observe(started.current, started.error, screenshots !== "none", started.timing)
        // Runs while the policy works on this episode: the same task is the likeliest next reset.
        if (key !== null && settings.prepareAhead === true)
          ahead = Effect.runPromise(start(task, true).pipe(Effect.catch(() => Effect.succeed(null))))
        return first
      },
      Effect.tapError(() => close())
    )

    const step = Effect.fn(`${adapter.name}.step`)(function* (action: Action) {
      const cur = current
      if (cur === null) return yield* new InfraError({ reason: "no episode in progress: call reset first" })
      const unavailable = adapter.unavailable(cur.platform)
      if (unavailable !== null) return yield* new InfraError({ reason: unavailable })
      if (cur.done) return yield* observe(cur, ended, false, noTiming)
      const started = performance.now()
      let performed: Action = action
      // Backstop for platform calls without a timeout of their own.
      const budget = settings.actionTimeoutMs + (action.kind === "wait" ? Math.min(action.ms, maxWaitMs) : 1000)
      const error = yield* Effect.tryPromise({
        try: () => adapter.perform(cur.platform, action, (recorded) => void (performed = recorded)),
        catch: (cause) => cause
      }).pipe(
        Effect.timeoutOrElse({ duration: budget, orElse: () => Effect.fail(new ActionTimeout(action.kind, budget)) }),
        Effect.catch((cause) => classify(cur, cause, action.kind))
      )
      const actionMs = Math.round(performance.now() - started)
      if (action.kind === "answer" || action.kind === "status") cur.done = true
      const changes = adapter.stateChanging.has(action.kind)
      const settled = performance.now()
      if (changes && (error === null || adapter.settlesAfterError !== false)) yield* adapter.settle(cur.platform)
      const withScreenshot = screenshots === "all" || (screenshots === "key" && changes)
      const observed: FullObservation = yield* observe(cur, error, withScreenshot, {
        actionMs,
        settleMs: Math.round(performance.now() - settled)
      })
      return performed === action ? observed : { ...observed, performed }
    })

    yield* Effect.addFinalizer(() => close().pipe(Effect.andThen(takeAhead(null)), Effect.andThen(adapter.quit ?? Effect.void)))

    return Environment.of({ reset, step, close }) satisfies EnvironmentShape
  })
