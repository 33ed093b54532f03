/**
 * A fake platform for the runner's tests: a screen of two buttons, actions steered by
 * their arguments (a complaint, a throw, a lost platform, no answer at all), and a log of
 * every call the runner makes, so a test reads the lifecycle as the platform saw it.
 */
import { Effect, Layer } from "effect"
import type { Scope } from "effect"
import { BlobStore, BlobStoreError } from "@core/blobstore"
import { sha256 } from "@core/events"
import type { Action } from "@core/events"
import { ActionTimeout, makeEnvironment } from "../Runner.ts"
import type { EnvironmentAdapter, RunnerSettings } from "../Runner.ts"
import type { ElementInfo, EnvironmentShape, EpisodeSource } from "../Environment.ts"

export interface FakeEpisode {
  readonly n: number
  readonly startUrl: string | undefined
}

export const button = (id: string, name: string): ElementInfo => ({
  id,
  role: "button",
  name,
  text: name,
  value: null,
  box: { x: 0, y: 0, width: 10, height: 10 },
  visible: true,
  inViewport: true,
  enabled: true,
  editable: false,
  checked: null
})

const encoder = new TextEncoder()

export interface Fake {
  readonly adapter: EnvironmentAdapter<FakeEpisode>
  readonly log: Array<string>
  /** The platform is gone: `unavailable` says so. */
  gone: boolean
}

/**
 * `click` on `e404` is the action's complaint; `key` "throw" throws, "lost" loses the
 * platform; `wait` never answers; a `type` is recorded with its text masked.
 */
export const fake = (over: Partial<EnvironmentAdapter<FakeEpisode>> = {}): Fake => {
  const log: Array<string> = []
  let opened = 0
  const self: Fake = {
    log,
    gone: false,
    adapter: {
      name: "FakeEnvironment",
      stateChanging: new Set<Action["kind"]>(["click", "type", "key"]),
      describe: (cause) => (cause instanceof Error ? cause.message : String(cause)),
      lostLabel: "fake lost",
      open: (task, site) =>
        Effect.sync(() => {
          log.push(`open ${task.taskId}${site === null ? "" : ` ${site.episode}`}`)
          return { n: ++opened, startUrl: site?.startUrl ?? task.startUrl }
        }),
      start: (ep) =>
        Effect.sync(() => {
          log.push(`start ${ep.n}`)
          return ep.startUrl === undefined ? "the fake platform needs a startUrl" : null
        }),
      settle: (ep) => Effect.sync(() => void log.push(`settle ${ep.n}`)),
      warm: (ep) => Effect.sync(() => void log.push(`warm ${ep.n}`)),
      perform: async (ep, action, record) => {
        log.push(`perform ${ep.n} ${action.kind}`)
        if (action.kind === "type") record({ ...action, text: "•".repeat(action.text.length) })
        if (action.kind === "click" && action.target?.elementId === "e404") return "unknown element id e404"
        if (action.kind === "key" && action.key === "throw") throw new Error("the page said no")
        if (action.kind === "key" && action.key === "lost") throw new Error("lost: the socket hung up")
        if (action.kind === "wait") await new Promise(() => undefined)
        return null
      },
      read: (ep, withScreenshot, error) =>
        Effect.sync(() => {
          log.push(`read ${ep.n}${withScreenshot ? " with screenshot" : ""}`)
          const elements = [button("e1", "Save"), button("e2", "Cancel")]
          return {
            url: ep.startUrl ?? null,
            app: null,
            title: "Fake",
            elements,
            elementsBytes: encoder.encode(JSON.stringify({ elements })),
            aria: '- button "Save"',
            screenshot: withScreenshot ? new Uint8Array([137, 80, 78, 71, ep.n]) : null,
            error
          }
        }),
      unavailable: () => (self.gone ? "the fake platform is gone" : null),
      isLost: (_, cause) => cause instanceof Error && cause.message.startsWith("lost"),
      isTimeout: (cause) => cause instanceof ActionTimeout,
      stop: (ep) => Effect.sync(() => void log.push(`stop ${ep.n}`)),
      drop: Effect.sync(() => void log.push("drop")),
      release: (ep) => Effect.sync(() => void log.push(`release ${ep.n}`)),
      quit: Effect.sync(() => void log.push("quit")),
      ...over
    }
  }
  return self
}

/** A blob store in memory; `down` makes every write fail as an outage would. */
export const memoryStore = (down = false) => {
  const kept = new Map<string, Uint8Array>()
  const layer = Layer.succeed(
    BlobStore,
    BlobStore.of({
      kind: "directory",
      put: (bytes) =>
        down
          ? Effect.fail(new BlobStoreError({ reason: "the disk is gone" }))
          : Effect.sync(() => (kept.set(sha256(bytes), bytes), sha256(bytes))),
      get: (hash) => Effect.succeed(kept.get(hash) ?? new Uint8Array()),
      has: (hash) => Effect.succeed(kept.has(hash))
    })
  )
  return { kept, layer }
}

/** An episode source that counts what it was asked. */
export const countingSource = (withEnd: boolean) => {
  const calls: Array<string> = []
  let n = 0
  const source: EpisodeSource = {
    open: async (site, seed, path) => {
      const episode = `${site}-${seed}-${++n}`
      calls.push(`open ${episode}${path === undefined ? "" : ` ${path}`}`)
      return { episode, startUrl: `http://127.0.0.1:1/${site}` }
    },
    discard: async (episode) => void calls.push(`discard ${episode}`),
    ...(withEnd ? { end: async (episode: string) => void calls.push(`end ${episode}`) } : {})
  }
  return { calls, source }
}

export const settings = (over: Partial<RunnerSettings> = {}): RunnerSettings => ({
  actionTimeoutMs: 1000,
  ...over
})

/** Runs `f` on an environment over `adapter`, then closes its scope. */
export const withEnvironment = <A, E>(
  adapter: EnvironmentAdapter<FakeEpisode>,
  s: RunnerSettings,
  f: (env: EnvironmentShape) => Effect.Effect<A, E, Scope.Scope>,
  store = memoryStore()
): Effect.Effect<A, E> => Effect.scoped(Effect.flatMap(makeEnvironment(adapter, s), f)).pipe(Effect.provide(store.layer))
