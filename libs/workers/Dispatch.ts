/**
 * The driver's side of the work queue (`bun core run … --workers queue`): the
 * `RemoteEpisodes` service. Each episode a decider asks for becomes a job on the queue, and
 * its record comes back from whichever worker played it.
 *
 * A worker's result is outside input. Before the decider sees it, the driver plays the
 * episode again here against the result's own observations: the same `rollout`, the same
 * draws, the recorded model answers, every blob read back from the store and checked against
 * its hash. Only a record that this replay re-derives exactly is accepted, so a wrong
 * schema, a missing or altered blob, a step over the budget, another job's record or another
 * build's policy are all refused, and the episode is recorded as an infra-error saying why.
 * That record replays too. An exploration-5 episode's ending (the job's `end` check) is
 * re-derived with the driver's own label sandbox, the one its deciders verify with.
 *
 * A result that arrives twice, because a job was delivered again after its worker went
 * quiet, is taken once. A driver that restarts (`run --resume`) finds the results already
 * stored and the jobs still queued, and waits for those instead of queueing them again.
 *
 * @example
 * const layer = remoteEpisodes({ nc, runId, seed, app, platform, … })
 * yield* drive({ … }).pipe(Effect.provide(layer))
 */
import { Deferred, Effect, Layer, Result } from "effect"
import type { Scope } from "effect"
import { DeliverPolicy } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { BlobStore, promoting } from "@core/blobstore"
import { DEFAULT_OUTAGE_LIMIT_MS, isTransientNatsError, throughOutages, watchLink } from "@core/eventstore"
import type { BlobStoreError } from "@core/blobstore"
import { canonicalJson, catalog } from "@core/events"
import type { CoreEvent, Platform } from "@core/events"
import type { ScreenshotPolicy } from "@core/environment"
import { learnedModelJson } from "@core/learner"
import type { ModelCalledEvent } from "@core/models"
import { infraErrorTrajectory, RemoteEpisodes, rollout } from "@core/pipeline"
import type { EpisodeJudgement, RolloutInput } from "@core/pipeline"
import type { TrajectoryData } from "@core/pipeline"
import { Models, Randomness, recordedModels, recordedObservations } from "@core/engine"
import { jobNonce, sameNonce } from "./JobNonce.ts"
import {
  decodeJob,
  decodeResult,
  JOBS_STREAM,
  jobSubject,
  messageId,
  parseJson,
  PROTOCOL_VERSION,
  RESULTS_STREAM,
  resultSubject
} from "./Protocol.ts"
import type { EpisodeJob, EpisodeResult, JobApp } from "./Protocol.ts"
import { MAX_DELIVERIES_ADVISORY, openQueue } from "./Queue.ts"
import { callKey, callsToLog } from "./ModelCallCheck.ts"
import type { QueueSettings } from "./Queue.ts"
import { QueueError } from "./QueueError.ts"

export interface DispatchOptions {
  readonly nc: NatsConnection
  readonly runId: string
  readonly seed: string
  /** The data directory's queue key: each job's nonce is derived from it (JobNonce.ts). */
  readonly key: Uint8Array
  /** The bucket workers put their blobs in: a record's blobs are read from it and promoted into the run's store. */
  readonly uploads: BlobStore["Service"]
  readonly app: JobApp
  readonly platform: Platform
  readonly screenshots: ScreenshotPolicy
  readonly setOfMarks: boolean
  readonly queue: QueueSettings
  /** The task whose start an episode of this task uses: itself, or an extrapolated task's parent. */
  readonly startTaskOf: (taskId: string) => string
  /** Logs a ModelCalled the worker's policy made, where the driver's own calls are logged (before the decisions). */
  readonly record: (event: ModelCalledEvent) => Effect.Effect<void, unknown>
  /** Told of every accepted record: which worker played it, and the app's judgement (measurement only). */
  readonly onResult?: (r: {
    readonly worker: string
    readonly trajectoryId: string
    readonly judgement: EpisodeJudgement | null
    readonly steps: number
  }) => void
  readonly log: (line: string) => void
  /** How long queueing a job waits through a NATS outage before the episode is an infra-error; default 10 minutes. */
  readonly outageLimitMs?: number
}

type Arrival = { readonly kind: "result"; readonly result: EpisodeResult } | { readonly kind: "gave-up"; readonly deliveries: number }

/** A result's trajectory as the event replay reads it from (only its type, id and data are read). */
const asRecorded = (data: TrajectoryData): CoreEvent =>
  ({ type: "TrajectoryRecorded", id: `worker-result:${data.trajectoryId}`, data }) as unknown as CoreEvent

/** Whether a queued message is the job with this nonce (a resumed driver's own job, not one planted under its subject). */
const queuedHere = (data: Uint8Array, nonce: string): boolean => {
  const parsed = parseJson(data)
  const job = parsed.ok ? decodeJob(parsed.value) : parsed
  return job.ok && sameNonce(job.value.nonce, nonce)
}

const describe = (cause: unknown): string =>
  (typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause)).split("\n")[0]!

export const remoteEpisodes = (o: DispatchOptions): Layer.Layer<RemoteEpisodes, QueueError, BlobStore | Scope.Scope> =>
  Layer.effect(
    RemoteEpisodes,
    Effect.gen(function* () {
      const blobs = yield* BlobStore
      const link = watchLink(o.nc)
      // A server that went away mid-round pauses the queueing: the episode is not lost for it.
      const patiently = <A>(what: string, run: () => Promise<A>) =>
        throughOutages(Effect.tryPromise({ try: run, catch: (e) => e }), {
          link,
          outageLimitMs: o.outageLimitMs ?? DEFAULT_OUTAGE_LIMIT_MS,
          transient: isTransientNatsError
        }).pipe(Effect.mapError((e) => new QueueError({ message: `${what}: ${describe(e)}` })))
      const queue = yield* Effect.tryPromise({
        try: () => openQueue(o.nc, o.queue),
        catch: (e) => new QueueError({ message: `work queue: ${describe(e)}` })
      })
      const arrived = new Map<string, Arrival>()
      const waiting = new Map<string, Deferred.Deferred<Arrival>>()
      const jobOfSeq = new Map<number, string>()
      const taken = new Set<string>()
      const nonceOf = (jobId: string) => jobNonce(o.key, o.runId, jobId)
      const arrive = (jobId: string, a: Arrival) => {
        if (arrived.has(jobId)) return
        arrived.set(jobId, a)
        const w = waiting.get(jobId)
        if (w !== undefined) Deferred.doneUnsafe(w, Effect.succeed(a))
      }

      // Every result of this run, from the first: a restarted driver sees what came while it was away.
      const results = yield* Effect.tryPromise({
        try: async () => {
          const c = await queue.js.consumers.get(RESULTS_STREAM, {
            filter_subjects: `coreq.results.${o.runId}.>`,
            deliver_policy: DeliverPolicy.All
          })
          return c.consume({
            // Short pulls: after a server restart the consumer notices its missed heartbeats in seconds, not half a minute.
            expires: 2_000,
            callback: (m) => {
              const parsed = parseJson(m.data)
              const decoded = parsed.ok ? decodeResult(parsed.value) : parsed
              if (!decoded.ok) return o.log(`workers: ignored a message on ${m.subject}: ${decoded.reason}`)
              const r = decoded.value
              if (r.runId !== o.runId || m.subject !== resultSubject(r.runId, r.jobId))
                return o.log(`workers: ignored a result filed under another job (${m.subject})`)
              // Before it can be taken: a result without its job's nonce answers no job this driver queued.
              if (!sameNonce(r.nonce, nonceOf(r.jobId)))
                return o.log(`workers: ignored ${r.worker}'s result for ${r.jobId}: it does not carry the nonce of a job this run queued`)
              arrive(r.jobId, { kind: "result", result: r })
            }
          })
        },
        catch: (e) => new QueueError({ message: `work queue results: ${describe(e)}` })
      })
      yield* Effect.addFinalizer(() => Effect.promise(() => results.close().catch(() => undefined)))

      // A job no worker finished in the allowed deliveries: JetStream says so, and the job is removed from the queue.
      const advisories = o.nc.subscribe(MAX_DELIVERIES_ADVISORY, {
        callback: (err, m) => {
          if (err !== null) return
          const seq = (parseJson(m.data) as { ok: boolean; value?: { stream_seq?: number; deliveries?: number } }).value
          const jobId = seq?.stream_seq === undefined ? undefined : jobOfSeq.get(seq.stream_seq)
          if (jobId === undefined) return
          void queue.jsm.streams.deleteMessage(JOBS_STREAM, seq!.stream_seq!).catch(() => undefined)
          arrive(jobId, { kind: "gave-up", deliveries: seq?.deliveries ?? o.queue.maxDeliveries })
        }
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => advisories.unsubscribe()))

      /** Queues the job unless its result is in or it is still queued (a resumed driver re-attaches). */
      const submit = (jobId: string, input: RolloutInput) =>
        Effect.gen(function* () {
          if (arrived.has(jobId)) return
          const subject = jobSubject(o.runId, jobId)
          const pending = yield* patiently("looking for a queued job", () =>
            queue.jsm.streams.getMessage(JOBS_STREAM, { last_by_subj: subject }).catch((e) => {
              // Not found is an answer; anything else (the server away) is tried again.
              if (/no message found|not found/i.test(describe(e))) return null
              throw e
            })
          )
          // A message on the job's subject that someone else put there is not this run's job: queue ours beside it.
          if (pending !== null && queuedHere(pending.data, nonceOf(jobId))) {
            jobOfSeq.set(pending.seq, jobId)
            return
          }
          const { retrieval, learned, ...rest } = input
          const model =
            retrieval === undefined || retrieval === null ? null : yield* blobs.put(new TextEncoder().encode(JSON.stringify(retrieval)))
          // The learner's canonical JSON: the same bytes, so the same blob, as the PolicyTrained that named it.
          const weights =
            learned === undefined || learned === null ? null : yield* blobs.put(new TextEncoder().encode(learnedModelJson(learned)))
          const job: EpisodeJob = {
            protocol: PROTOCOL_VERSION,
            runId: o.runId,
            jobId,
            nonce: nonceOf(jobId),
            seed: o.seed,
            app: o.app,
            platform: o.platform,
            screenshots: o.screenshots,
            setOfMarks: o.setOfMarks,
            startTask: o.startTaskOf(input.taskId),
            input: { ...rest, ...(model === null ? {} : { retrieval: model }), ...(weights === null ? {} : { learned: weights }) }
          }
          const ack = yield* patiently(`queueing ${jobId}`, () =>
            queue.js.publish(subject, JSON.stringify(job), { msgID: messageId(o.runId, jobId, nonceOf(jobId)) })
          )
          jobOfSeq.set(ack.seq, jobId)
        })

      /**
       * The model calls to log if this driver re-derives the worker's record exactly from its
       * own observations, and its replay made exactly those calls (`callsToLog`); else why not.
       */
      const check = (input: RolloutInput, r: EpisodeResult) =>
        Effect.gen(function* () {
          if (r.protocol !== PROTOCOL_VERSION) return `protocol ${r.protocol}, not ${PROTOCOL_VERSION}`
          const calls: Array<Extract<CoreEvent, { type: "ModelCalled" }>> = []
          for (const c of r.modelCalls) {
            const d = catalog.decode(c)
            if (Result.isFailure(d) || d.success.type !== "ModelCalled") return "a model call that is not a ModelCalled event"
            calls.push(d.success)
          }
          const consumed = new Set<string>()
          const counted = Layer.effect(
            Models,
            Effect.gen(function* () {
              const m = yield* Models
              return Models.of({
                complete: (request) =>
                  Effect.tap(m.complete(request), () => Effect.sync(() => consumed.add(callKey(request.causationId, request.callIndex))))
              })
            })
          ).pipe(Layer.provide(recordedModels(calls)))
          const again = yield* rollout(input).pipe(
            Effect.provide(Layer.mergeAll(recordedObservations([asRecorded(r.trajectory)]), counted, Randomness.layer(o.seed))),
            Effect.provideService(BlobStore, promoting(blobs, o.uploads)),
            Effect.map((t) => ({ ok: true as const, t })),
            Effect.catch((e) => Effect.succeed({ ok: false as const, why: describe(e) }))
          )
          if (!again.ok) return `replaying it here failed: ${again.why}`
          if (canonicalJson(again.t) !== canonicalJson(r.trajectory)) return "replaying it here gives another record"
          const logged = callsToLog(o.runId, calls, consumed)
          return logged.ok ? logged.calls : logged.reason
        })

      const play = (input: RolloutInput): Effect.Effect<TrajectoryData, BlobStoreError> =>
        Effect.gen(function* () {
          const jobId = input.trajectoryId
          const deferred = yield* Deferred.make<Arrival>()
          waiting.set(jobId, deferred)
          const already = arrived.get(jobId)
          if (already !== undefined) yield* Deferred.succeed(deferred, already)
          const queued = yield* submit(jobId, input).pipe(
            Effect.map(() => null),
            Effect.catch((e) => Effect.succeed(describe(e)))
          )
          if (queued !== null) return infraErrorTrajectory(input, queued)
          const a = yield* Deferred.await(deferred)
          waiting.delete(jobId)
          if (a.kind === "gave-up") return infraErrorTrajectory(input, `no worker finished the episode in ${a.deliveries} deliveries`)
          const r = a.result
          if (taken.has(jobId)) return yield* Effect.die(new Error(`episode ${jobId} asked for twice in one run`))
          const checked =
            r.jobId !== jobId || r.trajectory.trajectoryId !== input.trajectoryId || r.runId !== o.runId
              ? "it is another job's record"
              : yield* check(input, r).pipe(Effect.catch((e) => Effect.succeed(describe(e))))
          taken.add(jobId)
          const refuse = (why: string) => {
            o.log(`workers: refused ${r.worker}'s record of ${jobId}: ${why}`)
            return infraErrorTrajectory(input, `worker ${r.worker}'s record refused: ${why}`)
          }
          if (typeof checked === "string") return refuse(checked)
          // A log that will not take a call (its stream moved on) refuses the record; the run goes on.
          for (const c of checked) {
            const failed = yield* o.record(c).pipe(
              Effect.map(() => null),
              Effect.catch((e) => Effect.succeed(describe(e)))
            )
            if (failed !== null) return refuse(`logging its model call failed: ${failed}`)
          }
          o.onResult?.({ worker: r.worker, trajectoryId: jobId, judgement: r.judgement, steps: r.trajectory.steps.length })
          return r.trajectory
        })

      return RemoteEpisodes.of({ play })
    })
  )
