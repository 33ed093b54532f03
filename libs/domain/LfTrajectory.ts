/**
 * The read-only trajectory a label function sees (docs/method.md, "Label functions"): one shape for expert demos
 * and policy rollouts, so the same LF judges both. Element ids are dropped on purpose —
 * they are episode-local, and an LF that could read them would not carry to another
 * episode. Everything here is plain JSON: it crosses into the sandbox as is.
 *
 * @example
 * const t = fromDemoSteps(demo.steps, (hash) => elementsByHash.get(hash) ?? null)
 * t.steps[2].action // { kind: "click", role: "button", name: "Add to cart", text: "Add to cart" }
 */
import type { Action, DemoStep, Observation, TrajectoryStep } from "@core/events"

/** An element as an LF sees it: what a person could read off the page, never its id. */
export interface LfElement {
  readonly role: string
  readonly name: string
  readonly text: string
  readonly value: string | null
  readonly checked: boolean | null
}

/**
 * The action, flattened: the target's role, name and text beside the action's own fields,
 * so an LF reads `s.action.name` rather than digging through a nullable target.
 */
export interface LfAction {
  readonly kind: Action["kind"]
  readonly role: string | null
  readonly name: string | null
  /** The target's visible text (not what was typed: that is `typed`). */
  readonly text: string | null
  /** `type`: the text typed (an insert's inserted text only); `submit` when Enter followed. */
  readonly typed: string | null
  readonly submit: boolean
  /**
   * `type`: "insert" when the text went in at the caret, keeping the rest of the field;
   * absent for a fill, so trajectories without inserts read exactly as before.
   */
  readonly mode?: "insert"
  /** `select`: the option chosen. */
  readonly value: string | null
  /** `key`: the key pressed. */
  readonly key: string | null
  /** `navigate`: the URL typed into the address bar (path and query). */
  readonly url: string | null
  /** `scroll`. */
  readonly direction: string | null
  /** `answer`. */
  readonly answer: string | null
  /** `status`. */
  readonly status: string | null
  /** `open_app`. */
  readonly app: string | null
}

export interface LfStep {
  readonly index: number
  readonly action: LfAction
  /** Path and query only: the same page on another server port is the same URL. */
  readonly urlBefore: string | null
  readonly urlAfter: string | null
  readonly appBefore: string | null
  readonly appAfter: string | null
  /** The page's interactable elements after the step; null when the observation had none recorded. */
  readonly elements: ReadonlyArray<LfElement> | null
  /** The environment's complaint about the step (unsupported action, failed navigation), if any. */
  readonly error: string | null
}

export interface LfTrajectory {
  readonly steps: ReadonlyArray<LfStep>
  /** Where the trajectory started (path and query), before step 0. */
  readonly startUrl: string | null
  /** The elements at the start, before step 0; null when not recorded. */
  readonly initialElements: ReadonlyArray<LfElement> | null
}

/**
 * Path + query of a URL, and its fragment too for an app that routes by it (`hashRouting`:
 * its pages are `/#Title` or `#/inbox`); anything that does not parse — a path already
 * reduced — is kept as it is. Elsewhere a fragment is an in-page anchor, not a page.
 */
export const sitePath = (url: string | null, hashRouting = false): string | null => {
  if (url === null) return null
  try {
    const u = new URL(url)
    return u.pathname + u.search + (hashRouting ? u.hash : "")
  } catch {
    return url
  }
}

/** The step that left `s`'s page: the first after it whose URL changed. */
export const leaving = (t: LfTrajectory, s: LfStep): LfStep | undefined =>
  t.steps.find((p) => p.index > s.index && p.urlAfter !== null && p.urlAfter !== p.urlBefore)

/**
 * White space collapsed and trimmed: every string an LF compares arrives in this form, so the
 * API only lower-cases the trajectory's side (lf-api.js `textTest`).
 */
export const collapse = (s: string): string => s.replace(/\s+/g, " ").trim()

const collapsedOrNull = (s: string | null): string | null => (s === null ? null : collapse(s))

/** An element list blob's elements, reduced to what an LF may read. Accepts the env-web elements blob JSON. */
export const lfElements = (blob: unknown): ReadonlyArray<LfElement> | null => {
  const list = (blob as { elements?: unknown } | null)?.elements
  if (!Array.isArray(list)) return null
  const out: Array<LfElement> = []
  for (const e of list as ReadonlyArray<Record<string, unknown>>) {
    if (e.visible === false) continue
    out.push({
      role: collapse(String(e.role ?? "")),
      name: collapse(String(e.name ?? "")),
      text: collapse(String(e.text ?? "")),
      value: typeof e.value === "string" ? collapse(e.value) : null,
      checked: typeof e.checked === "boolean" ? e.checked : null
    })
  }
  return out
}

const none = {
  role: null,
  name: null,
  text: null,
  typed: null,
  submit: false,
  value: null,
  key: null,
  url: null,
  direction: null,
  answer: null,
  status: null,
  app: null
} as const

export const lfAction = (a: Action, hashRouting = false): LfAction => {
  const target =
    "target" in a && a.target !== null
      ? { role: collapsedOrNull(a.target.role), name: collapsedOrNull(a.target.name), text: collapsedOrNull(a.target.text) }
      : {}
  switch (a.kind) {
    case "click":
    case "long_press":
      return { ...none, kind: a.kind, ...target }
    case "type":
      return {
        ...none,
        kind: a.kind,
        ...target,
        typed: collapse(a.text),
        submit: a.submit === true,
        ...(a.mode === "insert" ? { mode: "insert" as const } : {})
      }
    case "select":
      return { ...none, kind: a.kind, ...target, value: collapse(a.value) }
    case "scroll":
      return { ...none, kind: a.kind, ...target, direction: a.direction }
    case "key":
      return { ...none, kind: a.kind, key: a.key }
    case "navigate":
      return { ...none, kind: a.kind, url: sitePath(a.url, hashRouting) }
    case "open_app":
      return { ...none, kind: a.kind, app: a.app }
    case "answer":
      return { ...none, kind: a.kind, answer: a.text }
    case "status":
      return { ...none, kind: a.kind, status: a.status }
    case "back":
    case "home":
    case "wait":
      return { ...none, kind: a.kind }
  }
}

/** Looks up a decoded elements blob by its hash; null when absent. */
export type ElementsLookup = (hash: string) => ReadonlyArray<LfElement> | null

/** An expert demo (DemoIngested steps) as an LF trajectory. */
export const fromDemoSteps = (steps: ReadonlyArray<DemoStep>, elements: ElementsLookup): LfTrajectory => ({
  startUrl: sitePath(steps[0]?.urlBefore ?? null),
  initialElements: null,
  steps: steps.map((s, index) => ({
    index,
    action: lfAction(s.action),
    urlBefore: sitePath(s.urlBefore),
    urlAfter: sitePath(s.urlAfter),
    appBefore: s.appBefore,
    appAfter: s.appAfter,
    elements: s.observation.elements === null ? null : elements(s.observation.elements),
    error: null
  }))
})

/**
 * A recorded rollout (TrajectoryRecorded's initial observation and steps) as an LF trajectory.
 * Its observations hold whole URLs, reduced here; `hashRouting` is the run's (a demo's are
 * reduced when recorded).
 */
export const fromRecordedSteps = (
  initial: Observation,
  steps: ReadonlyArray<TrajectoryStep>,
  elements: ElementsLookup,
  hashRouting = false
): LfTrajectory => {
  let before = initial
  const path = (url: string | null) => sitePath(url, hashRouting)
  return {
    startUrl: path(initial.url),
    initialElements: initial.elements === null ? null : elements(initial.elements),
    steps: steps.map((s, index) => {
      const step: LfStep = {
        index,
        action: lfAction(s.action, hashRouting),
        urlBefore: path(before.url),
        // answer / status do not move the page: a recorder's observation may still say so.
        urlAfter: path(s.observation.url),
        appBefore: before.app,
        appAfter: s.observation.app,
        elements: s.observation.elements === null ? null : elements(s.observation.elements),
        error: s.observation.error
      }
      before = s.observation
      return step
    })
  }
}

/** The trajectory cut before step `end`: what validation calls the prefix before a key step. */
export const prefixOf = (t: LfTrajectory, end: number): LfTrajectory => ({ ...t, steps: t.steps.slice(0, Math.max(0, end)) })

/** The trajectory from step `from` on, indices unchanged: where an ordered check asks the next LF. */
export const fromStep = (t: LfTrajectory, from: number): LfTrajectory => ({ ...t, steps: t.steps.filter((s) => s.index >= from) })
