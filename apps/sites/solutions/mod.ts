/**
 * Scripted solutions, run and checked (README: apps/sites/suites). EVALUATION CODE: each
 * run is checked by its instance's ground-truth checker through the state API. For every
 * train instance of a suite, every path family's script runs on a fresh episode of the
 * instance's seed; with `out`, the primary family's run is written as the instance's
 * expert demo (`<out>/<suite>/<instance>/demo.json`, recordedWith "script"), then loaded
 * back and replayed on a fresh episode (`replayDemo`) and checked again.
 */
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import type { EnvironmentShape, ScreenshotPolicy } from "@core/environment"
import { check } from "../eval/checkers/mod.ts"
import type { SitesServer } from "../framework/server.ts"
import { episodeSource } from "../framework/episodeSource.ts"
import { startSites } from "../mod.ts"
import { forum } from "../forum/mod.ts"
import { shop } from "../shop/mod.ts"
import { travel } from "../travel/mod.ts"
import { loadSuites, SuiteError } from "../suites/mod.ts"
import type { SuiteTask } from "../suites/Suite.ts"
import { loadDemo } from "@core/demos"
import { replayDemo } from "./Replay.ts"
import { runScript, ScriptError, toDemoFolder } from "./Runner.ts"
import type { PlayedRun, ScriptRun, Step } from "./Runner.ts"
import type { Params } from "./Script.ts"
import { forumSolutions } from "./forum.ts"
import { shopSolutions } from "./shop.ts"
import { travelSolutions } from "./travel.ts"

export { replayDemo } from "./Replay.ts"
export { alterAnswer, alterText, randomRollout, samePathVariant, seededRng, wrongValueVariant } from "./Perturb.ts"
export {
  CORRUPTION_TYPES,
  describeStep,
  dropKeySteps,
  duplicateKeySteps,
  keyStepsOf,
  nearMissAnswer,
  nearMissOn,
  scriptOfActions,
  sideEffect,
  stopEarly,
  swapSteps,
  undoAfter
} from "./Corrupt.ts"
export type { Corruption, CorruptionType } from "./Corrupt.ts"
export { runScriptPartial } from "./Runner.ts"
export type { PartialRun, Step } from "./Runner.ts"
export { forumSolutions } from "./forum.ts"
export { shopSolutions } from "./shop.ts"
export { travelSolutions } from "./travel.ts"

/** A suite's scripts (template id → path family id → script) and the public site data they may read. */
interface SuiteSolutions<Base> {
  readonly base: (seed: number) => Base
  readonly scripts: Readonly<Record<string, Readonly<Record<string, (p: Params, base: Base) => ReadonlyArray<Step>>>>>
}
const solutions = <Base>(s: SuiteSolutions<Base>): SuiteSolutions<unknown> => s as SuiteSolutions<unknown>

const bySuite: Readonly<Record<string, SuiteSolutions<unknown>>> = {
  shop: solutions({ base: shop.base, scripts: shopSolutions }),
  forum: solutions({ base: forum.base, scripts: forumSolutions }),
  travel: solutions({ base: travel.base, scripts: travelSolutions })
}

/** Suites with scripted solutions. */
export const SOLVED_SUITES: ReadonlyArray<string> = Object.keys(bySuite).filter((k) => Object.keys(bySuite[k]!.scripts).length > 0)

export interface SolutionResult {
  readonly instance: string
  readonly template: string
  readonly family: string
  readonly primary: boolean
  /** pass: the checker passed; fail: it failed or the script broke; n/a: the family does not apply to this instance. */
  readonly outcome: "pass" | "fail" | "n/a"
  readonly reason: string
  readonly steps: number
  readonly demo: string | null
  /**
   * The written demo, loaded back and replayed action by action on a fresh episode
   * (`replayDemo`), then checked again: true when that passed too; null when no demo was written.
   * A demo that does not replay makes the outcome "fail".
   */
  readonly replayed: boolean | null
}

export interface SolutionsOptions {
  readonly suite?: string
  readonly instance?: string
  /** Only these templates (tests run one instance per template). */
  readonly instances?: (tasks: ReadonlyArray<SuiteTask>) => ReadonlyArray<SuiteTask>
  readonly out?: string
  readonly progress?: (line: string) => void
}

/** A fresh episode of the instance's site and seed: its tenant (for the checker) and start URL. */
const startEpisode = (sites: SitesServer, task: SuiteTask) => Effect.promise(() => episodeSource(sites).open(task.site, task.siteSeed))

/**
 * The instance's scripts, each already given its seed's site data and the instance's
 * parameters — or `parameters` of another instance (a run that does the wrong item on this seed).
 */
export const scriptsOf = (
  task: SuiteTask,
  parameters: Params = task.parameters
): Readonly<Record<string, () => ReadonlyArray<Step>>> | undefined => {
  const suite = bySuite[task.suite]
  const scripts = suite?.scripts[task.templateId]
  if (suite === undefined || scripts === undefined) return undefined
  return Object.fromEntries(
    Object.entries(scripts).map(([family, script]) => [family, () => script(parameters, suite.base(task.siteSeed))])
  )
}

/** The checker's verdict on an episode after `run`. */
export const verdictOf = (sites: SitesServer, task: SuiteTask, tenant: string, run: ScriptRun) =>
  Effect.promise(() =>
    check(task.checker, { api: sites, tenant, parameters: task.parameters, answer: run.answer, status: run.status, finalUrl: run.finalUrl })
  )

/**
 * What running scripts needs, for the scope: the sites server, a temp blob store, the
 * browser pool and one web environment (`context` provides BlobStore and BrowserPool).
 * With `ahead`, the environment opens site episodes itself (reset by `site` + `siteSeed`)
 * and prepares the next one of the same seed while a script runs.
 */
export const solutionsRuntime = (options: { readonly screenshots: ScreenshotPolicy; readonly ahead?: boolean }) =>
  Effect.gen(function* () {
    const sites = yield* Effect.acquireRelease(
      Effect.sync(() => startSites()),
      (s) => Effect.promise(() => s.stop())
    )
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-solutions-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    const context = yield* Layer.build(BrowserPool.layer().pipe(Layer.merge(DirectoryBlobStore.layer({ dir }))))
    const env = yield* Effect.provideContext(
      WebEnvironment.make({
        screenshots: options.screenshots,
        ...(options.ahead === true ? { episodes: episodeSource(sites) } : {})
      }),
      context
    )
    return { sites, env, context }
  })

/** Loads a written demo back and replays it on a fresh episode: null when it passes its checker again, else why not. */
const replayWritten = (env: EnvironmentShape, sites: SitesServer, task: SuiteTask, file: string) =>
  Effect.gen(function* () {
    const demo = yield* loadDemo(file, { tasks: new Set([task.id]) }).pipe(
      Effect.mapError((e) => new ScriptError({ message: e.message, notApplicable: false }))
    )
    const episode = yield* startEpisode(sites, task)
    const run = yield* replayDemo(env, { taskId: task.id, startUrl: episode.startUrl, siteSeed: task.siteSeed }, demo.steps).pipe(
      Effect.ensuring(env.close())
    )
    const verdict = yield* verdictOf(sites, task, episode.episode, run)
    return verdict.success ? null : `the checker fails the replay: ${verdict.reason}`
  }).pipe(Effect.catchTag("ScriptError", (e) => Effect.succeed(e.message)))

/** One family of one instance: run, check, maybe write the demo and replay it. */
const solveOne = (env: EnvironmentShape, sites: SitesServer, task: SuiteTask, family: string, primary: boolean, out: string | undefined) =>
  Effect.gen(function* () {
    const base = { instance: task.id, template: task.templateId, family, primary }
    const script = scriptsOf(task)?.[family]
    if (script === undefined)
      return {
        ...base,
        outcome: "fail",
        reason: "no script for this path family",
        steps: 0,
        demo: null,
        replayed: null
      } satisfies SolutionResult
    const episode = yield* startEpisode(sites, task)
    const run: PlayedRun | ScriptError = yield* runScript(env, task.id, episode.startUrl, task.siteSeed, script()).pipe(
      Effect.catchTag("ScriptError", (e) => Effect.succeed(e))
    )
    yield* env.close()
    if (run instanceof ScriptError)
      return {
        ...base,
        outcome: run.notApplicable ? "n/a" : "fail",
        reason: run.message,
        steps: 0,
        demo: null,
        replayed: null
      } satisfies SolutionResult
    const verdict = yield* verdictOf(sites, task, episode.episode, run)
    const demo =
      primary && out !== undefined && verdict.success
        ? yield* toDemoFolder(run, join(out, task.suite, task.id), { demoId: `${task.id}-script`, taskId: task.id })
        : null
    const replay = demo === null ? null : yield* replayWritten(env, sites, task, demo)
    if (replay !== null)
      return {
        ...base,
        outcome: "fail",
        reason: `the written demo does not replay: ${replay}`,
        steps: run.steps.length,
        demo,
        replayed: false
      } satisfies SolutionResult
    return {
      ...base,
      outcome: verdict.success ? "pass" : "fail",
      reason: verdict.reason,
      steps: run.steps.length,
      demo,
      replayed: demo === null ? null : true
    } satisfies SolutionResult
  })

/**
 * The expert demo of one instance: its primary path family's script run on a fresh episode,
 * kept only when the checker passes it, written as a core-demo folder under `out`
 * (`<out>/<suite>/<instance>/demo.json`). What `bun core run` ingests for a task without a demo.
 */
/** `demoId` defaults to `<task>-script`; a demo recorded on another platform needs its own id. */
export const expertDemo = (
  env: EnvironmentShape,
  sites: SitesServer,
  task: SuiteTask,
  out: string,
  options: { readonly demoId?: string } = {}
) =>
  Effect.gen(function* () {
    const family = task.pathFamilies[0]?.id
    const script = family === undefined ? undefined : scriptsOf(task)?.[family]
    if (script === undefined)
      return yield* new ScriptError({ message: `${task.id}: no scripted solution for its primary path family`, notApplicable: true })
    const episode = yield* startEpisode(sites, task)
    const run = yield* runScript(env, task.id, episode.startUrl, task.siteSeed, script()).pipe(Effect.ensuring(env.close()))
    const verdict = yield* verdictOf(sites, task, episode.episode, run)
    if (!verdict.success)
      return yield* new ScriptError({ message: `${task.id}: the scripted demo fails its checker: ${verdict.reason}`, notApplicable: false })
    return yield* toDemoFolder(run, join(out, task.suite, task.id), { demoId: options.demoId ?? `${task.id}-script`, taskId: task.id })
  })

/** Runs every scripted solution of the chosen train instances; never fails on a failing script (that is a result). */
export const runSolutions = (options: SolutionsOptions = {}) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    const suites = yield* loadSuites()
    const suite = options.suite ?? "shop"
    if (!SOLVED_SUITES.includes(suite))
      return yield* new SuiteError({ message: `no scripted solutions for suite '${suite}' yet (have: ${SOLVED_SUITES.join(", ")})` })
    let tasks: ReadonlyArray<SuiteTask> = suites
      .filter((s) => s.suite === suite)
      .flatMap((s) => s.tasks)
      .filter((t) => t.split === "train")
    if (options.instance !== undefined) tasks = tasks.filter((t) => t.id === options.instance)
    if (options.instances !== undefined) tasks = options.instances(tasks)
    if (tasks.length === 0) return yield* new SuiteError({ message: `no train instance '${options.instance ?? ""}' in suite '${suite}'` })
    const { sites, env, context } = yield* solutionsRuntime({ screenshots: "key" })
    const results: Array<SolutionResult> = []
    for (const task of tasks) {
      for (const [i, family] of task.pathFamilies.entries()) {
        const r = yield* Effect.provideContext(solveOne(env, sites, task, family.id, i === 0, options.out), context)
        log(`${r.outcome.padEnd(4)} ${task.id} ${family.id}: ${r.reason}`)
        results.push(r)
      }
    }
    return results as ReadonlyArray<SolutionResult>
  }).pipe(Effect.scoped)
