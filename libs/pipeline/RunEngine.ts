/**
 * A CORE run end to end, on any app (`RunApp`): register the tasks, give each a demo
 * unless one is ingested already (the app plays it, the engine ingests it), then drive the
 * pipeline's deciders — inference → rounds of rollouts → verification → expansion — in
 * real Chromium (or on an Android pack's devices through Appium), telling `progress` as it goes.
 *
 * MEASUREMENT beside the run: when an episode ends, the app's own judgement is asked for
 * (`RunApp.judge`: a bundled site's checker, a pack's `evaluate`). Its answers never enter
 * the log or any decision; they only feed the metrics.
 *
 * @example
 * const outcome = yield* executeRun(config, storeLayer, plan, app, progress)
 */
import { Effect, Layer, Stream } from "effect"
import type { Scope } from "effect"
import { groundTruthFile, readGroundTruth, writeGroundTruth } from "./GroundTruth.ts"
import { BlobStore } from "@core/blobstore"
import { plural } from "@core/demos"
import { runIdentity, setOfMarksFor } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { BrowserPool } from "@core/env-web"
import type { EnvironmentShape, EnvTask, ScreenshotPolicy } from "@core/environment"
import type { CoreEvent, Platform } from "@core/events"
import { EventStore } from "@core/eventstore"
import { ModelClient, modelOptionsFromConfig } from "@core/models"
import type { ModelCalledEvent } from "@core/models"
import type { RemoteEpisodes } from "./Rollout.ts"
import { EXPLORATION_VERSION, LF_API_GUIDE_VERSION, SYNTHESIS_VERSION } from "@core/domain"
import { RETRIEVAL_VERSION } from "@core/policy"
import { drive, modelCallRecorder, newRunId, noModels, Randomness, readRunLog, resumeLayers, startRun } from "@core/engine"
import type { RecordedRunConfig } from "@core/engine"
import { pipelineDeciders } from "./Deciders.ts"
import { liveObservations } from "./LiveObservations.ts"
import type { EpisodeEnd } from "./LiveObservations.ts"
import { environmentsNamed, platformEnvironment } from "./PlatformEnvironment.ts"
import { registerTasks } from "./Registration.ts"
import { progressLines } from "./RunProgress.ts"
import type { RunProgress } from "./RunProgress.ts"
import type { EpisodeJudgement, RunApp, RunTask } from "./RunApp.ts"
import { ensureDemos, RunError } from "./RunDemos.ts"
import { labelSandbox } from "./LabelSandbox.ts"
import { configuredModels, DATA_RULES_VERSION, RUN_DEFAULTS, runPolicy } from "./RunConfig.ts"
import { modelSources, runConfigCodec } from "./RunStart.ts"
import type { RunConfig } from "./RunConfig.ts"

export interface RunPlan {
  readonly command: "run" | "demo"
  readonly tasks: ReadonlyArray<RunTask>
  readonly rounds: number
  readonly samples: number
  readonly stepBudget: number
  readonly parallel: number
  readonly policy: RunConfig["policy"]["kind"]
  /** Flags that set the plan, by the config key they set (RUN_CONFIG_KEYS): RunStarted's config sources ("flag:--rounds"). */
  readonly sources: Readonly<Record<string, string>>
  /** Expansion and extrapolation knobs (an ablation turns one to 0); RUN_DEFAULTS where absent. */
  readonly tuning?: Partial<Pick<RunConfig, "expandPerTask" | "explorePerTask" | "extrapolatePerTask" | "extrapolatedSamples">>
  /** The app routes by the URL's fragment (its pack says so); default false. */
  readonly hashRouting?: boolean
  /**
   * More RunStarted config that no decider reads (the pack a run played, `run.app`,
   * `run.appDir`), recorded like the rest; never a RunConfig key.
   */
  readonly extra?: Readonly<Record<string, unknown>>
  /**
   * Which observations carry a screenshot; default "all" for a model policy (it reads them),
   * else "key" (after state-changing actions: what the dataset's images need). "none" is for
   * runs whose only consumer is the embedded policy, which reads no pixels (eval --report):
   * a screenshot is about half of a step's time here. Demos are always recorded with them.
   */
  readonly screenshots?: ScreenshotPolicy
  /** Continue this logged run instead of starting one (the plan is then the run's own). */
  readonly resume?: { readonly runId: string; readonly seed: string }
  /**
   * Default "web". "mobile-web": every episode, demos included, in a phone-emulating Chromium
   * over WebDriver. "android": on the Appium server each episode's source names (an Android
   * pack's instances), with the config's `android.capabilities`.
   */
  readonly platform?: Platform
  /**
   * Episodes played by workers on a queue (`run --workers queue`) instead of this process's
   * environments: the RemoteEpisodes layer for the run, once its id and seed are known.
   * `parallel` is then the number of episodes in flight.
   */
  readonly workers?: (run: RemoteRun) => Layer.Layer<RemoteEpisodes, unknown, BlobStore | Scope.Scope>
}

/** What the run tells the layer that hands its episodes to workers. */
export interface RemoteRun {
  readonly runId: string
  readonly seed: string
  /** Where and how episodes are observed, as this process would have. */
  readonly platform: Platform
  readonly screenshots: ScreenshotPolicy
  readonly setOfMarks: boolean
  /** Logs a model call a worker's policy made, where the run's own are logged. */
  readonly record: (event: ModelCalledEvent) => Effect.Effect<void, unknown>
  /** The task whose start an episode of `taskId` uses (an extrapolated task's parent). */
  readonly startTaskOf: (taskId: string) => string
  /** Told of each record a worker played: its worker, and the app's judgement (measurement only). */
  readonly onResult: (r: {
    readonly worker: string
    readonly trajectoryId: string
    readonly judgement: EpisodeJudgement | null
    /** The episode's steps, for the progress a process that plays none would not count. */
    readonly steps: number
  }) => void
  readonly log: (line: string) => void
}

/**
 * What a new run's RunStarted records of its parameters: its RunConfig (RUN_DEFAULTS for
 * the knobs the plan leaves out), the plan's `extra`, and each key's source.
 */
const runStartedConfig = (
  plan: RunPlan,
  identity: { readonly config: Readonly<Record<string, unknown>>; readonly configSources: Readonly<Record<string, string>> },
  heldOut: ReadonlyArray<string>,
  demos: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const models = configuredModels(identity.config)
    const policy = runPolicy(plan.policy, models.policyModel)
    if (policy === null)
      return yield* new RunError({ message: "--policy model needs the model's name: set models.model (bun core config show)" })
    const tuning = plan.tuning ?? {}
    const run: RunConfig = {
      tasks: plan.tasks.map((t) => t.id),
      rounds: plan.rounds,
      samples: plan.samples,
      stepBudget: plan.stepBudget,
      policy,
      expandPerTask: tuning.expandPerTask ?? RUN_DEFAULTS.expandPerTask,
      explorePerTask: tuning.explorePerTask ?? RUN_DEFAULTS.explorePerTask,
      extrapolatePerTask: tuning.extrapolatePerTask ?? RUN_DEFAULTS.extrapolatePerTask,
      extrapolatedSamples: tuning.extrapolatedSamples ?? RUN_DEFAULTS.extrapolatedSamples,
      heldOut,
      platform: plan.platform ?? RUN_DEFAULTS.platform,
      hashRouting: plan.hashRouting ?? RUN_DEFAULTS.hashRouting,
      synthesis: SYNTHESIS_VERSION,
      lfGuide: LF_API_GUIDE_VERSION,
      dataRules: DATA_RULES_VERSION,
      exploration: EXPLORATION_VERSION,
      retrieval: RETRIEVAL_VERSION,
      model: models.model,
      demos
    }
    return {
      value: run,
      codec: runConfigCodec,
      ...(plan.extra === undefined ? {} : { extra: plan.extra }),
      sources: { ...modelSources(identity), ...plan.sources }
    } satisfies RecordedRunConfig<RunConfig>
  })

export interface RunOutcome {
  readonly runId: string
  readonly events: ReadonlyArray<CoreEvent>
  /** The app's judgement of each episode it could judge, by trajectory id (measurement only). */
  readonly groundTruth: ReadonlyMap<string, EpisodeJudgement>
  readonly seconds: number
}

export const executeRun = (
  config: LoadedConfig,
  layer: Layer.Layer<EventStore | BlobStore, unknown>,
  plan: RunPlan,
  app: RunApp,
  progress: RunProgress
) =>
  Effect.gen(function* () {
    const started = Date.now()
    const server = modelOptionsFromConfig(config)
    if (plan.policy === "model" && (server === null || config.values["models.model"] === null)) {
      return yield* new RunError({
        message: "--policy model needs a model server: set models.baseUrl and models.model (bun core config show)"
      })
    }
    const context = yield* Layer.build(Layer.merge(BrowserPool.layer(), layer))
    const screenshots = plan.screenshots ?? (plan.policy === "model" ? "all" : "key")
    // A worker's next episode is of the same task only when a task has more rollouts than there are workers.
    const prepareAhead = plan.samples > plan.parallel
    const platform = plan.platform ?? RUN_DEFAULTS.platform
    const setOfMarks = setOfMarksFor(config, plan.policy)
    const makeEnvironment = (policy: ScreenshotPolicy, marks: boolean) =>
      Effect.provideContext(
        platformEnvironment(config, platform, { screenshots: policy, prepareAhead, episodes: app.episodes, setOfMarks: marks }),
        context
      )
    const environments: Array<EnvironmentShape> = []
    // With workers, this process plays only demos: one environment.
    const local = plan.workers === undefined ? plan.parallel : 1
    for (let i = 0; i < local; i++) environments.push(yield* makeEnvironment(screenshots, setOfMarks))
    // A demo's screenshots are part of what it records, whatever the rollouts skip; a demo file keeps no marks.
    const demoEnvironment = screenshots === "none" || setOfMarks ? yield* makeEnvironment("key", false) : environments[0]!
    const program = Effect.gen(function* () {
      const store = yield* EventStore
      let runId: string
      let seed: string
      let prior: ReadonlyArray<CoreEvent>
      let start: ReadonlyArray<CoreEvent> = []
      let resume: { events: ReadonlyArray<CoreEvent>; revisions: ReadonlyMap<string, number> } | undefined
      if (plan.resume !== undefined) {
        runId = plan.resume.runId
        const log = yield* readRunLog(runId).pipe(Effect.mapError((e) => new RunError({ message: e.message })))
        const read = log.run
        prior = log.workspace
        const revisions = new Map<string, number>()
        for (const r of read) revisions.set(r.event.stream, r.position)
        resume = { events: read.map((r) => r.event), revisions }
        seed = plan.resume.seed
        progress.line(
          `run ${runId}: resuming after ${read.length} logged events (${plan.tasks.length} tasks, ${plan.rounds} rounds × ${plan.samples} samples)`
        )
      } else {
        yield* registerTasks(plan.tasks.map((t) => t.registration))
        // Held-out tasks of the same apps are registered too: the contamination guard keeps generated tasks away from them.
        const heldOut = yield* app.heldOut(plan.tasks).pipe(Effect.mapError((e) => new RunError({ message: e.message })))
        yield* registerTasks(heldOut.map((t) => t.registration))
        const demos = yield* ensureDemos(app, demoEnvironment, plan.tasks, config.values.dataDir, platform, (l) => progress.line(l))
        prior = (yield* Stream.runCollect(store.readAll({ filter: "ws.>" }))).map((r) => r.event)
        runId = yield* newRunId(plan.command)
        const identity = yield* runIdentity(config)
        seed = identity.seed
        const recorded = yield* runStartedConfig(
          plan,
          identity,
          heldOut.map((t) => t.id),
          plan.tasks.flatMap((t) => (demos.has(t.id) ? [demos.get(t.id)!] : []))
        )
        start = [yield* startRun("run", recorded, identity, runId).pipe(Effect.mapError((e) => new RunError({ message: e.message })))]
        progress.line(
          `run ${runId}: ${plural(plan.tasks.length, "task")}, ${plural(plan.rounds, "round")} × ${plural(plan.samples, "sample")}, policy ${plan.policy === "model" ? `model ${server?.model}` : plan.policy === "embedded" ? "embedded (retrieval, trained on each round's data)" : "exploration (seeded, no model)"}, ${plan.parallel} ${environmentsNamed[platform]}`
        )
      }

      const calls = modelCallRecorder(store)
      const blobs = yield* BlobStore
      // Screenshots travel to the model as data: URLs, read from the blob store by hash at send time.
      const models =
        server === null
          ? noModels
          : ModelClient.layer({ ...server, runId, record: calls.record, resolveImage: (hash: string) => blobs.get(hash) })

      const byId = new Map(plan.tasks.map((t) => [t.id, t]))
      // A resumed run keeps what was judged before: the episodes it does not play again are not judged again.
      const truthFile = groundTruthFile(config.values.dataDir, runId)
      // An unreadable file costs only measurement, never the run: the resumed run judges afresh.
      const kept = resume === undefined ? null : yield* readGroundTruth(truthFile).pipe(Effect.orElseSucceed(() => null))
      const groundTruth = new Map<string, EpisodeJudgement>(kept ?? [])
      const onEnd = (end: EpisodeEnd) =>
        Effect.gen(function* () {
          const task = byId.get(end.task.taskId)
          // Not an episode of one of the app's tasks (an extrapolated one), or it never reached the app: nothing to judge.
          if (task === undefined || end.last?.episode == null) return
          const verdict = yield* app.judge(task, end)
          if (verdict === null) return
          groundTruth.set(end.trajectoryId, verdict)
          // Written as each episode is judged: an interrupted run keeps its judgements for --resume.
          yield* Effect.sync(() => writeGroundTruth(truthFile, groundTruth))
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

      const events: Array<CoreEvent> = [...(resume?.events ?? [])]
      const shares = new Map<string, number>()
      const tell = progressLines(progress, plan.rounds, shares)
      const onEvent = (e: CoreEvent) => {
        events.push(e)
        noteParent(e)
        tell(e)
      }
      const environment = resume === undefined ? Layer.merge(models, observations) : resumeLayers(resume.events, { observations, models })
      const remote =
        plan.workers?.({
          runId,
          seed,
          platform,
          screenshots,
          setOfMarks,
          record: calls.record,
          startTaskOf: (taskId) => (byId.has(taskId) ? taskId : (parents.get(taskId) ?? taskId)),
          onResult: (r) => {
            shares.set(r.worker, (shares.get(r.worker) ?? 0) + 1)
            progress.tick(r.steps)
            if (r.judgement === null) return
            groundTruth.set(r.trajectoryId, r.judgement)
            writeGroundTruth(truthFile, groundTruth)
          },
          log: (l) => progress.line(l)
        }) ?? Layer.empty
      yield* drive({
        registry: pipelineDeciders,
        runId,
        prior,
        start,
        onEvent,
        concurrency: plan.parallel,
        inputs: calls,
        ...(resume === undefined ? {} : { resume })
      }).pipe(Effect.provide(Layer.mergeAll(labelSandbox(), environment, remote, Randomness.layer(seed))))
      return { runId, events, groundTruth }
    })
    const { runId, events, groundTruth } = yield* Effect.provideContext(program, context)
    for (const env of new Set([...environments, demoEnvironment])) yield* env.close()
    yield* Effect.sync(() => writeGroundTruth(groundTruthFile(config.values.dataDir, runId), groundTruth))
    return { runId, events, groundTruth, seconds: Math.round((Date.now() - started) / 100) / 10 } satisfies RunOutcome
  }).pipe(Effect.scoped)
