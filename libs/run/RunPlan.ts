/**
 * What a caller asks of a live run (`RunPlan`), what the run tells the layer that hands its
 * episodes to workers (`RemoteRun`), where the app's judgements go (`GroundTruthSink`), and
 * what comes back (`RunOutcome`).
 *
 * @example
 * const plan: RunPlan = { command: "run", tasks, rounds: 1, samples: 5, stepBudget: 12, parallel: 2, policy: "exploration", sources: {} }
 */
import type { Effect, Layer, Scope } from "effect"
import type { BlobStore, BlobStoreError } from "@core/blobstore"
import type { ScreenshotPolicy } from "@core/environment"
import type { CoreEvent, Platform } from "@core/events"
import type { ModelCalledEvent } from "@core/models"
import type { EpisodeJudgement, RemoteEpisodes, RunConfig, RunTask } from "@core/pipeline"
import type { QueueError } from "@core/workers"

export interface RunPlan {
  readonly command: "run" | "demo"
  readonly tasks: ReadonlyArray<RunTask>
  readonly rounds: number
  readonly samples: number
  readonly stepBudget: number
  readonly parallel: number
  readonly policy: RunConfig["policy"]["kind"]
  /** With the learned policy: take the versions this follow trainer publishes instead of training in the run. */
  readonly trainer?: string
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
  readonly workers?: (run: RemoteRun) => Layer.Layer<RemoteEpisodes, QueueError | BlobStoreError, BlobStore | Scope.Scope>
  /** Where the app's judgements are kept (evaluation's files); none: they are only returned. */
  readonly groundTruth?: GroundTruthSink
}

/**
 * MEASUREMENT ONLY: where a run's judgements go, beside the log and never in it. The
 * engine tells it every judgement so far as each episode is judged, so an interrupted run
 * loses none, and asks it what a resumed run judged before.
 */
export interface GroundTruthSink {
  /** What the run judged before it was interrupted; null when nothing is kept. */
  readonly kept: (runId: string) => Effect.Effect<ReadonlyMap<string, EpisodeJudgement> | null>
  readonly judged: (runId: string, judged: ReadonlyMap<string, EpisodeJudgement>) => void
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

export interface RunOutcome {
  readonly runId: string
  readonly events: ReadonlyArray<CoreEvent>
  /** The app's judgement of each episode it could judge, by trajectory id (measurement only). */
  readonly groundTruth: ReadonlyMap<string, EpisodeJudgement>
  readonly seconds: number
}
