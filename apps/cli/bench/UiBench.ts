/**
 * `bench ui`: the console's server time — request sent to the last byte of the body read —
 * for a 12-step trajectory page and for the runs page over 100 runs, against a plain
 * Bun.serve handing out the same bytes from a directory, measured in the same run.
 *
 * The log and its blobs are built in a temp data dir through the real catalog and stores
 * (UiBenchLog.ts), the read models caught up in SQLite there before anything is timed, and
 * the console started in this process as `bun core ui` starts it. The static side serves
 * the trajectory's screenshots and copies of the two pages as the console rendered them,
 * so both sides send the same bytes. A trajectory "load" is the page and then its
 * screenshots all at once, as a browser asks for them; the sides alternate in ABBA order.
 */
import { Effect, Layer } from "effect"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { startConsole } from "@core/console"
import { EmbeddedStore } from "@core/eventstore"
import { migrate, openReadModels, runProjector } from "@core/projections"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { peakRssMb, ratio, timed } from "./Measure.ts"
import { BenchError } from "./StoreBench.ts"
import { UI_RUNS, UI_STEPS, writeUiLog } from "./UiBenchLog.ts"
import type { UiLog } from "./UiBenchLog.ts"

export { UI_RUNS, UI_STEPS }

/** Each page, p95 of server time. */
export const UI_TARGET_MS = 300
/** Untimed rounds first: the JIT, the run-log cache and the connection pool warm up on both sides. */
export const UI_WARMUP = 3

export interface UiBenchResult {
  /** Runs the runs page listed, and steps and distinct screenshots the trajectory page showed. */
  readonly runs: number
  readonly trajectory_steps: number
  readonly screenshots: number
  readonly screenshot_kb_mean: number
  readonly events: number
  readonly samples: number
  readonly trajectory_page_kb: number
  readonly trajectory_page_ms_p50: number
  readonly trajectory_page_ms_p95: number
  /** The page and then its screenshots from /blob/, all at once. */
  readonly trajectory_load_ms_p50: number
  readonly trajectory_load_ms_p95: number
  /** The same bytes from the static server: the page's copy, then the screenshots. */
  readonly static_load_ms_p50: number
  readonly static_load_ms_p95: number
  /** trajectory_load_ms_p50 ÷ static_load_ms_p50. */
  readonly ratio: number
  readonly runs_page_kb: number
  readonly runs_page_ms_p50: number
  readonly runs_page_ms_p95: number
  readonly static_runs_ms_p50: number
  readonly static_runs_ms_p95: number
  /** runs_page_ms_p50 ÷ static_runs_ms_p50. */
  readonly runs_ratio: number
  readonly target_ms: number
  readonly trajectory_ok: boolean
  readonly runs_ok: boolean
  readonly targets_met: boolean
  readonly peak_rss_mb: number
  readonly bun_version: string
}

export interface UiBenchOptions {
  readonly samples: number
  readonly progress?: (line: string) => void
}

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** The whole body of a 200, or a BenchError naming the URL. The console's cookie goes to both sides, so it weighs on both alike. */
const get = (url: string, cookie: string) =>
  Effect.tryPromise({
    try: async () => {
      const res = await fetch(url, { headers: { cookie } })
      const body = new Uint8Array(await res.arrayBuffer())
      if (res.status !== 200) throw new Error(`${res.status}: ${new TextDecoder().decode(body.subarray(0, 200))}`)
      return body
    },
    catch: (e) => new BenchError({ message: `bench ui: GET ${url}: ${reason(e)}` })
  })

const timedGet = (url: string, cookie: string) => Effect.map(timed(get(url, cookie)), ([, ms]) => ms)

/** A page, then its images all at once: how long the page took, and the whole load. */
const load = (page: string, images: ReadonlyArray<string>, cookie: string) =>
  Effect.gen(function* () {
    const start = performance.now()
    yield* get(page, cookie)
    const pageMs = performance.now() - start
    yield* Effect.forEach(images, (image) => get(image, cookie), { concurrency: "unbounded", discard: true })
    return { pageMs, loadMs: performance.now() - start }
  })

/** Nearest-rank percentile, to 0.01 ms: a static file takes well under 1 ms. */
export const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const v = sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1))] ?? 0
  return Math.round(v * 100) / 100
}

/** The files a plain server hands out, by name only. */
const serveStatic = (dir: string) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: async (req) => {
          const name = new URL(req.url).pathname.slice(1)
          const file = Bun.file(join(dir, name))
          return /^[\w.-]+$/.test(name) && (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 })
        }
      })
    ),
    (server) => Effect.promise(() => server.stop(true))
  )

interface Shown {
  readonly runs: number
  readonly steps: number
  readonly screenshots: ReadonlyArray<string>
}

/**
 * What the pages show, read from the markup Routes.ts documents: runs linked from the runs
 * page, the trajectory's step sections (the last, `End`, is numbered by the step count) and
 * the screenshots its images load.
 */
const shown = (runsHtml: string, trajectoryHtml: string): Shown => ({
  runs: new Set([...runsHtml.matchAll(/href="\/runs\/([A-Za-z0-9_-]+)"/g)].map((m) => m[1])).size,
  steps: Math.max(-1, ...[...trajectoryHtml.matchAll(/data-step="(\d+)"/g)].map((m) => Number(m[1]))),
  screenshots: [...new Set([...trajectoryHtml.matchAll(/<img src="\/blob\/([0-9a-f]{64})"/g)].map((m) => m[1]!))]
})

const checkShown = (built: UiLog, s: Shown) =>
  s.runs === built.runs && s.steps === built.steps && s.screenshots.length === built.screenshotBytes.length
    ? Effect.void
    : Effect.fail(
        new BenchError({
          message: `bench ui: the pages show ${s.runs} runs, ${s.steps} steps and ${s.screenshots.length} screenshots; built ${built.runs}, ${built.steps} and ${built.screenshotBytes.length}`
        })
      )

interface Samples {
  readonly page: Array<number>
  readonly load: Array<number>
  readonly runs: Array<number>
}

/** Both sides, warm-up first, in ABBA order so drift weighs on both alike. */
const sample = (
  samples: number,
  sides: Record<"console" | "static", { readonly trajectory: string; readonly images: ReadonlyArray<string>; readonly runs: string }>,
  cookie: string
) =>
  Effect.gen(function* () {
    const out: Record<"console" | "static", Samples> = {
      console: { page: [], load: [], runs: [] },
      static: { page: [], load: [], runs: [] }
    }
    for (let i = 0; i < UI_WARMUP + samples; i++) {
      for (const which of i % 2 === 0 ? (["console", "static"] as const) : (["static", "console"] as const)) {
        const side = sides[which]
        const trajectory = yield* load(side.trajectory, side.images, cookie)
        const runs = yield* timedGet(side.runs, cookie)
        if (i < UI_WARMUP) continue
        out[which].page.push(trajectory.pageMs)
        out[which].load.push(trajectory.loadMs)
        out[which].runs.push(runs)
      }
    }
    return out
  })

const kb = (bytes: number): number => Math.round(bytes / 102.4) / 10

const measure = (dir: string, options: UiBenchOptions) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    log(`bench ui: [1/4] write ${UI_RUNS} runs and a ${UI_STEPS}-step trajectory with screenshots to ${dir} (setup, not timed)`)
    const built = yield* writeUiLog
    log(`bench ui: [2/4] project ${built.events.toLocaleString("en-US")} events into SQLite; start the console`)
    const rm = yield* openReadModels(`sqlite:${join(dir, "projections.db")}`)
    yield* migrate(rm)
    yield* runProjector(rm)
    const { url: consoleUrl, cookie } = yield* startConsole({ readModels: rm })
    const trajectoryPath = `/runs/${built.runId}/trajectories/${built.trajectoryId}`
    const trajectoryHtml = yield* get(`${consoleUrl}${trajectoryPath}`, cookie)
    const runsHtml = yield* get(`${consoleUrl}/`, cookie)
    const decode = (b: Uint8Array) => new TextDecoder().decode(b)
    const s = shown(decode(runsHtml), decode(trajectoryHtml))
    yield* checkShown(built, s)

    log(`bench ui: [3/4] copy the pages and ${s.screenshots.length} screenshots to a directory; serve it with Bun.serve`)
    const staticDir = join(dir, "static")
    mkdirSync(staticDir)
    writeFileSync(join(staticDir, "trajectory.html"), trajectoryHtml)
    writeFileSync(join(staticDir, "runs.html"), runsHtml)
    const blobs = yield* BlobStore
    for (const h of s.screenshots) writeFileSync(join(staticDir, `${h}.png`), yield* blobs.get(h))
    const staticUrl = `http://127.0.0.1:${(yield* serveStatic(staticDir)).port}`

    log(`bench ui: [4/4] ${UI_WARMUP} warm-up rounds, then ${options.samples} timed, console and static alternating`)
    const timings = yield* sample(
      options.samples,
      {
        console: {
          trajectory: `${consoleUrl}${trajectoryPath}`,
          images: s.screenshots.map((h) => `${consoleUrl}/blob/${h}`),
          runs: `${consoleUrl}/`
        },
        static: {
          trajectory: `${staticUrl}/trajectory.html`,
          images: s.screenshots.map((h) => `${staticUrl}/${h}.png`),
          runs: `${staticUrl}/runs.html`
        }
      },
      cookie
    )
    return { built, shown: s, trajectoryBytes: trajectoryHtml.length, runsBytes: runsHtml.length, timings }
  })

const result = (samples: number, m: Effect.Success<ReturnType<typeof measure>>): UiBenchResult => {
  const { console: c, static: st } = m.timings
  const [p50, p95] = [(xs: Array<number>) => percentile(xs, 0.5), (xs: Array<number>) => percentile(xs, 0.95)]
  const shots = m.built.screenshotBytes
  const trajectory_ok = p95(c.page) < UI_TARGET_MS
  const runs_ok = p95(c.runs) < UI_TARGET_MS
  return {
    runs: m.shown.runs,
    trajectory_steps: m.shown.steps,
    screenshots: m.shown.screenshots.length,
    screenshot_kb_mean: kb(shots.reduce((k, x) => k + x, 0) / shots.length),
    events: m.built.events,
    samples,
    trajectory_page_kb: kb(m.trajectoryBytes),
    trajectory_page_ms_p50: p50(c.page),
    trajectory_page_ms_p95: p95(c.page),
    trajectory_load_ms_p50: p50(c.load),
    trajectory_load_ms_p95: p95(c.load),
    static_load_ms_p50: p50(st.load),
    static_load_ms_p95: p95(st.load),
    ratio: ratio(p50(c.load), p50(st.load)) ?? 0,
    runs_page_kb: kb(m.runsBytes),
    runs_page_ms_p50: p50(c.runs),
    runs_page_ms_p95: p95(c.runs),
    static_runs_ms_p50: p50(st.runs),
    static_runs_ms_p95: p95(st.runs),
    runs_ratio: ratio(p50(c.runs), p50(st.runs)) ?? 0,
    target_ms: UI_TARGET_MS,
    trajectory_ok,
    runs_ok,
    targets_met: trajectory_ok && runs_ok,
    peak_rss_mb: peakRssMb(),
    bun_version: Bun.version
  }
}

export const runUiBench = (options: UiBenchOptions) =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-bench-ui-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    const stores = Layer.mergeAll(
      EmbeddedStore.layer({ path: join(dir, "events.db") }),
      DirectoryBlobStore.layer({ dir: join(dir, "blobs") })
    )
    const measured = yield* measure(dir, options).pipe(Effect.scoped, Effect.provide(stores))
    return result(options.samples, measured)
  }).pipe(Effect.scoped)
