/**
 * `bun core worker [--concurrency N] [--name W] [--app DIR] [--model-base-url URL]`: plays
 * episode jobs from the work queue on the store's NATS server until Ctrl-C — the bundled
 * sites' by default, or an app pack's (the same pack, by digest, as the run's). A job of a
 * `--policy model` run names the model; the server it is served on, and its key, are this
 * machine's own (`models.baseUrl`, `models.apiKeyEnv`), and a worker without a server
 * refuses those jobs. `bun core workers` lists the live ones.
 *
 * @example
 * NATS_URL=nats://driver:4222 bun core worker --concurrency 2 --model-base-url http://gpu:8000/v1
 */
import { Effect, Layer } from "effect"
import { hostname } from "node:os"
import { resolve } from "node:path"
import { ModelClient, modelOptionsFromConfig } from "@core/models"
import { runWorker } from "@core/workers"
import { BlobStore, JetStreamBlobStore, staged } from "@core/blobstore"
import { natsOutageLimitMs } from "@core/config"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { positiveInt, UsageError, untilSignal } from "../Cli.ts"
import { commonConfigFlags, configFlags } from "../ConfigFlags.ts"
import { openStore } from "@core/run"
import { packWorkerApp, queueConnection, uploadsStore, workerEnvironment } from "@core/run"
import { bundledWorkerApp } from "@core/sites/run"
import { allowSecretFlags, packSecretRule } from "../PackSecrets.ts"

export const worker: Command<Failure> = {
  name: "worker",
  summary: "play episode jobs from the work queue (run --workers queue) on this machine until Ctrl-C",
  flags: {
    concurrency: { kind: "number", description: "episodes played at once (default 2)" },
    name: { kind: "string", description: "this worker's name in bun core workers and the run's progress (default host-pid)" },
    app: { kind: "string", description: "serve this app pack's jobs (the run's pack, same digest) instead of the bundled sites'" },
    ...allowSecretFlags,
    ...commonConfigFlags,
    ...configFlags(["models.baseUrl", "models.model", "models.apiKeyEnv"]),
    // Where this worker reaches it is its own: the job carries only the model's name.
    "model-base-url": {
      kind: "string",
      description:
        "the OpenAI-compatible model server this worker's --policy model episodes call; without it their jobs are refused (models.baseUrl, env CORE_MODEL_BASE_URL)"
    }
  },
  ownSignals: true,
  run: (args) =>
    Effect.scoped(
      Effect.gen(function* () {
        const concurrency = yield* positiveInt(args, "concurrency", 2)
        const name = (args.flags.name as string | undefined) ?? `${hostname()}-${process.pid}`
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
          return yield* new UsageError({ message: `--name takes letters, digits, '-' and '_' (at most 64), got ${JSON.stringify(name)}` })
        const opened = yield* openStore(args)
        const nc = yield* queueConnection(opened, `core-worker-${name}`)
        const { choice } = opened
        // Never so: queueConnection has refused every store but NATS.
        if (choice.kind !== "nats") return
        const dir = args.flags.app as string | undefined
        const app = yield* dir === undefined ? bundledWorkerApp() : packWorkerApp(resolve(dir), packSecretRule(opened.config, args))
        const environment = yield* workerEnvironment(opened.config, app)
        // The blob store alone, not the log: a worker never reads or appends an event, so it
        // runs on credentials without any right on the log's stream (docs/examples/nats-workers.conf).
        // It reads the main bucket and puts into the uploads one, which the driver promotes from.
        const blobStore = Layer.effect(
          BlobStore,
          Effect.gen(function* () {
            const main = yield* JetStreamBlobStore.make({
              url: choice.url,
              credentials: opened.credentials,
              outageLimitMs: natsOutageLimitMs(opened.config)
            })
            return staged(main, yield* uploadsStore(opened, choice.url))
          })
        )
        const server = modelOptionsFromConfig(opened.config)
        const program = Effect.gen(function* () {
          const blobs = yield* BlobStore
          yield* runWorker({
            name,
            concurrency,
            nc,
            app,
            environment,
            models:
              server === null
                ? null
                : (runId, record) => ModelClient.layer({ ...server, runId, record, resolveImage: (hash: string) => blobs.get(hash) }),
            log: (line) => console.error(line),
            onDone: (jobId, outcome) => console.error(`worker ${name}: ${jobId} ${outcome}`),
            stop: untilSignal(),
            outageLimitMs: natsOutageLimitMs(opened.config)
          })
        })
        yield* program.pipe(Effect.provide(blobStore))
        console.error(`worker ${name}: stopped`)
      })
    )
}
