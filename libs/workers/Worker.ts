/**
 * A rollout worker (`bun core worker`): pulls episode jobs from the work queue and plays
 * each whole episode — policy and environment — with the same `rollout` a driver plays
 * in-process, its observation blobs put in the shared blob store, and publishes the
 * episode's record. It never appends an event: the driver checks the record and decides.
 *
 * What makes a job safe to lose: the ack comes only after the result is stored; during a
 * long episode an in-progress heartbeat every third of the ack wait keeps the job its own;
 * a worker that goes quiet (killed, cut off) loses the job to another after the ack wait,
 * which plays it again from scratch. An episode that never got through is handed back for
 * another worker to try, except on its last delivery, when its infra-error is the result.
 *
 * @example
 * yield* runWorker({ name: "w1", concurrency: 2, nc, app, environment, models, log, stop })
 */
import { Data, Effect, Layer } from "effect"
import type { Context, Scope } from "effect"
import { hostname } from "node:os"
import type { Consumer, JsMsg } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { BlobStore } from "@core/blobstore"
import { DEFAULT_OUTAGE_LIMIT_MS, isTransientNatsError, throughOutages, watchLink } from "@core/eventstore"
import type { EnvironmentShape, EnvTask, ScreenshotPolicy } from "@core/environment"
import type { Platform } from "@core/events"
import type { ModelCalledEvent } from "@core/models"
import { labelSandbox, liveObservations, rollout } from "@core/pipeline"
import type { EpisodeJudgement, RolloutInput, RunApp, RunTask } from "@core/pipeline"
import { learnedModelFromJson } from "@core/learner"
import type { LearnedModel } from "@core/learner"
import { retrievalModelFromJson } from "@core/policy"
import type { RetrievalModel } from "@core/policy"
import { noModels, Randomness, type Models, type Observations } from "@core/engine"
import { decodeJob, JOBS_STREAM, messageId, parseJson, PROTOCOL_VERSION, resultSubject, WORKERS_CONSUMER } from "./Protocol.ts"
import type { EpisodeJob, EpisodeResult, JobApp } from "./Protocol.ts"
import { announce, presenceOf } from "./Presence.ts"
import { openQueue } from "./Queue.ts"
import type { Queue } from "./Queue.ts"
import { QueueError } from "./QueueError.ts"

/** The app a worker serves, from its own instances. */
export interface WorkerApp {
  /** What it is, as a job names it: the bundled sites, or a pack by digest. */
  readonly app: JobApp
  readonly runApp: RunApp
  /** A task of the app (its start, as this worker's instances open it); undefined when the app has none of that id. */
  readonly taskOf: (taskId: string) => RunTask | undefined
}

export interface EnvironmentSettings {
  readonly platform: Platform
  readonly screenshots: ScreenshotPolicy
  readonly setOfMarks: boolean
}

export interface WorkerOptions {
  readonly name: string
  readonly concurrency: number
  readonly nc: NatsConnection
  readonly app: WorkerApp
  /** One environment of these settings for the app's episodes (the CLI's platform environment). */
  readonly environment: (settings: EnvironmentSettings) => Effect.Effect<EnvironmentShape, never, BlobStore | Scope.Scope>
  /**
   * The model server a job's policy calls, every call recorded through `record`; null when
   * this worker has none, and then it refuses the jobs of a model policy.
   */
  readonly models: ((runId: string, record: (e: ModelCalledEvent) => Effect.Effect<void>) => Layer.Layer<Models>) | null
  readonly log: (line: string) => void
  /** Told of each job played: its id and the record's outcome. */
  readonly onDone?: (jobId: string, outcome: string) => void
  /** Resolves when the worker should stop pulling (a signal); jobs in hand are handed back. */
  readonly stop: Promise<void>
  /** How long publishing a result waits through a NATS outage; default 10 minutes. */
  readonly outageLimitMs?: number
}

const describe = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause)).split("\n")[0]!

/**
 * A job no worker can ever play, whatever it tries: what it carries does not decode. It is
 * terminated, not handed back, so it cannot go on to stop the next worker that pulls it.
 */
export class PoisonJob extends Data.TaggedError("PoisonJob")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/** The retrieval model a job names by its blob, or the one-line reason it is none. */
const retrievalModelOf = (bytes: Uint8Array, hash: string): Effect.Effect<RetrievalModel, PoisonJob> =>
  Effect.try({
    try: () => retrievalModelFromJson(new TextDecoder().decode(bytes)),
    catch: (e) =>
      new PoisonJob({
        reason: `its retrieval model (blob ${hash.slice(0, 12)}) is not one: ${e instanceof SyntaxError ? "not JSON" : describe(e)}`
      })
  })

/** The learned model a job names by its weights blob, or the one-line reason it is none. */
const learnedModelOf = (bytes: Uint8Array, hash: string): Effect.Effect<LearnedModel, PoisonJob> =>
  Effect.try({
    try: () => learnedModelFromJson(new TextDecoder().decode(bytes)),
    catch: (e) =>
      new PoisonJob({
        reason: `its learned model (blob ${hash.slice(0, 12)}) is not one: ${e instanceof SyntaxError ? "not JSON" : describe(e)}`
      })
  })

/** Why this worker cannot play the job, in one line; null when it can. */
export const refusal = (job: EpisodeJob, served: JobApp, modelServer: boolean): string | null => {
  if (job.protocol !== PROTOCOL_VERSION)
    return `speaks work-queue protocol ${PROTOCOL_VERSION}, the job ${job.protocol}: run a worker of the driver's build`
  // Played without a server, every policy call would fail, and the record with them: another worker may have one.
  if (job.input.policy.kind === "model" && !modelServer)
    return `the job's policy calls the model ${job.input.policy.model}; start the worker with --model-base-url <its server>`
  if (job.app.kind === "bundled") return served.kind === "bundled" ? null : "the job is on the bundled sites; this worker serves a pack"
  if (served.kind !== "pack") return `the job is on the pack ${job.app.name}; start the worker with --app <its folder>`
  return served.digest === job.app.digest
    ? null
    : `the job's pack ${job.app.name} has digest ${job.app.digest.slice(0, 12)}, this worker's ${served.digest.slice(0, 12)}: the same pack must be on both machines`
}

const settingsKey = (s: EnvironmentSettings) => `${s.platform}|${s.screenshots}|${s.setOfMarks}`

/** Where a worker plays episodes: its environments, made once per settings, and what each episode's end was judged. */
const episodePlayer = (o: WorkerOptions, blobs: BlobStore["Service"], scope: Scope.Scope) => {
  // The start each job's task opens with, by task id (an extrapolated task starts where its parent does).
  const starts = new Map<string, EnvTask>()
  const judgements = new Map<string, EpisodeJudgement>()
  const observers = new Map<string, Context.Context<Observations>>()
  /** The environments of these settings: made once, `concurrency` of them, for the worker's lifetime. */
  const observationsFor = (settings: EnvironmentSettings) =>
    Effect.gen(function* () {
      const have = observers.get(settingsKey(settings))
      if (have !== undefined) return have
      const environments: Array<EnvironmentShape> = []
      for (let i = 0; i < o.concurrency; i++) environments.push(yield* o.environment(settings))
      const layer = liveObservations({
        environments,
        taskOf: (taskId) => starts.get(taskId),
        onEnd: (end) => {
          const task = o.app.taskOf(end.task.taskId)
          if (task === undefined || end.last?.episode == null) return Effect.void
          return Effect.map(o.app.runApp.judge(task, end), (verdict) => {
            if (verdict !== null) judgements.set(end.trajectoryId, verdict)
          })
        }
      })
      const built = yield* Layer.buildWithScope(layer, scope)
      observers.set(settingsKey(settings), built)
      return built
    }).pipe(Effect.provideService(BlobStore, blobs))

  // The label sandbox an episode that ends on a satisfied path checks with: started by the first such job.
  let sandbox: Context.Context<Layer.Success<ReturnType<typeof labelSandbox>>> | null = null
  const sandboxContext = Effect.gen(function* () {
    sandbox ??= yield* Layer.buildWithScope(labelSandbox(), scope)
    return sandbox
  })

  /** The episode, as the driver would play it in-process. */
  const play = (job: EpisodeJob, start: RunTask) =>
    Effect.gen(function* () {
      starts.set(job.input.taskId, { ...start.start, taskId: job.input.taskId })
      const { retrieval, learned, ...rest } = job.input
      const model = retrieval === undefined || retrieval === null ? null : yield* retrievalModelOf(yield* blobs.get(retrieval), retrieval)
      const weights = learned === undefined || learned === null ? null : yield* learnedModelOf(yield* blobs.get(learned), learned)
      const input: RolloutInput = {
        ...rest,
        ...(model === null ? {} : { retrieval: model }),
        ...(weights === null ? {} : { learned: weights })
      }
      const calls: Array<ModelCalledEvent> = []
      const observations = yield* observationsFor(job)
      const checks = input.end === undefined ? null : yield* sandboxContext
      const trajectory = yield* rollout(input).pipe(
        Effect.provide(
          Layer.mergeAll(
            Randomness.layer(job.seed),
            o.models === null ? noModels : o.models(job.runId, (e) => Effect.sync(() => void calls.push(e)))
          )
        ),
        Effect.provideContext(observations),
        Effect.provideService(BlobStore, blobs),
        (played) => (checks === null ? played : Effect.provideContext(played, checks))
      )
      return { trajectory, calls }
    })

  /** What the episode's end was judged (a bundled site's checker, a pack's evaluate), taken once. */
  const judgementOf = (trajectoryId: string): EpisodeJudgement | null => {
    const j = judgements.get(trajectoryId) ?? null
    judgements.delete(trajectoryId)
    return j
  }
  return { play, judgementOf }
}

type Player = ReturnType<typeof episodePlayer>

interface JobContext {
  readonly o: WorkerOptions
  readonly queue: Queue
  readonly consumer: Consumer
  readonly link: ReturnType<typeof watchLink>
  readonly player: Player
  /** The jobs in hand, as the worker's presence shows them. */
  readonly holding: Set<string>
  readonly played: () => void
}

/** A job the worker cannot take: back to the queue, after a pause so another worker may pull it first. */
const handBack = (ctx: JobContext, msg: JsMsg, line: string, delayMs: number) =>
  Effect.sync(() => {
    ctx.o.log(`worker ${ctx.o.name}: ${line}`)
    msg.nak(delayMs)
  })

/** One delivered job: checked, played with heartbeats, its result published, and only then acked. */
const handle = (ctx: JobContext, msg: JsMsg) =>
  Effect.gen(function* () {
    const { o } = ctx
    const parsed = parseJson(msg.data)
    const decoded = parsed.ok ? decodeJob(parsed.value) : parsed
    if (!decoded.ok) {
      o.log(`worker ${o.name}: dropped a job that is ${decoded.reason}`)
      msg.term(decoded.reason)
      return
    }
    const job = decoded.value
    const refused = refusal(job, o.app.app, o.models !== null)
    if (refused !== null) return yield* handBack(ctx, msg, `refused job ${job.jobId} of run ${job.runId}: ${refused}`, 2_000)
    const start = o.app.taskOf(job.startTask)
    if (start === undefined)
      return yield* handBack(ctx, msg, `refused job ${job.jobId}: this worker's app has no task ${job.startTask}`, 2_000)
    // Read per job: a driver may have set the queue up again with another ack wait since this worker started.
    const info = yield* Effect.promise(() => ctx.consumer.info(false).catch(() => null))
    const ackWaitMs = (info?.config.ack_wait ?? 30_000_000_000) / 1_000_000
    const maxDeliver = info?.config.max_deliver ?? -1
    const last = maxDeliver > 0 && msg.info.deliveryCount >= maxDeliver
    ctx.holding.add(job.jobId)
    o.log(`worker ${o.name}: playing ${job.jobId} of run ${job.runId} (delivery ${msg.info.deliveryCount})`)
    // The job stays this worker's while it plays: a heartbeat well inside the ack wait.
    const heartbeat = setInterval(() => msg.working(), Math.max(200, ackWaitMs / 3))
    const played = yield* ctx.player.play(job, start).pipe(
      Effect.map((p) => ({ ok: true as const, ...p })),
      Effect.catch((e) => Effect.succeed({ ok: false as const, reason: describe(e), poison: e instanceof PoisonJob })),
      Effect.ensuring(
        Effect.sync(() => {
          clearInterval(heartbeat)
          ctx.holding.delete(job.jobId)
        })
      )
    )
    const judgement = ctx.player.judgementOf(job.input.trajectoryId)
    if (!played.ok && played.poison) {
      o.log(`worker ${o.name}: dropped job ${job.jobId} of run ${job.runId}: ${played.reason}`)
      msg.term(played.reason)
      return
    }
    if (!played.ok || (played.trajectory.outcome === "infra-error" && !last)) {
      // Another worker, or this one later, may get through: the job goes back to the queue.
      const why = played.ok ? played.trajectory.infraError : played.reason
      return yield* handBack(ctx, msg, `job ${job.jobId} handed back (${why})`, 1_000)
    }
    const result: EpisodeResult = {
      protocol: PROTOCOL_VERSION,
      runId: job.runId,
      jobId: job.jobId,
      nonce: job.nonce,
      worker: o.name,
      trajectory: played.trajectory,
      modelCalls: played.calls,
      judgement
    }
    // Through an outage: the episode is played; only its result has to get out.
    yield* throughOutages(
      Effect.tryPromise({
        try: () =>
          ctx.queue.js.publish(resultSubject(job.runId, job.jobId), JSON.stringify(result), {
            msgID: messageId(job.runId, job.jobId, job.nonce)
          }),
        catch: (e) => e
      }),
      { link: ctx.link, outageLimitMs: o.outageLimitMs ?? DEFAULT_OUTAGE_LIMIT_MS, transient: isTransientNatsError }
    ).pipe(Effect.mapError((e) => new QueueError({ message: `publishing the result of ${job.jobId}: ${describe(e)}` })))
    // Only once the result is stored: a worker killed before this line loses nothing but time.
    yield* Effect.promise(() => msg.ackAck().catch(() => false))
    ctx.played()
    o.onDone?.(job.jobId, played.trajectory.outcome)
  })

export const runWorker = (o: WorkerOptions): Effect.Effect<void, QueueError, BlobStore | Scope.Scope> =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    const link = watchLink(o.nc)
    const queue = yield* Effect.tryPromise({
      try: () => openQueue(o.nc),
      catch: (e) => new QueueError({ message: `work queue: ${describe(e)}` })
    })
    const consumer = yield* Effect.tryPromise({
      try: () => queue.js.consumers.get(JOBS_STREAM, WORKERS_CONSUMER),
      catch: (e) => new QueueError({ message: `work queue: ${describe(e)}` })
    })
    let stopped = false
    o.stop.then(() => {
      stopped = true
    })
    const holding = new Set<string>()
    let done = 0
    const since = new Date().toISOString()
    const host = hostname()
    const quiet = announce(queue, () =>
      presenceOf({ name: o.name, host, pid: process.pid, concurrency: o.concurrency, holding: [...holding], done, since })
    )
    yield* Effect.addFinalizer(() => Effect.sync(quiet))
    const player = episodePlayer(o, blobs, yield* Effect.scope)
    const ctx: JobContext = { o, queue, consumer, link, player, holding, played: () => void done++ }

    const loop = Effect.gen(function* () {
      while (!stopped) {
        // While the server is away `next` fails at once: wait a little rather than spin.
        const msg = yield* Effect.promise(() => consumer.next({ expires: 2_000 }).catch(() => Bun.sleep(500).then(() => null)))
        if (msg === null) continue
        if (stopped) {
          msg.nak()
          return
        }
        yield* handle(ctx, msg).pipe(Effect.catch((e) => handBack(ctx, msg, `${describe(e)}; the job goes back to the queue`, 1_000)))
      }
    })
    o.log(`worker ${o.name}: pulling episode jobs (${o.concurrency} at a time, protocol ${PROTOCOL_VERSION})`)
    yield* Effect.all(
      Array.from({ length: o.concurrency }, () => loop),
      { concurrency: o.concurrency, discard: true }
    )
  })
