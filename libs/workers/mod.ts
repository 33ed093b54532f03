/**
 * Rollout workers on a JetStream work queue: the protocol a driver and its workers share,
 * the queue's streams, a worker, and the driver's `RemoteEpisodes`.
 */
export {
  decodeJob,
  decodePresence,
  decodeResult,
  printableName,
  EpisodeJob,
  EpisodeResult,
  JOBS_STREAM,
  jobSubject,
  messageId,
  Presence,
  PROTOCOL_VERSION,
  RESULTS_STREAM,
  resultSubject,
  UPLOADS_BUCKET,
  UPLOADS_TTL_MS,
  WORKERS_CONSUMER
} from "./Protocol.ts"
export type { JobApp } from "./Protocol.ts"
export { DEFAULT_QUEUE, openQueue, PRESENCE_STREAM, PRESENCE_TTL_MS, presenceSubject } from "./Queue.ts"
export type { QueueSettings } from "./Queue.ts"
export { announce, livePresences, PresenceUnreadable, presenceOf } from "./Presence.ts"
export { refusal, runWorker } from "./Worker.ts"
export type { EnvironmentSettings, WorkerApp, WorkerOptions } from "./Worker.ts"
export { remoteEpisodes } from "./Dispatch.ts"
export { QueueError } from "./QueueError.ts"
export { jobNonce, QUEUE_KEY_FILE, queueKey } from "./JobNonce.ts"
export type { DispatchOptions } from "./Dispatch.ts"
