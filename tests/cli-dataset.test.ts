/**
 * `bun core dataset export|follow` against a real log: synthetic DatasetRecordEmitted
 * commits with real PNG blobs, exported per format and round; and a follower SIGKILLed
 * mid-stream, a torn line left in its file, restarted — every record exactly once.
 * Runs are isolated by a unique run id on the shared CORE stream (as the other CLI tests).
 */
import { describe, expect, test } from "bun:test"
import { Effect, Layer, type Schema } from "effect"
import { DirectoryBlobStore, JetStreamBlobStore, BlobStore } from "@core/blobstore"
import { DatasetRecordEmitted, DatasetSealed, digest, makeEvent, runStream } from "@core/events"
import type { CoreEvent, DatasetFormat } from "@core/events"
import { EmbeddedStore, EventStore, JetStreamStore } from "@core/eventstore"
import { appendFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError, spawnCore } from "./support/cli.ts"
import { png } from "./support/dataset-run.ts"
import { cleanedUp, NATS, tee, unique, waitFor } from "./support/follower.ts"

const AT = "2026-12-03T10:00:00.000Z"
const tmp = mkdtempSync(join(tmpdir(), "core-cli-dataset-"))
const consumers = cleanedUp(tmp)

type StoreKind = "nats" | "embedded"
const layerFor = (kind: StoreKind, dataDir: string): Layer.Layer<EventStore | BlobStore, unknown> =>
  kind === "nats"
    ? Layer.mergeAll(JetStreamStore.layer({ url: NATS }), JetStreamBlobStore.layer({ url: NATS }))
    : Layer.mergeAll(EmbeddedStore.layer({ path: join(dataDir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dataDir, "blobs") }))
const storeFlags = (kind: StoreKind, dataDir: string) => ["--store", kind, "--data-dir", dataDir]

const putImages = (layer: Layer.Layer<EventStore | BlobStore, unknown>, images: ReadonlyArray<Uint8Array>) =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const blobs = yield* BlobStore
        return yield* Effect.forEach(images, (b) => blobs.put(b))
      }),
      layer
    )
  )

interface Rec {
  readonly recordId: string
  readonly round: number
  readonly format: DatasetFormat
  readonly taskId: string
  readonly trajectoryIds: ReadonlyArray<string>
  readonly body: { readonly images: ReadonlyArray<string> } & Record<string, unknown>
}

const makeRec = (runId: string, i: number, round: number, format: DatasetFormat, images: ReadonlyArray<string>): Rec => {
  const img = images[i % images.length]!
  const body =
    format === "sft"
      ? {
          images: [img],
          messages: [
            { role: "user", content: `task ${i} of ${runId}` },
            { role: "assistant", content: `click(${i})` }
          ],
          meta: { i }
        }
      : format === "dpo"
        ? {
            images: [img, images[(i + 1) % images.length]!],
            prompt: `task ${i} of ${runId}`,
            chosen: "click(1)",
            rejected: "click(2)",
            meta: { i }
          }
        : { images: [img], instruction: `task ${i} of ${runId}`, steps: [{ action: "click", target: i }], reward: 1 }
  return {
    recordId: digest({ format, body }),
    round,
    format,
    taskId: `t${i % 7}`,
    trajectoryIds: format === "dpo" ? [`tr${i}a`, `tr${i}b`] : [`tr${i}`],
    body
  }
}

const recordEvent = (runId: string, r: Rec): CoreEvent =>
  makeEvent(DatasetRecordEmitted, {
    stream: runStream(runId, "dataset", String(r.round)),
    runId,
    causationId: r.recordId,
    ordinal: 0,
    recordedAt: AT,
    data: {
      recordId: r.recordId,
      round: r.round,
      format: r.format,
      trajectoryIds: r.trajectoryIds,
      taskId: r.taskId,
      body: r.body as typeof Schema.Json.Type,
      blobs: r.body.images
    }
  }) as CoreEvent

const sealEvent = (runId: string, round: number, recs: ReadonlyArray<Rec>): CoreEvent => {
  const mine = recs.filter((r) => r.round === round)
  const count = (f: DatasetFormat) => mine.filter((r) => r.format === f).length
  return makeEvent(DatasetSealed, {
    stream: runStream(runId, "dataset", String(round)),
    runId,
    causationId: `seal-${round}`,
    ordinal: 0,
    recordedAt: AT,
    data: {
      round,
      counts: { sft: count("sft"), dpo: count("dpo"), rollout: count("rollout") },
      recordCount: mine.length,
      contentDigest: digest(mine.map((r) => r.recordId).sort())
    }
  }) as CoreEvent
}

/** Commits of one stream each, appended in order; `between(k)` runs after the k-th commit. */
const appendCommits = (
  layer: Layer.Layer<EventStore | BlobStore, unknown>,
  commits: ReadonlyArray<ReadonlyArray<CoreEvent>>,
  between: (k: number) => Promise<void> = async () => {}
) =>
  Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const store = yield* EventStore
        const revisions = new Map<string, number>()
        for (let k = 0; k < commits.length; k++) {
          const stream = commits[k]![0]!.stream
          if (!revisions.has(stream)) revisions.set(stream, (yield* store.readStream(stream)).at(-1)?.position ?? 0)
          const { revision } = yield* store.append(stream, commits[k]!, { expectedRevision: revisions.get(stream)! })
          revisions.set(stream, revision)
          yield* Effect.promise(() => between(k + 1))
        }
      }),
      layer
    )
  )

/** Records grouped into commits of `size`, never mixing rounds (a commit is one stream). */
const commitsOf = (runId: string, recs: ReadonlyArray<Rec>, size: number): Array<Array<CoreEvent>> => {
  const out: Array<Array<CoreEvent>> = []
  for (const r of recs) {
    const last = out.at(-1)
    if (last && last.length < size && last[0]!.stream === runStream(runId, "dataset", String(r.round))) last.push(recordEvent(runId, r))
    else out.push([recordEvent(runId, r)])
  }
  return out
}

const lines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)

describe.each([["nats" as StoreKind], ["embedded" as StoreKind]])("dataset export on the %s store", (kind) => {
  const dataDir = join(tmp, `data-${kind}`)
  const runId = `dsx-${kind}-${unique()}`
  const pngs = [png(4, 3, 1), png(5, 2, 2), png(3, 3, 3)]
  const recs: Array<Rec> = []
  let hashes: Array<string> = []

  test("writes the records of one format (and round) as JSONL with their images beside it", async () => {
    const layer = layerFor(kind, dataDir)
    hashes = await putImages(layer, pngs)
    const plan: Array<[number, DatasetFormat, number]> = [
      [1, "sft", 6],
      [1, "dpo", 2],
      [1, "rollout", 3],
      [2, "sft", 4],
      [2, "dpo", 1]
    ]
    let i = 0
    for (const [round, format, n] of plan) for (let k = 0; k < n; k++) recs.push(makeRec(runId, i++, round, format, hashes))
    const r1 = recs.filter((r) => r.round === 1)
    const r2 = recs.filter((r) => r.round === 2)
    // Round 1 sealed, round 2 still open.
    await appendCommits(layer, [...commitsOf(runId, r1, 4), [sealEvent(runId, 1, recs)], ...commitsOf(runId, r2, 4)])

    const out = join(tmp, `export-${kind}`, "sft.jsonl")
    const all = await core(["dataset", "export", "--run", runId, "--format", "sft", "--out", out, "--json", ...storeFlags(kind, dataDir)])
    expect(all.stderr).not.toContain("error")
    expect(all.code).toBe(0)
    expect(JSON.parse(all.stdout)).toEqual({ run: runId, format: "sft", rounds: [1, 2], records: 10, images: 3, out, sealed: false })
    expect(all.stderr).toContain("dataset export: 10 sft records from rounds 1, 2")
    expect(all.stderr).toContain("round 2 not sealed yet")
    expect(existsSync(`${out}.tmp`)).toBe(false)
    const got = lines(readFileSync(out, "utf8"))
    const sft = recs.filter((r) => r.format === "sft")
    expect(got.map((l) => l.record_id)).toEqual(sft.map((r) => r.recordId))
    const first = sft[0]!
    expect(got[0]).toEqual({
      record_id: first.recordId,
      run_id: runId,
      round: 1,
      format: "sft",
      task_id: first.taskId,
      trajectory_ids: [...first.trajectoryIds],
      images: first.body.images.map((h) => `images/${h}.png`),
      messages: first.body.messages,
      meta: first.body.meta
    })
    for (let k = 0; k < hashes.length; k++)
      expect(Buffer.from(readFileSync(join(tmp, `export-${kind}`, "images", `${hashes[k]}.png`))).equals(Buffer.from(pngs[k]!))).toBe(true)

    const round1 = await core([
      "dataset",
      "export",
      "--run",
      runId,
      "--round",
      "1",
      "--format",
      "sft",
      "--out",
      out,
      "--json",
      ...storeFlags(kind, dataDir)
    ])
    expect(JSON.parse(round1.stdout)).toMatchObject({ rounds: [1], records: 6, sealed: true })
    expect(lines(readFileSync(out, "utf8")).every((l) => l.round === 1)).toBe(true)

    const dpoOut = join(tmp, `export-${kind}`, "dpo.jsonl")
    const dpo = await core([
      "dataset",
      "export",
      "--run",
      runId,
      "--round",
      "1",
      "--format",
      "dpo",
      "--out",
      dpoOut,
      ...storeFlags(kind, dataDir)
    ])
    expect(dpo.code).toBe(0)
    const dpoLines = lines(readFileSync(dpoOut, "utf8"))
    expect(dpoLines.length).toBe(2)
    expect(Object.keys(dpoLines[0]!)).toEqual([
      "record_id",
      "run_id",
      "round",
      "format",
      "task_id",
      "trajectory_ids",
      "images",
      "prompt",
      "chosen",
      "rejected",
      "meta"
    ])
    expect((dpoLines[0]!.trajectory_ids as Array<string>).length).toBe(2)

    // Without --out: JSONL on stdout, images left as blob hashes.
    const rollout = await core(["dataset", "export", "--run", runId, "--format", "rollout", ...storeFlags(kind, dataDir)])
    expect(rollout.code).toBe(0)
    const rolloutLines = lines(rollout.stdout)
    expect(rolloutLines.length).toBe(3)
    expect(rolloutLines.map((l) => l.images)).toEqual(recs.filter((r) => r.format === "rollout").map((r) => r.body.images))
    expect(rolloutLines[0]).toMatchObject({ reward: 1, format: "rollout", round: 1 })
  }, 60_000)

  test("unknown run, bad format, bad round: one line, non-zero, no stack trace", async () => {
    const out = join(tmp, `bad-${kind}.jsonl`)
    const flags = storeFlags(kind, dataDir)
    const run = (...a: Array<string>) => core(["dataset", "export", ...a, ...flags])
    const [unknown, format, missing, noRun, ...badRounds] = await Promise.all([
      run("--run", `nope-${unique()}`, "--format", "sft", "--out", out),
      run("--run", runId, "--format", "kto", "--out", out),
      run("--run", runId, "--format", "sft", "--round", "7", "--out", out),
      run("--format", "sft"),
      ...["-1", "1.5", "x"].map((bad) => run("--run", runId, "--format", "sft", "--round", bad))
    ])
    expectOneLineError(unknown!, expect)
    expect(unknown!.stderr).toContain("error: no dataset records for run nope-")
    expectOneLineError(format!, expect)
    expect(format!.code).toBe(2)
    expect(format!.stderr).toContain("--format must be one of sft, dpo, rollout")
    expectOneLineError(missing!, expect)
    expect(missing!.stderr).toContain(`run ${runId} has no dataset round 7 (rounds: 1, 2)`)
    expectOneLineError(noRun!, expect)
    for (const r of badRounds) expectOneLineError(r, expect)
    expect(existsSync(out)).toBe(false)
  }, 60_000)
})

test("dataset follow needs NATS: on the embedded store it says so in one line", async () => {
  const r = await core(["dataset", "follow", "--consumer", "c-embedded", "--store", "embedded", "--data-dir", join(tmp, "follow-embedded")])
  expectOneLineError(r, expect)
  expect(r.stderr).toContain("dataset follow needs the NATS store")
})

/** The text a stream has produced so far, growing in the background. */
const completeLines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").slice(0, -1) : [])

test("follow: SIGKILLed mid-stream, a torn line, restarted — every record exactly once, other formats excluded", async () => {
  const runId = `dsf-${unique()}`
  const consumer = `c-${unique()}`
  consumers.push(consumer, `${consumer}-fresh`)
  const dir = join(tmp, "follow")
  const out = join(dir, "sft.jsonl")
  const layer = layerFor("nats", dir)
  const hashes = await putImages(layer, [png(4, 4, 7), png(6, 2, 8)])
  // 1500 records, every fifth one dpo, over two rounds, ten to a commit.
  const recs = Array.from({ length: 1500 }, (_, i) => makeRec(runId, i, i < 750 ? 1 : 2, i % 5 === 4 ? "dpo" : "sft", hashes))
  const commits = commitsOf(runId, recs, 10)
  const sft = recs.filter((r) => r.format === "sft")
  expect(sft.length).toBe(1200)
  await appendCommits(layer, commits.slice(0, 60))

  const args = [
    "dataset",
    "follow",
    "--consumer",
    consumer,
    "--run",
    runId,
    "--format",
    "sft",
    "--out",
    out,
    "--ack-wait",
    "2",
    "--store",
    "nats"
  ]
  const a = spawnCore(args)
  const aErr = tee(a.stderr)
  await waitFor("the first follower's first lines", () => completeLines(out).length > 0)
  // The rest arrives while the follower works; it dies after 20 more commits, so it cannot have everything.
  await appendCommits(layer, commits.slice(60), async (k) => {
    if (k === 20) {
      a.kill("SIGKILL")
      await a.exited
    }
  })
  expect(a.signalCode).toBe("SIGKILL")
  const afterKill = completeLines(out).length
  expect(afterKill).toBeGreaterThan(0)
  expect(afterKill).toBeLessThan(sft.length)

  // A crash mid-write: half of a line whose record was never acknowledged (appended after the kill).
  const last = sft.at(-1)!
  const full = JSON.stringify({ record_id: last.recordId, run_id: runId, round: last.round, format: "sft" })
  appendFileSync(out, full.slice(0, full.length >> 1))

  const b = spawnCore(args)
  const bErr = tee(b.stderr)
  await waitFor(
    `all ${sft.length} records (have ${completeLines(out).length}; follower said: ${bErr.text.trim().split("\n").at(-1)})`,
    () => completeLines(out).length >= sft.length
  )
  await Bun.sleep(300)
  b.kill("SIGTERM")
  expect(await b.exited).toBe(0)
  expect(bErr.text).toContain("cut a torn last line")
  // What the restart found in the file plus what it wrote is everything, once.
  const held = Number(/holds (\d+) records/.exec(bErr.text)?.[1])
  const wrote = Number(/follow: stopped on SIGTERM: (\d+) records written \(\d+ skipped as duplicates\)/.exec(bErr.text)?.[1])
  expect(held + wrote).toBe(sft.length)
  expect(aErr.text).toContain(`follow: consumer ${consumer} on core.run.${runId}.dataset.*, format sft`)

  const text = readFileSync(out, "utf8")
  expect(text.endsWith("\n")).toBe(true)
  const got = lines(text)
  expect(got.length).toBe(sft.length)
  const ids = got.map((l) => l.record_id as string)
  expect(new Set(ids).size).toBe(ids.length)
  expect(new Set(ids)).toEqual(new Set(sft.map((r) => r.recordId)))
  expect(got.every((l) => l.format === "sft" && l.run_id === runId && Array.isArray(l.messages))).toBe(true)
  for (const h of hashes) expect(existsSync(join(dir, "images", `${h}.png`))).toBe(true)

  // A fresh consumer on the same file is delivered everything again and writes nothing.
  const c = spawnCore([
    "dataset",
    "follow",
    "--consumer",
    `${consumer}-fresh`,
    "--run",
    runId,
    "--format",
    "sft",
    "--out",
    out,
    "--store",
    "nats"
  ])
  const cErr = tee(c.stderr)
  await waitFor("the fresh follower to skip everything", () =>
    cErr.text.includes(`follow: 0 records written (${sft.length} skipped as duplicates)`)
  )
  c.kill("SIGINT")
  expect(await c.exited).toBe(0)
  expect(readFileSync(out, "utf8")).toBe(text)

  // The same consumer name for another format is refused: its acks would skip records.
  const other = await core([
    "dataset",
    "follow",
    "--consumer",
    consumer,
    "--run",
    runId,
    "--format",
    "dpo",
    "--out",
    join(dir, "dpo.jsonl"),
    "--store",
    "nats"
  ])
  expectOneLineError(other, expect)
  expect(other.stderr).toContain("pick another --consumer name")
}, 60_000)
