/**
 * docs/examples/nats-workers.conf as it is written: a nats-server of the test's own started
 * with that very file (only its listen address and store directory moved), so the docs
 * cannot drift from what is tested. The driver's user sets the log, the blob bucket and the
 * queue up; the worker's user may then pull a job, heartbeat, publish its result and its
 * presence, put and read blobs and ack — and the server refuses it the log, queueing jobs
 * and the JetStream API that creates, changes or deletes streams. A real `bun core worker`
 * runs on the worker's credentials without one permission violation, and `doctor` tells
 * the two users apart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Subprocess } from "bun"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer, ManagedRuntime } from "effect"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import type { JetStreamManager } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { BlobStore, JetStreamBlobStore, promoting, staged } from "@core/blobstore"
import { runStream } from "@core/events"
import { connectNats, EventStore, JetStreamStore } from "@core/eventstore"
import type { NatsCredentials } from "@core/eventstore"
import {
  announce,
  JOBS_STREAM,
  livePresences,
  openQueue,
  presenceOf,
  RESULTS_STREAM,
  UPLOADS_BUCKET,
  WORKERS_CONSUMER
} from "@core/workers"
import { headers } from "@nats-io/transport-node"
import { job, uniqueRun } from "../libs/eventstore/test/conformance.ts"
import { core, expectOneLineError, REPO, spawnCore } from "./support/cli.ts"
import { freePort } from "../libs/eventstore/test/natsServer.ts"

const CONFIG = join(REPO, "docs", "examples", "nats-workers.conf")
const DRIVER: NatsCredentials = { user: "core-driver", password: `driver-${crypto.randomUUID()}` }
const WORKER: NatsCredentials = { user: "core-worker", password: `worker-${crypto.randomUUID()}` }

interface ConfiguredServer {
  readonly url: string
  /** The server's log lines that report a permission violation, so far. */
  readonly violations: () => Array<string>
  readonly dispose: () => void
}

/** nats-server with the example file, its store directory a temporary one and the passwords in its environment. */
const startServer = async (): Promise<ConfiguredServer> => {
  const dir = mkdtempSync(join(tmpdir(), "core-nats-workers-"))
  const text = readFileSync(CONFIG, "utf8")
  const storeDir = 'store_dir: "/var/lib/nats"'
  expect(text.split(storeDir).length).toBe(2)
  writeFileSync(join(dir, "nats.conf"), text.replace(storeDir, `store_dir: ${JSON.stringify(join(dir, "store"))}`))
  const port = await freePort()
  const log = join(dir, "nats.log")
  // -a and -p take the place of the file's listen address: a free loopback port, never the shared server's.
  const proc: Subprocess = Bun.spawn(
    ["/usr/sbin/nats-server", "-c", join(dir, "nats.conf"), "-a", "127.0.0.1", "-p", String(port), "-l", log],
    {
      env: { ...process.env, NATS_DRIVER_PASSWORD: DRIVER.password, NATS_WORKER_PASSWORD: WORKER.password },
      stdout: "ignore",
      stderr: "pipe"
    }
  )
  for (let i = 0; ; i++) {
    const up = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
      (s) => (s.end(), true),
      () => false
    )
    if (up) break
    if (i === 100 || proc.exitCode !== null)
      throw new Error(`nats-server with ${CONFIG} did not start: ${await new Response(proc.stderr as ReadableStream).text()}`)
    await Bun.sleep(100)
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    violations: () => {
      const lines = readFileSync(log, "utf8").split("\n")
      return lines.filter((l) => /Violation/.test(l))
    },
    dispose: () => {
      proc.kill("SIGKILL")
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** What `bun core` reads the credentials from: variables the config names, never the URL. */
const cliEnv = (url: string, credentials: NatsCredentials) => ({
  NATS_URL: url,
  CORE_NATS_USER_ENV: "TEST_NATS_USER",
  CORE_NATS_PASSWORD_ENV: "TEST_NATS_PASSWORD",
  TEST_NATS_USER: credentials.user!,
  TEST_NATS_PASSWORD: credentials.password!
})

const refusedPublish = /Permissions Violation for Publish/

let server: ConfiguredServer
let driver: NatsConnection
let worker: NatsConnection
let jsm: JetStreamManager
let driverStores: ManagedRuntime.ManagedRuntime<EventStore | BlobStore, unknown>

const messages = async (stream: string) => (await jsm.streams.info(stream)).state.messages

beforeAll(async () => {
  server = await startServer()
  driver = await connectNats(server.url, DRIVER, "test-driver")
  jsm = await jetstreamManager(driver)
  // As a driver sets them up: the log's stream, the blob bucket, the queue.
  driverStores = ManagedRuntime.make(
    Layer.mergeAll(
      JetStreamStore.layer({ url: server.url, credentials: DRIVER }),
      JetStreamBlobStore.layer({ url: server.url, credentials: DRIVER })
    ) as Layer.Layer<EventStore | BlobStore, unknown>
  )
  const r = uniqueRun()
  const stream = runStream(r, "job", "w0")
  await driverStores.runPromise(
    Effect.flatMap(Effect.service(EventStore), (s) => s.append(stream, [job(r, stream, 0)], { expectedRevision: 0 }))
  )
  await openQueue(driver, { ackWaitMs: 30_000, maxDeliveries: 3 })
  // The uploads bucket, as a driver's queued run makes it.
  await Effect.runPromise(Effect.scoped(JetStreamBlobStore.make({ url: server.url, bucket: UPLOADS_BUCKET, credentials: DRIVER })))
  worker = await connectNats(server.url, WORKER, "test-worker")
})

afterAll(async () => {
  await worker?.close()
  await driver?.close()
  await driverStores?.dispose()
  server?.dispose()
})

describe("worker credentials of docs/examples/nats-workers.conf", () => {
  test("the worker's user may not append to the log, queue a job, or create, change or delete a stream", async () => {
    const log = await messages("CORE")
    expect(log).toBe(1)
    const js = jetstream(worker)
    // The log's stream `ws.task.x` is the JetStream subject core.ws.task.x.
    await expect(js.publish("core.ws.task.x", "{}", { timeout: 2_000 })).rejects.toThrow(refusedPublish)
    // Without waiting for an ack, too: the server drops it before JetStream sees it.
    worker.publish("core.run.r1.job.w0", "{}")
    await worker.flush()
    expect(await messages("CORE")).toBe(log)
    await expect(js.publish("coreq.jobs.r1.planted", "{}", { timeout: 2_000 })).rejects.toThrow(refusedPublish)
    expect(await messages(JOBS_STREAM)).toBe(0)

    const wjsm = await jetstreamManager(worker)
    await expect(wjsm.streams.add({ name: "ELSEWHERE", subjects: ["elsewhere.>"] })).rejects.toThrow(refusedPublish)
    await expect(wjsm.streams.delete(JOBS_STREAM)).rejects.toThrow(refusedPublish)
    await expect(wjsm.streams.purge("OBJ_core-blobs")).rejects.toThrow(refusedPublish)
    // Nor write the blob bucket older runs replay from: a rollup on its metadata would purge it.
    const blobsBefore = await messages("OBJ_core-blobs")
    const rollup = headers()
    rollup.set("Nats-Rollup", "all")
    await expect(js.publish("$O.core-blobs.M.eA", "{}", { headers: rollup, timeout: 2_000 })).rejects.toThrow(refusedPublish)
    await expect(js.publish("$O.core-blobs.C.x", "chunk", { timeout: 2_000 })).rejects.toThrow(refusedPublish)
    expect(await messages("OBJ_core-blobs")).toBe(blobsBefore)
    await expect(wjsm.consumers.update(JOBS_STREAM, WORKERS_CONSUMER, { max_deliver: 100 })).rejects.toThrow(refusedPublish)
    // Nor read the log: no consumer on it, no message of it.
    await expect(wjsm.consumers.add("CORE", { name: "peek" })).rejects.toThrow(refusedPublish)
    await expect(wjsm.streams.getMessage("CORE", { seq: 1 })).rejects.toThrow(refusedPublish)
    const exit = await Effect.runPromiseExit(JetStreamStore.make({ url: server.url, credentials: WORKER }).pipe(Effect.scoped))
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toMatch(refusedPublish)
    expect(await messages("CORE")).toBe(log)
  })

  test("the worker's user pulls a job, heartbeats, publishes its result and presence, puts and reads blobs, and acks", async () => {
    const before = server.violations().length
    const driverQueue = await openQueue(driver)
    await driverQueue.js.publish("coreq.jobs.r1.t1", JSON.stringify({ job: 1 }))
    const model = new TextEncoder().encode("a retrieval model the driver put")
    const modelHash = await driverStores.runPromise(Effect.flatMap(Effect.service(BlobStore), (b) => b.put(model)))

    const queue = await openQueue(worker)
    const consumer = await queue.js.consumers.get(JOBS_STREAM, WORKERS_CONSUMER)
    const msg = await consumer.next({ expires: 5_000 })
    expect(msg?.json()).toEqual({ job: 1 })
    msg!.working()
    expect((await consumer.info(false)).config.max_deliver).toBe(3)
    const stop = announce(queue, () =>
      presenceOf({ name: "perm-w1", host: "test", pid: process.pid, concurrency: 1, holding: ["t1"], done: 0, since: "now" })
    )
    // As `bun core worker` makes its store: the main bucket read, the uploads bucket written.
    const storeOf = (credentials: NatsCredentials, bucket?: string) =>
      JetStreamBlobStore.make({ url: server.url, credentials, ...(bucket === undefined ? {} : { bucket }) })
    const workerBlobs = ManagedRuntime.make(
      Layer.effect(
        BlobStore,
        Effect.map(Effect.all([storeOf(WORKER), storeOf(WORKER, UPLOADS_BUCKET)]), ([main, uploads]) => staged(main, uploads))
      )
    )
    try {
      // Big enough for many chunks, and for the read to need the consumer's flow control (from about 3 MB).
      const observation = new Uint8Array(4_500_000).map((_, i) => (i * 31) % 251)
      const [hash, put, read] = await workerBlobs.runPromise(
        Effect.flatMap(Effect.service(BlobStore), (b) =>
          Effect.flatMap(b.put(observation), (h) => Effect.all([Effect.succeed(h), b.get(h), b.get(modelHash)]))
        )
      )
      expect(put).toEqual(observation)
      expect(read).toEqual(model)
      // The main bucket has it only once the driver, reading it to check a record, promoted it.
      const inMain = () => driverStores.runPromise(Effect.flatMap(Effect.service(BlobStore), (b) => b.has(hash)))
      expect(await inMain()).toBe(false)
      const promoted = await Effect.runPromise(
        Effect.scoped(Effect.flatMap(Effect.all([storeOf(DRIVER), storeOf(DRIVER, UPLOADS_BUCKET)]), ([m, u]) => promoting(m, u).get(hash)))
      )
      expect(promoted).toEqual(observation)
      expect(await inMain()).toBe(true)
      const ack = await queue.js.publish("coreq.results.r1.t1", JSON.stringify({ result: 1 }), { msgID: "r1:t1:n" })
      expect(ack.stream).toBe(RESULTS_STREAM)
      expect(await msg!.ackAck()).toBe(true)
      expect((await livePresences(driverQueue)).map((p) => p.name)).toContain("perm-w1")
    } finally {
      stop()
      await workerBlobs.dispose()
    }
    expect(await messages(JOBS_STREAM)).toBe(0)
    expect(await messages(RESULTS_STREAM)).toBe(1)
    expect(server.violations().slice(before)).toEqual([])
  }, 20_000)

  test("the worker's user reads only its own replies: not the shared inbox, not the driver's", async () => {
    const before = server.violations().length
    const snoop = await connectNats(server.url, WORKER, "test-snoop")
    try {
      for (const subject of ["_INBOX.>", "_INBOX_core-driver.>", ">"]) snoop.subscribe(subject)
      await snoop.flush()
      // The driver's requests are answered on its own inbox, which the worker may not read.
      expect((await jsm.streams.info("CORE")).state.messages).toBe(1)
      await Bun.sleep(300)
      const refused = server
        .violations()
        .slice(before)
        .filter((l) => /Subscription Violation/.test(l))
      expect(refused.map((l) => l.match(/Subject "([^"]+)"/)?.[1]).sort()).toEqual([">", "_INBOX.>", "_INBOX_core-driver.>"])
    } finally {
      await snoop.close().catch(() => undefined)
    }
  })

  test("a real bun core worker on the worker's credentials announces itself and drops a bad job, with no violation", async () => {
    const before = server.violations().length
    const proc = spawnCore(["worker", "--store", "nats", "--name", "perm-cli", "--concurrency", "1"], cliEnv(server.url, WORKER))
    let stderr = ""
    const reading = (async () => {
      for await (const chunk of proc.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk
    })()
    try {
      const queue = await openQueue(driver)
      const deadline = Date.now() + 20_000
      while (!(await livePresences(queue)).some((p) => p.name === "perm-cli")) {
        if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`no presence from the worker: ${stderr}`)
        await Bun.sleep(200)
      }
      await queue.js.publish("coreq.jobs.r1.bad", "{}")
      while (!stderr.includes("dropped a job")) {
        if (Date.now() > deadline) throw new Error(`the worker did not drop the job: ${stderr}`)
        await Bun.sleep(100)
      }
    } finally {
      proc.kill("SIGINT")
      await proc.exited
      await reading
    }
    expect(stderr).toContain("worker perm-cli: stopped")
    expect(stderr).not.toContain("error:")
    expect(server.violations().slice(before)).toEqual([])
  }, 40_000)

  test("with nothing set up yet, the worker's credentials get one line saying what is missing and who makes it", async () => {
    const fresh = await startServer()
    const env = cliEnv(fresh.url, WORKER)
    const nc = await connectNats(fresh.url, WORKER, "test-fresh-worker")
    try {
      await expect(openQueue(nc)).rejects.toThrow(
        "stream CORE_JOBS does not exist and these NATS credentials may not create it: a driver sets the queue up"
      )
      const noBucket = await core(["worker", "--store", "nats"], env)
      expectOneLineError(noBucket, expect)
      expect(noBucket.stderr).toContain(
        `object store bucket "core-blobs" does not exist at ${fresh.url} and these NATS credentials may not create it`
      )
      // The buckets, as a driver's queued run makes them (the uploads one only then); the queue still missing.
      await Effect.runPromise(Effect.scoped(JetStreamBlobStore.make({ url: fresh.url, credentials: DRIVER })))
      const noUploads = await core(["worker", "--store", "nats"], env)
      expectOneLineError(noUploads, expect)
      expect(noUploads.stderr).toContain(`object store bucket "core-uploads" does not exist at ${fresh.url}`)
      await Effect.runPromise(Effect.scoped(JetStreamBlobStore.make({ url: fresh.url, bucket: UPLOADS_BUCKET, credentials: DRIVER })))
      const noQueue = await core(["worker", "--store", "nats"], env)
      expectOneLineError(noQueue, expect)
      expect(noQueue.stderr).toContain("error: work queue: stream CORE_JOBS does not exist and these NATS credentials may not create it")
    } finally {
      await nc.close()
      fresh.dispose()
    }
  }, 30_000)

  test("doctor says whether the configured user may append to the log", async () => {
    const writes = async (credentials: NatsCredentials) => {
      const { stdout, code } = await core(["doctor", "--json"], cliEnv(server.url, credentials))
      expect(code).toBe(0)
      return (JSON.parse(stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.find(
        (c) => c.name === "nats log writes"
      )
    }
    const [asWorker, asDriver] = await Promise.all([writes(WORKER), writes(DRIVER)])
    expect(asWorker?.status).toBe("ok")
    expect(asWorker?.detail).toStartWith("user core-worker may not append to the log (core.>): worker credentials")
    expect(asDriver?.status).toBe("ok")
    expect(asDriver?.detail).toStartWith("user core-driver may append to the log (core.>), as a driver must")
    expect(asDriver?.detail).toContain("docs/examples/nats-workers.conf")
    // Asking wrote nothing.
    expect(await messages("CORE")).toBe(1)
  }, 30_000)
})
