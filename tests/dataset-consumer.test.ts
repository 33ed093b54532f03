/**
 * The Python consumer of docs/datasets.md (docs/examples/consume.py, standard library only)
 * run with Debian's python3 against a live `bun core dataset follow --out`: records arrive
 * while it reads, it is SIGKILLed in the middle of a batch, restarted, and still handles
 * every record exactly once. Runs on the shared CORE stream under a unique run id.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer, type Schema } from "effect"
import { connect } from "@nats-io/transport-node"
import { jetstreamManager } from "@nats-io/jetstream"
import { BlobStore, JetStreamBlobStore } from "@core/blobstore"
import { DatasetRecordEmitted, digest, makeEvent, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EventStore, JetStreamStore } from "@core/eventstore"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { REPO, spawnCore } from "./support/cli.ts"
import { png } from "./support/dataset-run.ts"

const NATS = "nats://127.0.0.1:4222"
const PYTHON = "/usr/bin/python3"
const tmp = mkdtempSync(join(tmpdir(), "core-dataset-consumer-"))
const consumer = `py-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true })
  const nc = await connect({ servers: NATS })
  await (await jetstreamManager(nc)).consumers.delete("CORE", consumer).catch(() => false)
  await nc.close()
})

const layer = Layer.mergeAll(JetStreamStore.layer({ url: NATS }), JetStreamBlobStore.layer({ url: NATS }))
const run = <A>(effect: Effect.Effect<A, unknown, EventStore | BlobStore>) => Effect.runPromise(Effect.provide(effect, layer))

const lineCount = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").length - 1 : 0)
const ids = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (JSON.parse(l) as { record_id: string }).record_id)

const waitFor = async (what: string, cond: () => boolean, ms = 30_000) => {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

test("docs/examples/consume.py follows `dataset follow --out`: SIGKILLed mid-batch and restarted, every record once", async () => {
  const runId = `dsc-${consumer}`
  const dir = join(tmp, "data")
  const file = join(dir, "sft.jsonl")
  const out = join(tmp, "trained.jsonl")
  const hashes = await run(
    Effect.gen(function* () {
      const blobs = yield* BlobStore
      return yield* Effect.forEach([png(3, 2, 1), png(2, 3, 2)], (p) => blobs.put(p))
    })
  )
  const recs = Array.from({ length: 120 }, (_, i) => {
    const body = { messages: [{ role: "user", content: `<image>\nstep ${i} of ${runId}` }], images: [hashes[i % 2]!] }
    return { recordId: digest({ format: "sft", body }), body }
  })
  // Eight records a commit; the commits reach the log in three parts, around the consumer's crash.
  const commits = Array.from({ length: recs.length / 8 }, (_, k) =>
    recs.slice(k * 8, k * 8 + 8).map(
      (r, i) =>
        makeEvent(DatasetRecordEmitted, {
          stream: runStream(runId, "dataset", "1"),
          runId,
          causationId: r.recordId,
          ordinal: i,
          recordedAt: "2026-12-05T10:00:00.000Z",
          data: {
            recordId: r.recordId,
            round: 1,
            format: "sft",
            trajectoryIds: [`t${k}`],
            taskId: "t",
            body: r.body as typeof Schema.Json.Type,
            blobs: r.body.images
          }
        }) as CoreEvent
    )
  )
  let revision = 0
  const append = (part: ReadonlyArray<ReadonlyArray<CoreEvent>>) =>
    run(
      Effect.gen(function* () {
        const store = yield* EventStore
        for (const c of part) revision = (yield* store.append(c[0]!.stream, c, { expectedRevision: revision })).revision
      })
    )
  await append(commits.slice(0, 10))

  const follower = spawnCore([
    "dataset",
    "follow",
    "--consumer",
    consumer,
    "--run",
    runId,
    "--format",
    "sft",
    "--out",
    file,
    "--store",
    "nats"
  ])
  const python = () =>
    Bun.spawn(
      [
        PYTHON,
        join(REPO, "docs", "examples", "consume.py"),
        file,
        "--out",
        out,
        "--follow",
        "--batch",
        "16",
        "--pace",
        "0.01",
        "--poll",
        "0.05"
      ],
      {
        stdout: "pipe",
        stderr: "pipe"
      }
    )
  // The consumer starts on a file of 80 records, so it stops to commit only after each 16th:
  // killed with a batch half handled, its notes in OUT are ahead of its committed state.
  await waitFor("the follower's first 80 records", () => lineCount(file) === 80)
  const first = python()
  await waitFor("the consumer to be in the middle of its second batch", () => lineCount(out) > 16 && lineCount(out) % 16 !== 0)
  first.kill("SIGKILL")
  await first.exited
  const state = () => JSON.parse(readFileSync(`${out}.state.json`, "utf8")) as { records: number; offset: number }
  expect(lineCount(out)).toBeGreaterThan(state().records)

  await append(commits.slice(10, 12))
  const second = python()
  await append(commits.slice(12))
  await waitFor(`all ${recs.length} records in the consumer's notes`, () => lineCount(out) >= recs.length)
  await Bun.sleep(200)
  second.kill("SIGTERM")
  expect(await second.exited).toBe(0)
  expect(await new Response(second.stderr).text()).toContain("undid")
  follower.kill("SIGTERM")
  expect(await follower.exited).toBe(0)

  const handled = ids(out)
  expect(handled.length).toBe(recs.length)
  expect(new Set(handled).size).toBe(recs.length)
  // In the follower's file order, which is every record of the run once.
  expect(handled).toEqual(ids(file))
  expect(new Set(handled)).toEqual(new Set(recs.map((r) => r.recordId)))
  expect(state()).toMatchObject({ records: recs.length, offset: readFileSync(file).byteLength })
}, 60_000)
