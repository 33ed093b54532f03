/**
 * EVALUATION: a trained policy on held-out tasks, judged by the app's own check (the
 * bundled sites' checkers, an app pack's `evaluate`). The episodes are the pipeline's own
 * `rollout` — the policy acts exactly as in a run's rounds (the retrieval policy exploring
 * where it has no confident match; the learned policy ranking the page's candidates) — in
 * real Chromium, or on an Android pack's devices; nothing is written to the log: the app's
 * answers are not CORE's. No screenshots are taken: neither policy reads them, and they are
 * half a step's time.
 *
 * The model is rebuilt from a run's log (ArmModels.ts); round 0 is the demos alone
 * (behaviour cloning).
 *
 * @example
 * const { app, environment } = yield* evalApp(undefined, config)   // or an app pack's
 * const r = yield* evaluatePolicy({ app, environment, tasks: heldOut, arm, seed: "s1", samples: 1, stepBudget: 12, parallel: 2 }, layer)
 */
import { Effect, Layer } from "effect"
import type { Scope } from "effect"
import type { BlobStore } from "@core/blobstore"
import { BrowserPool } from "@core/env-web"
import type { EnvironmentShape, EnvTask } from "@core/environment"
import type { EventStore } from "@core/eventstore"
import { liveObservations, rollout, trajectoryIdOf } from "@core/pipeline"
import type { EpisodeEnd, RolloutInput, RunApp, RunTask } from "@core/pipeline"
import { RETRIEVAL } from "@core/domain"
import { noModels, Randomness } from "@core/engine"
import type { ArmModel } from "./ArmModels.ts"

export interface PolicyEvalOptions {
  /** Where the episodes play and who judges them. */
  readonly app: RunApp
  /** One environment on the app's platform (EvalApp.ts): made once per parallel episode. */
  readonly environment: Effect.Effect<EnvironmentShape, never, BlobStore | BrowserPool | Scope.Scope>
  readonly tasks: ReadonlyArray<RunTask>
  /** The policy and its model (a null model only explores), read by the versions its run recorded. */
  readonly arm: ArmModel
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

/** The policy an arm's rollouts play, and its model, as the rollout takes them. */
const armPolicy = (arm: ArmModel): Pick<RolloutInput, "policy" | "retrieval" | "learned" | "exploration"> =>
  arm.kind === "embedded"
    ? {
        policy: arm.retrieval === RETRIEVAL.versions[0] ? { kind: "embedded" } : { kind: "embedded", retrieval: arm.retrieval },
        retrieval: arm.model
      }
    : { policy: { kind: "learned" }, learned: arm.model, exploration: arm.exploration }

/**
 * Several models on the same tasks and seed, one after another in one browser and one app
 * (their start-up is paid once): each model's episodes draw from a fresh `seed`, so the arms
 * of a comparison see the same randomness. Each model is read by its own policy version.
 */
export const evaluatePolicies = <LE>(
  o: Omit<PolicyEvalOptions, "arm"> & {
    readonly arms: ReadonlyArray<ArmModel>
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
    for (const [index, arm] of o.arms.entries()) {
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
            ...armPolicy(arm)
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
  Effect.map(evaluatePolicies({ ...o, arms: [o.arm] }, layer), (results) => results[0]!)
