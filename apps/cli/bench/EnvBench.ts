/**
 * `bench env`: the web environment's reset and step latency and its throughput with 1, 2
 * and 4 parallel contexts, against a raw Playwright loop doing the same work on the same
 * pages in the same run: a figure means something only as a ratio to the raw tool on the
 * same machine under the same load.
 *
 * Work per episode, both sides: a fresh shop episode, a fresh browser context opened on its
 * start URL, then the scripted 10 steps below. Ours goes through `Environment.reset` /
 * `step` (elements, aria snapshot, screenshot, blobs into a temp DirectoryBlobStore) with
 * the sites server as its `EpisodeSource`, so it opens the next episode's context, page and
 * first navigation in the background while the current one runs, and a reset observes the
 * prepared page (`reset_ms_p50`); raw opens the episode (`POST /__core/episodes`, untimed)
 * and a cold context per episode (`raw_reset_ms_p50`), and does, per step, the action plus
 * `locator("body").ariaSnapshot()` plus `screenshot()` on plain Playwright over the same
 * Chromium with the same flags. At parallelism 1 the two sides alternate episode by
 * episode in ABBA order after one untimed warm-up episode each; steps/s count the
 * episodes' wall time, resets included.
 */
import { Effect, Layer, Schema } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium } from "playwright-core"
import type { Browser, Page } from "playwright-core"
import { DirectoryBlobStore } from "@core/blobstore"
import { BrowserPool, chromiumFlags, headlessChromium, WebEnvironment } from "@core/env-web"
import { targetOf } from "@core/environment"
import type { EnvironmentShape, FullObservation } from "@core/environment"
import { episodeSource, startSites } from "@core/sites"
import { peakRssMb, ratio, shares } from "./Measure.ts"
import { BenchError } from "./StoreBench.ts"

export const ENV_TARGETS = { reset_ms_p50: 150, step_ratio: 0.7 } as const
export const PARALLELISM = [1, 2, 4] as const

export interface EnvBenchResult {
  readonly episodes: number
  readonly steps_per_episode: number
  readonly reset_ms_p50: number
  readonly raw_reset_ms_p50: number
  /** The raw reset's last part: aria snapshot + screenshot of the loaded start page, the floor of a reset that has to observe. */
  readonly raw_first_observe_ms_p50: number
  /** Click and type steps together; each kind on its own below. */
  readonly step_ms_p50: number
  readonly click_ms_p50: number
  readonly type_ms_p50: number
  readonly raw_step_ms_p50: number
  readonly steps_per_s: Readonly<Record<string, number>>
  readonly raw_steps_per_s: number
  readonly step_ratio: number
  readonly episodes_per_hour: number
  /** Where our p50 step goes (diagnostics from the observations' timings). */
  readonly action_ms_p50: number
  readonly settle_ms_p50: number
  readonly observe_ms_p50: number
  /** Episodes started over after an InfraError or a step past the action timeout (at most twice each). */
  readonly episodes_retried: number
  readonly peak_rss_mb: number
  readonly bun_version: string
  readonly targets_met: boolean
}

export interface EnvBenchOptions {
  readonly episodes: number
  readonly progress?: (line: string) => void
}

/** One scripted step: the element is found by role and accessible name, never by id. */
interface ScriptStep {
  readonly kind: "click" | "type"
  readonly role: string
  readonly name: RegExp
  readonly text?: string
  readonly submit?: boolean
}

/** Search, open a product, set its quantity, add it, open the cart, change the quantity, browse. */
export const SCRIPT: ReadonlyArray<ScriptStep> = [
  { kind: "type", role: "searchbox", name: /^Search products$/, text: "lamp", submit: true },
  { kind: "click", role: "link", name: /Lamp$/ },
  { kind: "type", role: "spinbutton", name: /^Quantity$/, text: "2" },
  { kind: "click", role: "button", name: /^Add to cart$/ },
  { kind: "click", role: "link", name: /^Cart \(\d+\)$/ },
  { kind: "type", role: "spinbutton", name: /^Quantity for /, text: "3" },
  { kind: "click", role: "button", name: /^Update quantity for / },
  { kind: "click", role: "link", name: /^Kitchen$/ },
  { kind: "click", role: "link", name: /^Wish list \(\d+\)$/ },
  { kind: "click", role: "link", name: /^CORE Shop home$/ }
]

const p50 = (xs: ReadonlyArray<number>): number => {
  if (xs.length === 0) return 0
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return Math.round((s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2) * 10) / 10
}

const fail = (what: string) => (cause: unknown) =>
  new BenchError({ message: `${what}: ${cause instanceof Error ? cause.message.split("\n")[0] : String(cause)}` })

const promise = <A>(what: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: fail(what) })

interface Samples {
  readonly reset: Array<number>
  readonly click: Array<number>
  readonly type: Array<number>
  readonly action: Array<number>
  readonly settle: Array<number>
  readonly observe: Array<number>
}

const samples = (): Samples => ({ reset: [], click: [], type: [], action: [], settle: [], observe: [] })

/** One of ours: reset on a fresh site episode, then the script, resolving targets from each observation. */
/** A step that timed out: the machine was too busy for the action timeout, not a broken script. */
class StepTimedOut extends Schema.TaggedError<StepTimedOut>()("StepTimedOut", { message: Schema.String }) {}

const ourEpisode = (env: EnvironmentShape, into: Samples | null) =>
  Effect.gen(function* () {
    let t = performance.now()
    let obs: FullObservation = yield* env.reset({ taskId: "bench-env", site: "shop", siteSeed: 1 })
    into?.reset.push(performance.now() - t)
    if (obs.observation.error !== null) return yield* new BenchError({ message: `reset: ${obs.observation.error}` })
    for (const [i, s] of SCRIPT.entries()) {
      const element = obs.elements.find((e) => e.role === s.role && s.name.test(e.name))
      if (element === undefined)
        return yield* new BenchError({ message: `step ${i + 1}: no ${s.role} named ${s.name} on ${obs.observation.url}` })
      const target = targetOf(element)
      t = performance.now()
      obs = yield* env.step(
        s.kind === "click" ? { kind: "click", target } : { kind: "type", target, text: s.text ?? "", submit: s.submit === true }
      )
      const ms = performance.now() - t
      if (obs.observation.error !== null) {
        const message = `step ${i + 1}: ${obs.observation.error}`
        return yield* /timed out/.test(obs.observation.error) ? new StepTimedOut({ message }) : new BenchError({ message })
      }
      if (into !== null) {
        into[s.kind].push(ms)
        into.action.push(obs.timings.actionMs)
        into.settle.push(obs.timings.settleMs)
        into.observe.push(obs.timings.observeMs)
      }
    }
    yield* env.close()
  })

/** The same work on plain Playwright: context, page, navigation, then action + aria snapshot + screenshot per step. */
const rawEpisode = async (
  browser: Browser,
  startUrl: string,
  resets: Array<number> | null,
  steps: Array<number> | null,
  observes: Array<number> | null = null
) => {
  let t = performance.now()
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const page: Page = await context.newPage()
    await page.goto(startUrl, { waitUntil: "load" })
    const observing = performance.now()
    await page.locator("body").ariaSnapshot()
    await page.screenshot({ type: "png" })
    observes?.push(performance.now() - observing)
    resets?.push(performance.now() - t)
    for (const s of SCRIPT) {
      t = performance.now()
      const locator = page.getByRole(s.role as "link", { name: s.name }).first()
      if (s.kind === "click") await locator.click()
      else {
        await locator.fill(s.text ?? "")
        if (s.submit === true) await locator.press("Enter")
      }
      await page.locator("body").ariaSnapshot()
      await page.screenshot({ type: "png" })
      steps?.push(performance.now() - t)
    }
  } finally {
    await context.close().catch(() => undefined)
  }
}

export const runEnvBench = (options: EnvBenchOptions) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    const episodes = options.episodes
    const sites = yield* Effect.acquireRelease(
      Effect.sync(() => startSites()),
      (s) => Effect.promise(() => s.stop())
    )
    const source = episodeSource(sites)
    const newEpisode = async (): Promise<string> => (await source.open("shop", 1)).startUrl
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-bench-env-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    const raw = yield* Effect.acquireRelease(
      promise("launch chromium", () => chromium.launch({ executablePath: headlessChromium(), args: [...chromiumFlags] })),
      (b) => Effect.promise(() => b.close().catch(() => undefined))
    )
    const context = yield* Layer.build(BrowserPool.layer({ prewarm: true }).pipe(Layer.merge(DirectoryBlobStore.layer({ dir }))))
    const worker = Effect.provideContext(WebEnvironment.make({ screenshots: "all", episodes: source }), context)

    // As a rollout would: an InfraError (crashed or stalled browser) or a step past the action timeout
    // (a machine too busy) starts the episode over, at most twice. Counted in the report.
    let retried = 0
    const retryable = (err: { readonly _tag: string }) => err._tag === "InfraError" || err._tag === "StepTimedOut"
    const episode = (e: EnvironmentShape, into: Samples | null) =>
      ourEpisode(e, into).pipe(
        Effect.tapError((err) => Effect.sync(() => void (retryable(err) && retried++))),
        Effect.retry({ times: 2, while: retryable }),
        Effect.mapError((err) => (err._tag === "StepTimedOut" ? new BenchError({ message: err.message }) : err))
      )

    log(`[1/4] warm-up: shop on ${sites.origin}, one untimed episode each side`)
    const env = yield* worker
    yield* episode(env, null)
    yield* promise("raw episode", async () => rawEpisode(raw, await newEpisode(), null, null))

    log(`[2/4] parallelism 1: ${episodes} episodes of ${SCRIPT.length} steps each side, interleaved`)
    const ours = samples()
    const rawResets: Array<number> = []
    const rawObserves: Array<number> = []
    const rawSteps: Array<number> = []
    const wall = { ours: 0, raw: 0 }
    for (let r = 0; r < episodes; r++) {
      const order = r % 2 === 0 ? (["ours", "raw"] as const) : (["raw", "ours"] as const)
      for (const side of order) {
        const t = performance.now()
        if (side === "ours") yield* episode(env, ours)
        else yield* promise("raw episode", async () => rawEpisode(raw, await newEpisode(), rawResets, rawSteps, rawObserves))
        wall[side] += performance.now() - t
      }
    }
    const rate = (eps: number, ms: number) => (ms > 0 ? Math.round(((eps * SCRIPT.length * 1000) / ms) * 10) / 10 : 0)
    const stepsPerS: Record<string, number> = { "1": rate(episodes, wall.ours) }
    const episodesPerHour: Record<string, number> = { "1": Math.round((episodes * 3_600_000) / wall.ours) }
    const rawStepsPerS = rate(episodes, wall.raw)

    for (const [i, p] of PARALLELISM.slice(1).entries()) {
      const total = Math.max(episodes, p)
      log(`[${i + 3}/4] parallelism ${p}: ${total} episodes over ${p} contexts`)
      const t = performance.now()
      yield* Effect.forEach(
        shares(total, p),
        (n) =>
          Effect.scoped(
            Effect.gen(function* () {
              const e = yield* worker
              for (let k = 0; k < n; k++) yield* episode(e, null)
            })
          ),
        { concurrency: p, discard: true }
      )
      const ms = performance.now() - t
      stepsPerS[String(p)] = rate(total, ms)
      episodesPerHour[String(p)] = Math.round((total * 3_600_000) / ms)
    }

    const best = PARALLELISM.reduce((a, p) => (stepsPerS[String(p)]! > stepsPerS[String(a)]! ? p : a), 1 as number)
    const stepRatio = ratio(stepsPerS["1"]!, rawStepsPerS) ?? 0
    const resetP50 = p50(ours.reset)
    return {
      episodes,
      steps_per_episode: SCRIPT.length,
      reset_ms_p50: resetP50,
      raw_reset_ms_p50: p50(rawResets),
      raw_first_observe_ms_p50: p50(rawObserves),
      step_ms_p50: p50([...ours.click, ...ours.type]),
      click_ms_p50: p50(ours.click),
      type_ms_p50: p50(ours.type),
      raw_step_ms_p50: p50(rawSteps),
      steps_per_s: stepsPerS,
      raw_steps_per_s: rawStepsPerS,
      step_ratio: stepRatio,
      episodes_per_hour: episodesPerHour[String(best)]!,
      action_ms_p50: p50(ours.action),
      settle_ms_p50: p50(ours.settle),
      observe_ms_p50: p50(ours.observe),
      episodes_retried: retried,
      peak_rss_mb: peakRssMb(),
      bun_version: Bun.version,
      targets_met: resetP50 < ENV_TARGETS.reset_ms_p50 && stepRatio >= ENV_TARGETS.step_ratio
    } satisfies EnvBenchResult
  }).pipe(Effect.scoped)
