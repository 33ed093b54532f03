/**
 * EVALUATION: the embedded policy on held-out tasks, judged by the app's own check (the
 * bundled sites' checkers, an app pack's `evaluate`). The episodes are the pipeline's own
 * `rollout` — the policy acts exactly as in a run's rounds (retrieval, exploring where it has
 * no confident match) — in real Chromium, or on an Android pack's devices; nothing is written to the log: the app's answers
 * are not CORE's. No screenshots are taken: the embedded policy reads none, and they are
 * half a step's time.
 *
 * The model is rebuilt from a run's log: the retrieval policy trained on the sft records of
 * rounds 0..N (`retrievalModelOf`), round 0 being the demos alone (behaviour cloning).
 *
 * @example
 * const { app, environment } = yield* evalApp(undefined, config)   // or an app pack's
 * const r = yield* evaluatePolicy({ app, environment, tasks: heldOut, model, seed: "s1", samples: 1, stepBudget: 12, parallel: 2 }, layer)
 */
import { Effect, Layer } from "effect"
import type { Scope } from "effect"
import type { BlobStore } from "@core/blobstore"
import { BrowserPool } from "@core/env-web"
import type { EnvironmentShape, EnvTask } from "@core/environment"
import type { CoreEvent } from "@core/events"
import type { EventStore } from "@core/eventstore"
import { evolveRun, initialRunState, liveObservations, retrievalModelOf, rollout, trajectoryIdOf } from "@core/pipeline"
import type { EpisodeEnd, RunApp, RunState, RunTask } from "@core/pipeline"
import { RETRIEVAL } from "@core/domain"
import type { RetrievalVersion } from "@core/domain"
import type { RetrievalModel } from "@core/policy"
import { noModels, Randomness } from "@core/engine"

export interface PolicyEvalOptions {
  /** Where the episodes play and who judges them. */
  readonly app: RunApp
  /** One environment on the app's platform (EvalApp.ts): made once per parallel episode. */
  readonly environment: Effect.Effect<EnvironmentShape, never, BlobStore | BrowserPool | Scope.Scope>
  readonly tasks: ReadonlyArray<RunTask>
  /** null: no trained model, the embedded policy only explores. */
  readonly model: RetrievalModel | null
  /** The retrieval policy's version the model is read with: the one its run recorded (default "1"). */
  readonly retrieval?: RetrievalVersion
  readonly seed: string
  readonly samples: number
  readonly stepBudget: number
  readonly parallel: number
  readonly onEpisode?: (taskId: string, success: boolean) => void
  readonly onStep?: () => void
}

export interface PolicyEvalResult {
  readonly episodes: number
  readonly successes: number
  readonly success_rate: number
  /** Per task: the share of its episodes the checker accepted. */
  readonly per_task: Readonly<Record<string, number>>
}

/** The model a run had trained through `round` (0 = the demos), from its log, with the policy version the run played. */
export const modelAtRound = (
  events: ReadonlyArray<CoreEvent>,
  round: number | null
):
  | {
      readonly model: RetrievalModel
      readonly retrieval: RetrievalVersion
      readonly round: number
      readonly examples: number
      readonly sites: ReadonlySet<string>
    }
  | string => {
  const s: RunState = events.reduce(evolveRun, initialRunState)
  if (s.config === null) return "it is not a CORE run (bun core run)"
  const sealed = [...s.seals.keys()].sort((a, b) => a - b)
  // Default: the last round whose data it learned.
  const at = round ?? sealed.at(-1) ?? 0
  if (!s.seals.has(at)) return `its round ${at} dataset is not sealed (sealed: ${sealed.join(", ") || "none"})`
  const sites = new Set(s.config.tasks.flatMap((t) => s.tasks.get(t)?.site ?? []))
  return {
    model: retrievalModelOf(s, at),
    retrieval: s.config.retrieval,
    round: at,
    examples: s.examples.filter((x) => x.round <= at).length,
    sites
  }
}

/**
 * Several models on the same tasks and seed, one after another in one browser and one app
 * (their start-up is paid once): each model's episodes draw from a fresh `seed`, so the arms
 * of a comparison see the same randomness. Each model is read by its own policy version.
 */
export const evaluatePolicies = <LE>(
  o: Omit<PolicyEvalOptions, "model" | "retrieval"> & {
    readonly models: ReadonlyArray<{ readonly model: RetrievalModel | null; readonly retrieval: RetrievalVersion }>
    readonly onModel?: (index: number, result: PolicyEvalResult) => void
  },
  layer: Layer.Layer<EventStore | BlobStore, LE>
) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(Layer.merge(BrowserPool.layer(), layer))
    const environments: Array<EnvironmentShape> = []
    for (let i = 0; i < o.parallel; i++) environments.push(yield* Effect.provideContext(o.environment, context))
    const byId = new Map(o.tasks.map((t) => [t.id, t]))
    const taskOf = (taskId: string): EnvTask | undefined => {
      const t = byId.get(taskId)
      return t === undefined ? undefined : { ...t.start, taskId }
    }
    const jobs = o.tasks.flatMap((t) => Array.from({ length: o.samples }, (_, sample) => ({ t, sample })))
    const results: Array<PolicyEvalResult> = []
    for (const [index, { model, retrieval }] of o.models.entries()) {
      const outcomes = new Map<string, boolean>()
      const onEnd = (end: EpisodeEnd) =>
        Effect.gen(function* () {
          const task = byId.get(end.task.taskId)
          if (task === undefined) return
          // An episode the app cannot judge is not a success.
          const success = (yield* o.app.judge(task, end))?.success === true
          outcomes.set(end.trajectoryId, success)
          o.onEpisode?.(task.id, success)
        })
      const observations = liveObservations({ environments, taskOf, onEnd, ...(o.onStep === undefined ? {} : { onStep: o.onStep }) })
      yield* Effect.forEach(
        jobs,
        ({ t, sample }) =>
          rollout({
            causationId: `eval-${o.seed}`,
            trajectoryId: trajectoryIdOf(1, t.id, sample),
            taskId: t.id,
            instruction: t.registration.instruction,
            round: 1,
            sample,
            stepBudget: o.stepBudget,
            policy: retrieval === RETRIEVAL.versions[0] ? { kind: "embedded" } : { kind: "embedded", retrieval },
            retrieval: model
          }),
        { concurrency: o.parallel, discard: true }
      ).pipe(
        Effect.provide(Layer.mergeAll(Layer.provide(observations, Layer.succeedContext(context)), Randomness.layer(o.seed), noModels)),
        Effect.provideContext(context)
      )
      const per_task: Record<string, number> = {}
      for (const t of o.tasks) {
        const mine = Array.from({ length: o.samples }, (_, s) => outcomes.get(trajectoryIdOf(1, t.id, s)) === true)
        per_task[t.id] = mine.filter(Boolean).length / o.samples
      }
      const successes = [...outcomes.values()].filter(Boolean).length
      const result = {
        episodes: jobs.length,
        successes,
        success_rate: jobs.length === 0 ? 0 : successes / jobs.length,
        per_task
      } satisfies PolicyEvalResult
      results.push(result)
      o.onModel?.(index, result)
    }
    for (const env of environments) yield* env.close()
    return results
  }).pipe(Effect.scoped)

export const evaluatePolicy = <LE>(o: PolicyEvalOptions, layer: Layer.Layer<EventStore | BlobStore, LE>) =>
  Effect.map(
    evaluatePolicies({ ...o, models: [{ model: o.model, retrieval: o.retrieval ?? RETRIEVAL.versions[0] }] }, layer),
    (results) => results[0]!
  )
