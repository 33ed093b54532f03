/**
 * What the console's browser test needs around its pages: the real `bun core ui` in a child
 * process, Debian's Chromium with a watch on each page for script errors, CSP violations and
 * dialogs, hostile text appended to the log behind the console's back, and the screenshots
 * the docs show.
 */
import { Effect, Layer } from "effect"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { makeEvent, TaskRegistered, TrajectoryRecorded } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { chromiumFlags, headlessChromium } from "@core/env-web"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { chromium } from "playwright-core"
import type { Browser, Page } from "playwright-core"
import { REPO, spawnCore } from "./cli.ts"

export const SCRIPT = "<script>alert(1)</script>"
export const IMG = "<img src=x onerror=alert(1)>"

export interface RunningUi {
  /** Where the console is, without the token. */
  readonly url: string
  /** The URL it printed: `url` with `/?token=…`. */
  readonly open: string
  readonly token: string
  /** `name=value`, as the console's 303 for `open` set it. */
  readonly cookie: string
  /** A path of the console, fetched with the cookie. */
  readonly get: (path: string, init?: RequestInit) => Promise<Response>
  /** Everything the console wrote to stderr so far: why a page failed, when one does. */
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

const drain = async (stream: ReadableStream<Uint8Array>, onText: (text: string) => void): Promise<void> => {
  const decoder = new TextDecoder()
  for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }))
}

/** The `console: <url>` line `bun core ui` and `run --ui` print: the URL, where it points, its token. */
export const parseConsoleLine = (text: string): { open: string; url: string; token: string } | undefined => {
  const m = text.match(/^console: ((http:\/\/[^/\s]+)\/\?token=([0-9a-f]{64}))(?:\s|$)/m)
  return m === null ? undefined : { open: m[1]!, url: m[2]!, token: m[3]! }
}

/** Opens the printed URL as a browser would, once: its 303 is where the cookie comes from. */
export const signIn = async (open: string): Promise<string> => {
  const res = await fetch(open, { redirect: "manual" })
  const cookie = res.headers.get("set-cookie")?.split(";")[0]
  if (res.status !== 303 || cookie === undefined) throw new Error(`${open} answered ${res.status} without a cookie`)
  return cookie
}

/** `bun core ui --port 0` over the store in `dataDir`, once it has printed its URL and set a cookie for it. */
export const startUi = async (dataDir: string): Promise<RunningUi> => {
  const proc = spawnCore(["ui", "--port", "0", "--store", "embedded", "--data-dir", dataDir])
  let out = ""
  let err = ""
  const printed = Promise.withResolvers<{ open: string; url: string; token: string }>()
  void drain(proc.stdout, (text) => {
    out += text
    const line = parseConsoleLine(out)
    if (line !== undefined) printed.resolve(line)
  })
  void drain(proc.stderr, (text) => {
    err += text
  })
  void proc.exited.then((code) => printed.reject(new Error(`bun core ui exited with ${code} before serving:\n${err}`)))
  const { open, url, token } = await printed.promise
  const stop = async () => {
    // SIGTERM is the console's clean stop; a console that ignores it must still not outlive the test.
    proc.kill("SIGTERM")
    const ended = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)])
    if (!ended) proc.kill("SIGKILL")
  }
  const cookie = await signIn(open).catch(async (e) => {
    await stop()
    throw e
  })
  const get = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), cookie } })
  return { url, open, token, cookie, get, stderr: () => err, stop }
}

/** Debian's Chromium, headless, never a downloaded one. */
export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: headlessChromium(), args: [...chromiumFlags] })

export interface PageWatch {
  /** Page errors, console errors (Chromium reports a CSP refusal as one) and CSP violation events since the last call. */
  readonly take: () => ReadonlyArray<string>
  /** Every dialog the page opened (each dismissed): an injected `alert` would land here. */
  readonly dialogs: ReadonlyArray<string>
}

/** Runs before any page script and outside the page's CSP, so a violation is reported even if the page's own script never ran. */
const REPORT_CSP = `document.addEventListener("securitypolicyviolation", (e) =>
  console.error("CSP violation: " + e.violatedDirective + " blocked " + e.blockedURI))`

export const watchPage = async (page: Page): Promise<PageWatch> => {
  let problems: Array<string> = []
  const dialogs: Array<string> = []
  await page.addInitScript({ content: REPORT_CSP })
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error at ${page.url()}: ${m.text()}`)
  })
  page.on("dialog", (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`)
    void d.dismiss().catch(() => undefined)
  })
  return {
    take: () => {
      const taken = problems
      problems = []
      return taken
    },
    dialogs
  }
}

/** A full-page PNG into docs/images, only when asked: CI must not rewrite tracked files. */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  if (process.env.CORE_SCREENSHOTS !== "1") return
  const dir = join(REPO, "docs", "images")
  mkdirSync(dir, { recursive: true })
  // A trajectory page stacks a screenshot per step: its top shows the page, and the file stays small.
  const height = Math.min(await page.evaluate(() => document.documentElement.scrollHeight), 1600)
  await page.screenshot({
    path: join(dir, `console-${name}.png`),
    type: "png",
    fullPage: true,
    clip: { x: 0, y: 0, width: 1280, height }
  })
}

type Recorded = Extract<CoreEvent, { type: "TrajectoryRecorded" }>

/**
 * Appends, as another process would, a task whose instruction is a script and a one-step
 * trajectory of it in `runId` whose clicked element is named like an image tag. The screens
 * are `template`'s (real screenshots), its element list renamed to match.
 */
export const appendHostile = (dataDir: string, runId: string, template: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* EventStore
      const blobs = yield* BlobStore
      const source = (yield* store.readStream(`run.${runId}.traj.${template}`))
        .map((r) => r.event)
        .find((e): e is Recorded => e.type === "TrajectoryRecorded")
      if (source === undefined) return yield* Effect.die(new Error(`run ${runId} has no trajectory ${template}`))
      const first = source.data.steps[0]!
      const target = "target" in first.action ? first.action.target : null
      if (target === null || source.data.initial.elements === null)
        return yield* Effect.die(new Error(`${template} starts without a target`))
      const screen = JSON.parse(new TextDecoder().decode(yield* blobs.get(source.data.initial.elements))) as {
        elements: Array<{ id: string; name: string; text: string }>
      }
      for (const e of screen.elements) if (e.id === target.elementId) Object.assign(e, { name: IMG, text: IMG })
      const elements = yield* blobs.put(new TextEncoder().encode(JSON.stringify(screen)))
      const envelope = { causationId: "console-browser-test", ordinal: 0, recordedAt: "2026-12-05T00:00:00.000Z" }
      const task = makeEvent(TaskRegistered, {
        ...envelope,
        stream: "ws.task.hostile-task",
        runId: null,
        data: {
          taskId: "hostile-task",
          site: "forum",
          suite: "forum",
          template: null,
          instruction: SCRIPT,
          siteSeed: null,
          checker: null,
          platform: "web",
          startUrl: "/forum/",
          app: null
        }
      })
      yield* store.append(task.stream, [task], { expectedRevision: 0 })
      const trajectoryId = "r9-s0-hostile-task"
      const trajectory = makeEvent(TrajectoryRecorded, {
        ...envelope,
        stream: `run.${runId}.traj.${trajectoryId}`,
        runId,
        data: {
          ...source.data,
          trajectoryId,
          taskId: "hostile-task",
          round: 9,
          sample: 0,
          initial: { ...source.data.initial, elements },
          steps: [
            { action: { kind: "click", target: { ...target, name: IMG, text: IMG } }, observation: { ...first.observation, error: SCRIPT } }
          ]
        }
      })
      yield* store.append(trajectory.stream, [trajectory], { expectedRevision: 0 })
      return { taskId: "hostile-task", trajectoryId }
    }).pipe(
      Effect.provide(
        Layer.mergeAll(EmbeddedStore.layer({ path: join(dataDir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dataDir, "blobs") }))
      )
    )
  )
