/**
 * What `bun core worker`, `bun core workers` and `run --workers queue` share: the NATS
 * connection of the work queue (the event store's server and credentials), the app a worker
 * serves when it serves a pack, and the layer a run hands its episodes to workers through.
 *
 * @example
 * const nc = yield* queueConnection(opened, "core-driver")
 * const plan = { ...settings, remote: queuedEpisodes(opened, url, nc, app) }
 */
import { Context, Effect, Layer, Schema } from "effect"
import type { Scope } from "effect"
import { App, CommandApp, loadLogin, loadPack, packDigest, packRunApp, packRunTask } from "@core/apps"
import type { PackError, SecretRule } from "@core/apps"
import { natsOutageLimitMs, queueSettings } from "@core/config"
import type { LoadedConfig } from "@core/config"
import { JetStreamBlobStore } from "@core/blobstore"
import { BrowserPool } from "@core/env-web"
import { connectNats, displayNatsUrl } from "@core/eventstore"
import { queueKey, remoteEpisodes, UPLOADS_BUCKET, UPLOADS_TTL_MS } from "@core/workers"
import type { EnvironmentSettings, JobApp, WorkerApp } from "@core/workers"
import { platformEnvironment } from "./PlatformEnvironment.ts"
import type { RemoteRun } from "./RunPlan.ts"
import type { OpenedStore } from "./Store.ts"
import type { NatsConnection } from "@nats-io/transport-node"

/** The work queue cannot be reached: the store is not NATS, or its server does not answer. */
export class QueueUnavailable extends Schema.TaggedError<QueueUnavailable>()("QueueUnavailable", {
  message: Schema.String
}) {}

/** The queue lives on the event store's NATS server: a run on the embedded store has none. */
export const queueConnection = (opened: OpenedStore, name: string) =>
  Effect.gen(function* () {
    if (opened.choice.kind !== "nats")
      return yield* new QueueUnavailable({
        message:
          "workers share episodes over NATS JetStream and its object store: use --store nats (the embedded store and its blob directory stay on one machine)"
      })
    const url = opened.choice.url
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => connectNats(url, opened.credentials, name),
        catch: (e) =>
          new QueueUnavailable({ message: `cannot reach NATS at ${displayNatsUrl(url)}: ${e instanceof Error ? e.message : String(e)}` })
      }),
      (nc) => Effect.promise(() => nc.close().catch(() => undefined))
    )
  })

/** The app a worker serves when it serves the pack in `dir`: its instances started here, its log-in typing what `secrets` allow (the bundled sites' is @core/sites/run's). */
export const packWorkerApp = (dir: string, secrets: SecretRule): Effect.Effect<WorkerApp, PackError, Scope.Scope> =>
  Effect.gen(function* () {
    const pack = yield* loadPack(dir)
    const login = yield* loadLogin(pack, secrets)
    const digest = yield* packDigest(pack)
    const context = yield* Layer.build(CommandApp.layer(pack.dir))
    const tasks = new Map(pack.tasks.map((t) => [t.id, packRunTask(pack, t)]))
    return {
      app: { kind: "pack", name: pack.config.name, digest } as const,
      runApp: packRunApp(pack, Context.get(context, App), login),
      taskOf: (id: string) => tasks.get(id)
    }
  })

/** A worker's environments: the platform's, as a run makes them, sharing one browser pool. */
export const workerEnvironment = (config: LoadedConfig, app: WorkerApp) =>
  Effect.gen(function* () {
    const pool = yield* Layer.build(BrowserPool.layer())
    return (s: EnvironmentSettings) =>
      Effect.provideContext(
        // A run queues a task's samples one after another: while one plays, the next of the same task is opened, as in-process.
        platformEnvironment(config, s.platform, {
          screenshots: s.screenshots,
          episodes: app.runApp.episodes,
          setOfMarks: s.setOfMarks,
          prepareAhead: true
        }),
        pool
      )
  })

/**
 * The uploads bucket on the store's server (UPLOADS_BUCKET): where workers put their blobs.
 * A driver creates it; a worker on credentials that may not is told so in one line.
 */
export const uploadsStore = (opened: OpenedStore, url: string) =>
  JetStreamBlobStore.make({
    url,
    bucket: UPLOADS_BUCKET,
    credentials: opened.credentials,
    outageLimitMs: natsOutageLimitMs(opened.config),
    ttlMs: UPLOADS_TTL_MS
  })

/** `run --workers queue`: the run's episodes go to the queue on the store's server, each job with its nonce. */
export const queuedEpisodes = (opened: OpenedStore, url: string, nc: NatsConnection, app: JobApp) => (run: RemoteRun) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const key = yield* queueKey(opened.config.values.dataDir)
      const uploads = yield* uploadsStore(opened, url)
      return remoteEpisodes({
        nc,
        runId: run.runId,
        seed: run.seed,
        key,
        uploads,
        app,
        platform: run.platform,
        screenshots: run.screenshots,
        setOfMarks: run.setOfMarks,
        queue: queueSettings(opened.config),
        startTaskOf: run.startTaskOf,
        record: run.record,
        onResult: run.onResult,
        log: run.log,
        outageLimitMs: natsOutageLimitMs(opened.config)
      })
    })
  )
