/**
 * The platform-neutral environment interface: the web (`WebEnvironment`), mobile-web and
 * Android environments answer the same `reset` / `step` / `close`, speak the shared action
 * vocabulary (`Action` in @core/events) and produce the same observations, so a policy, a
 * label function or a replay never needs to know which platform an episode ran on.
 *
 * What the platform cannot do, a stale element id, a navigation error or a timeout is an
 * observation with `error` set (the policy sees it, a label function may read it). Only
 * a broken platform (browser crash, closed page, unwritable blob store) is an `InfraError`:
 * the caller may retry the episode.
 *
 * @example
 * const program = Effect.gen(function* () {
 *   const env = yield* Environment
 *   const first = yield* env.reset({ taskId: "t1", startUrl: "http://127.0.0.1:8080/" })
 *   const button = first.elements.find((e) => e.role === "button" && e.name === "Save")
 *   const next = yield* env.step({ kind: "click", target: targetOf(button!) })
 *   console.log(next.view.text, next.observation.error)
 *   yield* env.close()
 * })
 */
import { Context, Effect, Schema } from "effect"
import type { Action, Observation, Target } from "@core/events"
import type { ReadSecret } from "./Vocabulary.ts"

/** What an episode starts from: a URL on the web, an app on Android. */
export interface EnvTask {
  readonly taskId: string
  readonly startUrl?: string
  readonly app?: string
  /**
   * A bundled site: with an `EpisodeSource`, the environment opens the site's episode for
   * `siteSeed` itself (no `startUrl` needed) and the next one ahead of time.
   */
  readonly site?: string
  /** Seed for a bundled site's generated data. */
  readonly siteSeed?: number
  /** With `site`: the page the episode starts on, relative to the app (default its home). */
  readonly startPath?: string
  /**
   * The only origins the episode may reach (`http://host:port`): navigations elsewhere are
   * error observations and requests elsewhere are blocked. Default: the start URL's origin.
   */
  readonly origins?: ReadonlyArray<string>
  /**
   * Observe a page only once its DOM has not changed for this long (default 0: once the
   * network is quiet). Single-page apps that render after a timer need it, or an
   * observation can show the page from before the action.
   */
  readonly pageQuietMs?: number
  /**
   * Web: the longest an observation waits for `pageReady` and for `pageQuietMs` (each), in
   * ms; default the environment's own `settleMs`. Apps that load for seconds after every
   * navigation need more. Load and network idle keep the environment's bound: a page may
   * hold a request open for good.
   */
  readonly pageSettleMs?: number
  /**
   * A CSS selector that matches once the app has loaded (its navigation, a form): a page is
   * observed only once something matches it, at most `pageSettleMs`. Default: none.
   */
  readonly pageReady?: string
  /**
   * Web: how long an episode's page stays open after its last action, in ms (default 0), for
   * an app that saves in the background where the page's network does not show it (a shared
   * worker's sync): closing the page sooner would lose the episode's last change.
   */
  readonly pageSaveMs?: number
  /**
   * Android: clear the app's data before opening it, so the episode starts from a fresh
   * install's state (an app pack whose isolation asks for it). Default false: data is kept.
   */
  readonly clearAppData?: boolean
  /** The app routes by the URL's fragment (`/#Title`): recordings keep it as part of the page. */
  readonly hashRouting?: boolean
  /** Played before the start page opens, and kept out of the episode: an app's log-in (see `Prelude`). */
  readonly prelude?: Prelude
}

/**
 * What an episode plays on its own page before its start page opens: an app's log-in.
 * Nothing of it is observed — no blob, no observation, no step — so it never reaches a
 * trajectory, a demo or a dataset. Every episode's browser context is fresh (no cookies,
 * no storage), so every episode plays it again.
 */
export interface Prelude {
  /** The page it begins on: the app's base URL. */
  readonly startUrl: string
  /** Fails with one line naming what could not be done: the episode does not start. */
  readonly play: (page: PreludePage) => Effect.Effect<void, InfraError>
}

/** The episode's page as a prelude drives it: read and acted on as a policy would, never recorded. */
export interface PreludePage {
  /** The page's interactable elements now, with ids for `act`. */
  readonly elements: Effect.Effect<ReadonlyArray<ElementInfo>, InfraError>
  /** Performs the action and lets the page settle: null, or what went wrong, as an observation would say it. */
  readonly act: (action: Action) => Effect.Effect<string | null, InfraError>
}

/**
 * Opens fresh episodes of bundled sites (their own state, their own start URL). Given one,
 * the web environment prepares the next episode of the same site and seed in the background
 * — context, page, first navigation — so that a `reset` only has to observe.
 */
export interface EpisodeSource {
  /**
   * A fresh episode of `site` (its own state), starting at `path` when given. `origins`, when
   * the app declares them, are the only origins the episode may reach (else the start URL's).
   */
  open(
    site: string,
    seed: number,
    path?: string
  ): Promise<{
    readonly episode: string
    readonly startUrl: string
    readonly origins?: ReadonlyArray<string>
    /** The server the episode runs on, when the platform talks to one: an Android episode's Appium server. */
    readonly serverUrl?: string
    /** Played before the start page (the app's log-in); the environment keeps it out of the episode. */
    readonly prelude?: Prelude
  }>
  /** Ends an episode that was opened ahead of time and never used. */
  discard(episode: string): Promise<void>
  /**
   * Where a `type` by reference (`secretEnv`) in these episodes finds its value; default the
   * process environment. An app pack's episodes get one that answers only the variables the
   * user allowed that pack: whatever a demo or a policy names, the value goes to the app's server.
   */
  readonly readSecret?: ReadSecret
  /**
   * The episode is over and judged: what it ran on may be reset or stopped. Called when the
   * environment closes it. Optional: the bundled sites keep an episode until it is evicted,
   * since a scripted demo is checked after its environment closed.
   */
  end?(episode: string): Promise<void>
}

/**
 * Hands a closed episode back to its source — `end` when the source has it (a pack's instance
 * goes back to its pool), else `discard` — and never fails: a source that cannot take it back
 * must not fail the close. Nothing to do without a source or an episode.
 */
export const endEpisode = (source: EpisodeSource | undefined, episode: string | null | undefined): Effect.Effect<void> =>
  source === undefined || episode == null
    ? Effect.void
    : Effect.promise(() => (source.end !== undefined ? source.end(episode) : source.discard(episode)).catch(() => undefined))

export interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** One interactable element. `id` is episode-local: never reused within an episode, meaningless across episodes. */
export interface ElementInfo {
  readonly id: string
  readonly role: string
  readonly name: string
  readonly text: string
  /** Current value of form fields (passwords masked); null for others. */
  readonly value: string | null
  /** Viewport coordinates in CSS pixels; null when the element has no layout box. */
  readonly box: Box | null
  readonly visible: boolean
  readonly inViewport: boolean
  readonly enabled: boolean
  readonly editable: boolean
  /** null when the element cannot be checked. */
  readonly checked: boolean | null
  /**
   * True when its link (`href`) or the form it submits (`action` / `formaction`) leads off
   * the episode's origins, where the browser may not go. Absent means false: only such
   * elements carry it, so an element list from before the mark reads the same.
   */
  readonly offsite?: boolean
  /**
   * True when a click would not reach it: a modal is open and it lies outside, or another
   * element covers its centre. Absent means false, as in element lists from before the mark.
   */
  readonly covered?: boolean
}

/** What a policy is shown: a bounded element list as text (see README "Truncation"). */
export interface PolicyView {
  readonly url: string | null
  readonly app: string | null
  readonly title: string | null
  readonly text: string
  readonly truncated: boolean
  /** Elements listed in `text`, and on the page. */
  readonly shown: number
  readonly total: number
  readonly error: string | null
}

export interface Timings {
  readonly actionMs: number
  readonly settleMs: number
  readonly observeMs: number
}

/**
 * Everything an observation holds in memory. `observation` is what TrajectoryRecorded
 * stores (blob hashes only); the rest is what those hashes name, plus diagnostics.
 */
export interface FullObservation {
  readonly observation: Observation
  readonly elements: ReadonlyArray<ElementInfo>
  readonly aria: string
  /** PNG bytes; null when the screenshot policy skipped this step. */
  readonly screenshot: Uint8Array | null
  /**
   * The set-of-marks PNG (`observation.marks`): absent unless the environment was asked for
   * marks (`setOfMarks`), null when this observation has no screenshot.
   */
  readonly marks?: Uint8Array | null
  readonly view: PolicyView
  readonly timings: Timings
  /** True after `answer` or `status`: further steps only get an error observation. */
  readonly done: boolean
  /** The site episode the environment opened for this task (its tenant, for evaluation); null when the caller gave a `startUrl`. */
  readonly episode: string | null
  /**
   * The action as a trajectory must record it, when that is not the action asked for: text
   * typed into a password field, sealed (`sealTyped`) so it never reaches a log in clear.
   */
  readonly performed?: Action
}

/** The platform itself failed (browser crash, closed page, blob store down): retry the episode. */
export class InfraError extends Schema.TaggedError<InfraError>()("InfraError", {
  reason: Schema.String,
  /**
   * The blob store, not the platform, failed (after waiting out an outage): retrying the
   * episode cannot help, and recording it as an infra-error would keep a store outage in the
   * training data for good, so the rollout stops instead.
   */
  storeUnavailable: Schema.optional(Schema.Boolean)
}) {
  get retryable(): true {
    return true
  }
  override get message() {
    return `environment infrastructure error: ${this.reason}`
  }
}

/** Which observations carry a screenshot: none, key (reset and state-changing actions), all. */
export type ScreenshotPolicy = "none" | "key" | "all"

export interface EnvironmentShape {
  /** Ends any current episode and starts a fresh one (fresh cookies and storage). */
  reset(task: EnvTask): Effect.Effect<FullObservation, InfraError>
  step(action: Action): Effect.Effect<FullObservation, InfraError>
  /** Ends the episode and frees its resources; idempotent. */
  close(): Effect.Effect<void>
}

export class Environment extends Context.Service<Environment, EnvironmentShape>()("@core/environment/Environment") {}

/** The recorded target of an action aimed at `element`: label functions match role, name and text, not the id. */
export const targetOf = (element: ElementInfo): Target => ({
  role: element.role,
  name: element.name,
  elementId: element.id,
  text: element.text === "" ? null : element.text
})

/** Collapses whitespace to one line: error messages and the policy view are line-oriented. */
export const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
