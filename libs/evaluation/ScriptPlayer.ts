/**
 * Plays scripted solutions on fresh episodes of the bundled sites and has each run judged by
 * its task's ground-truth checker. EVALUATION CODE, shared by the label evaluation set and the
 * hard-negative suite. A run that breaks midway is returned as it stands: what a failing
 * policy leaves behind is a trajectory too.
 *
 * @example
 * const { judge, lfOf } = yield* openScriptPlayer() // needs Scope
 * const judged = yield* judge(task, steps)           // { run, checker, reason }
 * const trajectory = yield* lfOf(judged.run)
 */
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { fromRecordedSteps, lfElements } from "@core/domain"
import type { LfElement, LfTrajectory } from "@core/domain"
import { episodeSource } from "@core/sites"
import { runScriptPartial, solutionsRuntime, verdictOf } from "@core/sites/solutions"
import type { PartialRun, Step } from "@core/sites/solutions"
import type { SuiteTask } from "@core/sites/suites"
import type { DemoStep } from "@core/events"

export interface EvalTask {
  readonly taskId: string
  readonly suite: string
  readonly template: string
  readonly instruction: string
  /** The primary family, whose run is the demo. */
  readonly family: string
  /** The primary family's run on a fresh episode: what `solutions run --out` writes as the demo. */
  readonly demo: LfTrajectory
  /** The same run as DemoIngested steps. */
  readonly demoSteps: ReadonlyArray<DemoStep>
  /** The checker's verdict on the demo run (false would make the task's demo useless). */
  readonly demoChecker: boolean
  readonly demoNote: string
}

/** A run of one script on a fresh episode of the task, judged by its checker. */
export interface Judged {
  readonly run: PartialRun
  readonly checker: boolean
  readonly reason: string
}

export const openScriptPlayer = () =>
  Effect.gen(function* () {
    const { sites, env, context } = yield* solutionsRuntime({ screenshots: "none", ahead: true })
    const blobs = yield* Effect.provideContext(
      Effect.gen(function* () {
        return yield* BlobStore
      }),
      context
    )
    const elementsCache = new Map<string, ReadonlyArray<LfElement> | null>()
    const decoder = new TextDecoder()

    /** The run as an LF trajectory: its element lists read from the blob store once each. */
    const lfOf = (run: PartialRun) =>
      Effect.gen(function* () {
        for (const hash of [run.initial.elements, ...run.steps.map((s) => s.observation.elements)]) {
          if (hash === null || elementsCache.has(hash)) continue
          const bytes = yield* blobs.get(hash)
          elementsCache.set(hash, lfElements(JSON.parse(decoder.decode(bytes))))
        }
        return fromRecordedSteps(run.initial, run.steps, (hash) => elementsCache.get(hash) ?? null)
      })

    const judge = (task: SuiteTask, steps: ReadonlyArray<Step>) =>
      Effect.gen(function* () {
        const run = yield* runScriptPartial(env, { taskId: task.id, site: task.site, siteSeed: task.siteSeed }, steps).pipe(
          Effect.ensuring(env.close())
        )
        if (run.episode === null) return yield* Effect.die(new Error(`the environment opened no ${task.site} episode for ${task.id}`))
        const verdict = yield* verdictOf(sites, task, run.episode, run)
        // Hundreds of runs: the server need not keep every finished episode's state.
        yield* Effect.promise(() => episodeSource(sites).discard(run.episode!))
        return { run, checker: verdict.success, reason: verdict.reason } satisfies Judged
      }).pipe(
        // A crashed browser is the platform's fault, not the script's: the pool relaunches it.
        Effect.retry({ times: 2, while: (e) => e._tag === "InfraError" })
      )

    return { judge, lfOf }
  })

/** A task of the set, from its primary family's judged run: the demo its label functions are inferred from. */
export const evalTaskOf = (task: SuiteTask, demo: Judged, lfOf: (run: PartialRun) => Effect.Effect<LfTrajectory, unknown>) =>
  Effect.gen(function* () {
    const demoNote = [demo.reason, demo.run.error?.message].filter((x) => x !== undefined).join("; ")
    return {
      taskId: task.id,
      suite: task.suite,
      template: task.templateId,
      instruction: task.instruction,
      family: task.pathFamilies[0]!.id,
      demo: yield* lfOf(demo.run),
      demoSteps: demo.run.steps.map((s) => ({
        action: s.action,
        observation: { screenshot: s.observation.screenshot, elements: s.observation.elements, aria: s.observation.aria },
        urlBefore: s.urlBefore,
        urlAfter: s.urlAfter,
        appBefore: null,
        appAfter: null
      })),
      demoChecker: demo.checker && demo.run.error === null,
      demoNote
    } satisfies EvalTask
  })
