/**
 * What a live run plays with: its environments (one per episode in flight, and one to
 * record demos in), the model client, the live observations over those environments, and
 * — with workers — the layer that hands episodes to them. MEASUREMENT beside the run: when
 * an episode ends, the app's own judgement is asked for (`RunApp.judge`) and handed to the
 * plan's ground-truth sink; it never enters the log or any decision.
 *
 * @example
 * const environments = yield* openEnvironments(config, plan, app)
 * const live = yield* liveLayers({ config, plan, app, environments: environments.rollouts, prepared, progress })
 */
import { Effect, Layer } from "effect"
import type { Scope } from "effect"
import { BlobStore } from "@core/blobstore"
import { setOfMarksFor } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { modelCallRecorder, noModels, Randomness, resumeLayers, resumePublished } from "@core/engine"
import type { BrowserPool } from "@core/env-web"
import type { EnvironmentShape, EnvTask, ScreenshotPolicy } from "@core/environment"
import type { CoreEvent } from "@core/events"
import { EventStore } from "@core/eventstore"
import { ModelClient, modelOptionsFromConfig } from "@core/models"
import { labelSandbox, liveObservations, RUN_DEFAULTS } from "@core/pipeline"
import { publishedPolicies } from "@core/trainer"
import type { EpisodeEnd, EpisodeJudgement, RunApp } from "@core/pipeline"
import { platformEnvironment } from "./PlatformEnvironment.ts"
import type { PreparedRun } from "./Prepare.ts"
import type { RunPlan } from "./RunPlan.ts"
import { progressLines } from "./RunProgress.ts"
import type { RunProgress } from "./RunProgress.ts"

export interface RunEnvironments {
  /** Where this process plays rollouts: one per episode in flight, one when workers play them. */
  readonly rollouts: ReadonlyArray<EnvironmentShape>
  /** Where demos are recorded: with screenshots and no marks, whatever the rollouts skip. */
  readonly demo: EnvironmentShape
  readonly close: Effect.Effect<void>
}

const screenshotsOf = (plan: RunPlan): ScreenshotPolicy => plan.screenshots ?? (plan.policy === "model" ? "all" : "key")

export const openEnvironments = (
  config: LoadedConfig,
  plan: RunPlan,
  app: RunApp
): Effect.Effect<RunEnvironments, never, BlobStore | BrowserPool | Scope.Scope> =>
  Effect.gen(function* () {
    const screenshots = screenshotsOf(plan)
    // A worker's next episode is of the same task only when a task has more rollouts than there are workers.
    const prepareAhead = plan.samples > plan.parallel
    const platform = plan.platform ?? RUN_DEFAULTS.platform
    const setOfMarks = setOfMarksFor(config, plan.policy)
    const make = (policy: ScreenshotPolicy, marks: boolean) =>
      platformEnvironment(config, platform, { screenshots: policy, prepareAhead, episodes: app.episodes, setOfMarks: marks })
    const rollouts: Array<EnvironmentShape> = []
    // With workers, this process plays only demos: one environment.
    const local = plan.workers === undefined ? plan.parallel : 1
    for (let i = 0; i < local; i++) rollouts.push(yield* make(screenshots, setOfMarks))
    // A demo's screenshots are part of what it records, whatever the rollouts skip; a demo file keeps no marks.
    const demo = screenshots === "none" || setOfMarks ? yield* make("key", false) : rollouts[0]!
    const close = Effect.forEach(new Set([...rollouts, demo]), (env) => env.close(), { discard: true })
    return { rollouts, demo, close }
  })

export interface LiveInput {
  readonly config: LoadedConfig
  readonly plan: RunPlan
  readonly app: RunApp
  readonly environments: ReadonlyArray<EnvironmentShape>
  readonly prepared: PreparedRun
  readonly progress: RunProgress
}

/**
 * The layers a live run's deciders get (the LF sandbox, models, observations, the seeded
 * PRNG, and the workers' layer), the recorder of its model calls, what it tells of each
 * event it appends, and its judgements so far.
 */
export const liveLayers = ({ config, plan, app, environments, prepared, progress }: LiveInput) =>
  Effect.gen(function* () {
    const { runId, seed, resume } = prepared
    const store = yield* EventStore
    const blobs = yield* BlobStore
    const server = modelOptionsFromConfig(config)
    const calls = modelCallRecorder(store)
    // Screenshots travel to the model as data: URLs, read from the blob store by hash at send time.
    const models =
      server === null
        ? noModels
        : ModelClient.layer({ ...server, runId, record: calls.record, resolveImage: (hash: string) => blobs.get(hash) })

    const byId = new Map(plan.tasks.map((t) => [t.id, t]))
    // A resumed run keeps what was judged before: the episodes it does not play again are not judged again.
    // An unreadable record costs only measurement, never the run: the resumed run judges afresh.
    const kept = resume === undefined || plan.groundTruth === undefined ? null : yield* plan.groundTruth.kept(runId)
    const groundTruth = new Map<string, EpisodeJudgement>(kept ?? [])
    const judged = (trajectoryId: string, verdict: EpisodeJudgement) => {
      groundTruth.set(trajectoryId, verdict)
      plan.groundTruth?.judged(runId, groundTruth)
    }
    const onEnd = (end: EpisodeEnd) =>
      Effect.gen(function* () {
        const task = byId.get(end.task.taskId)
        // Not an episode of one of the app's tasks (an extrapolated one), or it never reached the app: nothing to judge.
        if (task === undefined || end.last?.episode == null) return
        const verdict = yield* app.judge(task, end)
        if (verdict !== null) judged(end.trajectoryId, verdict)
      })
    // Extrapolated tasks start where their parent does (TaskExtrapolated's lineage).
    const parents = new Map<string, string>()
    const noteParent = (e: CoreEvent) => {
      if (e.type === "TaskExtrapolated") parents.set(e.data.newTaskId, e.data.lineage.parentTaskId)
    }
    for (const e of resume?.events ?? []) noteParent(e)
    const taskOf = (taskId: string): EnvTask | undefined => {
      const t = byId.get(taskId) ?? byId.get(parents.get(taskId) ?? "")
      return t === undefined ? undefined : { ...t.start, taskId }
    }
    const observations = liveObservations({ environments, taskOf, onEnd, onStep: () => progress.tick() })
    const shares = new Map<string, number>()
    const tell = progressLines(progress, plan.rounds, shares)
    const environment = resume === undefined ? Layer.merge(models, observations) : resumeLayers(resume.events, { observations, models })
    // What the trainers outside the run have published, read from the run's own store when a round asks.
    const trainers = Layer.provide(publishedPolicies, Layer.merge(Layer.succeed(EventStore, store), Layer.succeed(BlobStore, blobs)))
    const published = resume === undefined ? trainers : resumePublished(resume.events, trainers)
    const remote =
      plan.workers?.({
        runId,
        seed,
        platform: plan.platform ?? RUN_DEFAULTS.platform,
        screenshots: screenshotsOf(plan),
        setOfMarks: setOfMarksFor(config, plan.policy),
        record: calls.record,
        startTaskOf: (taskId) => (byId.has(taskId) ? taskId : (parents.get(taskId) ?? taskId)),
        onResult: (r) => {
          shares.set(r.worker, (shares.get(r.worker) ?? 0) + 1)
          progress.tick(r.steps)
          if (r.judgement !== null) judged(r.trajectoryId, r.judgement)
        },
        log: (l) => progress.line(l)
      }) ?? Layer.empty
    return {
      layer: Layer.mergeAll(labelSandbox(), environment, published, remote, Randomness.layer(seed)),
      calls,
      onEvent: (e: CoreEvent) => {
        noteParent(e)
        tell(e)
      },
      groundTruth
    }
  })
