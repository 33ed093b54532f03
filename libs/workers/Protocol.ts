/**
 * What a driver and its workers say to each other over JetStream, and nothing else: an
 * episode job on a work-queue stream, the episode's record on a results stream, and each
 * worker's presence in a key-value bucket. Both sides decode what they receive with these
 * schemas: a job or a result is outside input until it does.
 *
 * - Jobs: stream `CORE_JOBS` (work-queue retention), subject `coreq.jobs.<runId>.<token>`,
 *   one durable pull consumer `core-workers` that every worker shares, explicit acks.
 * - Results: stream `CORE_RESULTS`, subject `coreq.results.<runId>.<token>`, published with
 *   the job's id as `Nats-Msg-Id`, so a job played twice is stored once.
 * - Presence: stream `CORE_WORKERS`, one message kept per worker, gone when the worker goes quiet.
 *
 * The protocol version travels in every job and result. A worker from another build
 * refuses a job of a version it does not speak, and the driver a result of one: both would
 * play or read episodes differently, and replay would not hold.
 *
 * @example
 * const job = decodeJob(JSON.parse(text)) // EpisodeJob, or a one-line reason
 */
import { Schema } from "effect"
import { Action, sha256, TrajectoryRecorded } from "@core/events"
import { EndCheck, Exploration, RunPolicy } from "@core/pipeline"

/**
 * Bump when a job's or a result's meaning changes: workers and drivers of one version only
 * work together. 2: a job may carry the check that ends its episode on a satisfied path.
 * 3: a job carries its nonce, and its result must carry it back.
 */
export const PROTOCOL_VERSION = 3

export const JOBS_STREAM = "CORE_JOBS"
export const RESULTS_STREAM = "CORE_RESULTS"
/** The one durable consumer all workers pull from. */
export const WORKERS_CONSUMER = "core-workers"
/**
 * Where workers put their observation blobs: never the main blob bucket, which they only
 * read (Staged.ts of @core/blobstore). The driver promotes each blob it checks into the main
 * bucket; what stays here is dropped after a week, as results are.
 */
export const UPLOADS_BUCKET = "core-uploads"
export const UPLOADS_TTL_MS = 7 * 24 * 3_600_000

/** A job's subject token: the job id hashed, so any task id makes a valid subject. */
export const jobToken = (jobId: string): string => sha256(jobId).slice(0, 24)
export const jobSubject = (runId: string, jobId: string): string => `coreq.jobs.${runId}.${jobToken(jobId)}`
export const resultSubject = (runId: string, jobId: string): string => `coreq.results.${runId}.${jobToken(jobId)}`
/**
 * The id JetStream deduplicates a job's publishes and its results by. It holds a digest of
 * the job's nonce: with the ids alone, a message published first under a predictable id
 * would have the real job or result dropped as its duplicate.
 */
export const messageId = (runId: string, jobId: string, nonce: string): string => `${runId}:${jobId}:${sha256(nonce).slice(0, 16)}`

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Sha256 = Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/))
/** A job's nonce (JobNonce.ts): an HMAC-SHA-256 in hex. */
const Nonce = Sha256
/** Run ids and job ids become subject tokens or parts of them: no dots, spaces or wildcards. */
const Token = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{1,200}$/))

/** Where the episode plays: the bundled sites, or an app pack the worker must hold with this digest. */
export const JobApp = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("bundled") }),
  Schema.Struct({ kind: Schema.Literal("pack"), name: Schema.String, digest: Sha256 })
])
export type JobApp = typeof JobApp.Type

/**
 * The rollout's input as a job carries it: the retrieval model and the learned model by
 * their blobs' hashes. A learned job needs no new protocol version: a worker that does not
 * know the learned policy refuses the job's policy as it decodes it, and plays nothing.
 */
export const JobInput = Schema.Struct({
  causationId: Schema.String,
  trajectoryId: Token,
  taskId: Schema.String,
  instruction: Schema.String,
  round: Count,
  sample: Count,
  stepBudget: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })),
  policy: RunPolicy,
  prefix: Schema.optionalKey(Schema.Array(Action)),
  purpose: Schema.optionalKey(Schema.String),
  avoid: Schema.optionalKey(Schema.NullOr(Schema.Struct({ role: Schema.String, name: Schema.String }))),
  rejoin: Schema.optionalKey(Schema.Array(Schema.Struct({ urlBefore: Schema.NullOr(Schema.String), action: Action }))),
  stopBias: Schema.optionalKey(Schema.Finite),
  hashRouting: Schema.optionalKey(Schema.Boolean),
  exploration: Schema.optionalKey(Exploration),
  retrieval: Schema.optionalKey(Schema.NullOr(Sha256)),
  /** The learned model's weights blob (the learner's canonical JSON, the blob PolicyTrained names). */
  learned: Schema.optionalKey(Schema.NullOr(Sha256)),
  /** Exploration 5: the task's graph paths and label functions the episode checks after each step. */
  end: Schema.optionalKey(EndCheck)
})
export type JobInput = typeof JobInput.Type

export const EpisodeJob = Schema.Struct({
  protocol: Schema.Int,
  runId: Token,
  jobId: Token,
  /** What the result must carry back to be read at all. */
  nonce: Nonce,
  /** The run's seed: the policy's draws come from it, as in the driver's own process. */
  seed: Schema.String,
  app: JobApp,
  platform: Schema.Literals(["web", "mobile-web", "android"]),
  screenshots: Schema.Literals(["none", "key", "all"]),
  setOfMarks: Schema.Boolean,
  /** The task whose start the episode uses: itself, or an extrapolated task's parent. */
  startTask: Schema.String,
  input: JobInput
})
export type EpisodeJob = typeof EpisodeJob.Type

/** The app's own check of the ended episode, for measurement beside the run; never read by a decision. */
const Judgement = Schema.Struct({ success: Schema.Boolean, reason: Schema.String })

export const EpisodeResult = Schema.Struct({
  protocol: Schema.Int,
  runId: Token,
  jobId: Token,
  /** The nonce of the job this answers, as the job carried it. */
  nonce: Nonce,
  worker: Schema.String,
  trajectory: TrajectoryRecorded.data,
  /** The ModelCalled events the episode's policy made, encoded; the driver logs them before the record. */
  modelCalls: Schema.Array(Schema.Unknown),
  judgement: Schema.NullOr(Judgement)
})
export type EpisodeResult = typeof EpisodeResult.Type

/** A worker's presence: what `bun core workers` lists. */
export const Presence = Schema.Struct({
  name: Schema.String,
  host: Schema.String,
  pid: Schema.Int,
  protocol: Schema.Int,
  concurrency: Schema.Int,
  /** The job ids it is playing now. */
  holding: Schema.Array(Schema.String),
  done: Count,
  since: Schema.String,
  at: Schema.String
})
export type Presence = typeof Presence.Type

const first = (issue: string): string =>
  issue
    .split("\n")
    .find((l) => l.trim() !== "")
    ?.trim() ?? issue

type Decoded<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly reason: string }

/** Decodes one side's message, or says in one line why not. */
const decoder =
  <S extends Schema.Top>(schema: S, what: string) =>
  (u: unknown): Decoded<S["Type"]> => {
    try {
      return { ok: true, value: Schema.decodeUnknownSync(schema as never)(u) as S["Type"] }
    } catch (e) {
      return { ok: false, reason: `not a valid ${what}: ${first(e instanceof Error ? e.message : String(e))}` }
    }
  }

/**
 * A worker's name as a terminal or a log may show it: control and format characters
 * (escapes that clear the screen or retitle the window, bidi overrides) dropped, at most
 * 100 characters. Names come from other machines, and the driver and `bun core workers`
 * print them.
 */
export const printableName = (name: string): string => name.replace(/[\p{Cc}\p{Cf}]/gu, "").slice(0, 100)

/** Decodes, then makes the worker's name printable: every reader of the result prints it. */
const named =
  <A>(decode: (u: unknown) => Decoded<A>, rename: (a: A) => A) =>
  (u: unknown): Decoded<A> => {
    const d = decode(u)
    return d.ok ? { ok: true, value: rename(d.value) } : d
  }

export const decodeJob = decoder(EpisodeJob, "episode job")
export const decodeResult = named(decoder(EpisodeResult, "episode result"), (r) => ({ ...r, worker: printableName(r.worker) }))
export const decodePresence = named(decoder(Presence, "worker presence"), (p) => ({ ...p, name: printableName(p.name) }))

/** JSON text → value, or the reason it is not JSON. */
export const parseJson = (
  bytes: Uint8Array
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string } => {
  try {
    return { ok: true, value: JSON.parse(new TextDecoder().decode(bytes)) }
  } catch {
    return { ok: false, reason: "not JSON" }
  }
}
