/**
 * `bun core train` against real logs. Offline: the recorded run of the replay fixture (an
 * embedded store copied to a directory) trained from its last sealed round — PolicyTrained
 * on the trainer's stream, the weights in the blob store, the same weights a second time and
 * no second event; bad input is one line and a non-zero exit. Following: the fixture's
 * dataset records appended to NATS under a new run while `train --follow` consumes them,
 * SIGKILLed five times at random moments and restarted — its last version is, byte for byte,
 * the model trained on every record in one go, and no record counted twice. Runs are
 * isolated by a unique run id and consumer name on the shared CORE stream.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect, Layer, Stream } from "effect"
import { BlobStore, DirectoryBlobStore, JetStreamBlobStore } from "@core/blobstore"
import { DatasetRecordEmitted, DatasetSealed, makeEvent, RunStarted, runStream } from "@core/events"
import type { CoreEvent, DataOf } from "@core/events"
import { EmbeddedStore, EventStore, JetStreamStore } from "@core/eventstore"
import { examplesOfRecord, learnedModelFromJson, learnedModelJson, learnerSeed, trainOnRecords } from "@core/learner"
import { cpSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError, REPO, spawnCore } from "./support/cli.ts"
import { cleanedUp, NATS, tee, unique, waitFor } from "./support/follower.ts"

const FIXTURE = join(REPO, "tests", "fixtures", "replay-run-2")
const FIXTURE_RUN = "run-mxcb6ggg-b433bd"
const AT = "2026-12-06T10:00:00.000Z"
const tmp = mkdtempSync(join(tmpdir(), "core-cli-train-"))
const consumers = cleanedUp(tmp)
/** Every follower started: one a failed expectation left running must not hold its consumer after the file. */
const followers: Array<ReturnType<typeof spawnCore>> = []
afterAll(() => {
  for (const f of followers) if (f.exitCode === null && f.signalCode === null) f.kill("SIGKILL")
})

type Stores = Layer.Layer<EventStore | BlobStore, unknown>
const embedded = (dir: string): Stores =>
  Layer.mergeAll(EmbeddedStore.layer({ path: join(dir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dir, "blobs") }))
const nats: Stores = Layer.mergeAll(JetStreamStore.layer({ url: NATS }), JetStreamBlobStore.layer({ url: NATS }))
const using = <A>(layer: Stores, effect: Effect.Effect<A, unknown, EventStore | BlobStore>) =>
  Effect.runPromise(Effect.provide(effect, layer))

/** A copy of the replay fixture's store: the run's log and blobs. */
const fixtureCopy = (name: string) => {
  const dir = join(tmp, name)
  cpSync(FIXTURE, dir, { recursive: true })
  return dir
}

/** The events under `filter`, in log order. */
const readEvents = (layer: Stores, filter: string) =>
  using(
    layer,
    Effect.gen(function* () {
      const read = yield* Stream.runCollect((yield* EventStore).readAll({ filter }))
      return read.map((r) => r.event)
    })
  )

type Trained = DataOf<typeof import("@core/events").PolicyTrained>
const trainedOn = async (layer: Stores, stream: string): Promise<Array<Trained>> =>
  (await readEvents(layer, stream)).flatMap((e) => (e.type === "PolicyTrained" ? [e.data] : []))

const blobText = (layer: Stores, hash: string) =>
  using(
    layer,
    Effect.gen(function* () {
      return new TextDecoder().decode(yield* (yield* BlobStore).get(hash))
    })
  )

const recordsOf = (events: ReadonlyArray<CoreEvent>) => events.flatMap((e) => (e.type === "DatasetRecordEmitted" ? [e.data] : []))

test("train --run: a PolicyTrained on the trainer's stream, its weights in the blob store, the same weights twice; bad input is one line", async () => {
  const dir = fixtureCopy("offline")
  const layer = embedded(dir)
  const flags = ["--store", "embedded", "--data-dir", dir]
  const runLog = async () => (await readEvents(layer, `run.${FIXTURE_RUN}.>`)).length
  const before = await runLog()

  const first = await core(["train", "--run", FIXTURE_RUN, "--json", ...flags])
  expect(first.code).toBe(0)
  const a = JSON.parse(first.stdout) as Record<string, any>
  expect(a).toMatchObject({ run: FIXTURE_RUN, round: 2, stream: `trainer.run.${FIXTURE_RUN}`, appended: true })
  expect(first.stderr).toContain(`train: run ${FIXTURE_RUN} through round 2: ${a.records} records, ${a.examples} examples`)
  expect(first.stderr).toContain(`held-apart examples`)
  // Every record of the rounds, in log order, with the seed of the run's and the round's: as a learned run trains after round 2.
  const records = recordsOf(await readEvents(layer, `run.${FIXTURE_RUN}.dataset.*`))
  const runSeed = (await readEvents(layer, `run.${FIXTURE_RUN}.run.*`)).find((e) => e.type === "RunStarted")!.data as { seed: string }
  expect(a.seed).toBe(learnerSeed(runSeed.seed, 2))
  expect(a.records).toBe(records.length)
  expect(a.examples).toBe(records.flatMap(examplesOfRecord).length)
  expect(a.heldApart.examples).toBeGreaterThan(0)
  expect(a.heldApart.examples).toBeLessThanOrEqual(Math.ceil(a.examples / 10))
  expect(a.heldApart.accuracy).toBeGreaterThanOrEqual(0)
  const json = await blobText(layer, a.weights)
  expect(learnedModelFromJson(json).seed).toBe(a.seed)
  expect(json).toBe(learnedModelJson(trainOnRecords(records, a.seed)))

  const [trained, ...more] = await trainedOn(layer, `trainer.run.${FIXTURE_RUN}`)
  expect(more).toEqual([])
  expect(trained).toMatchObject({ round: 2, weights: a.weights, seed: a.seed, checkpoint: `sha256:${a.weights}` })
  expect(trained!.records).toEqual({ count: records.length, rounds: [0, 1, 2] })
  expect(trained!.metrics).toMatchObject({ records: records.length, examples: a.examples })

  const second = await core(["train", "--run", FIXTURE_RUN, "--json", ...flags])
  expect(second.code).toBe(0)
  expect(JSON.parse(second.stdout)).toEqual({ ...a, appended: false })
  expect(second.stderr).toContain("already there: not appended again")
  expect(await trainedOn(layer, `trainer.run.${FIXTURE_RUN}`)).toHaveLength(1)
  const earlier = JSON.parse((await core(["train", "--run", FIXTURE_RUN, "--round", "1", "--json", ...flags])).stdout)
  expect(earlier).toMatchObject({ round: 1, appended: true })
  expect(earlier.records).toBeLessThan(a.records)
  // The run's own log is never written by a trainer outside it.
  expect(await runLog()).toBe(before)

  // A run with a dataset round that is not sealed.
  const unsealed = `unsealed-${unique()}`
  const started = makeEvent(RunStarted, {
    stream: runStream(unsealed, "run", unsealed),
    runId: unsealed,
    causationId: null,
    ordinal: 0,
    recordedAt: AT,
    data: { config: {}, configSources: {}, seed: "7", code: { commit: null, dirty: false }, tools: {}, command: "core run" }
  }) as CoreEvent
  const record = records[0]!
  const emitted = makeEvent(DatasetRecordEmitted, {
    stream: runStream(unsealed, "dataset", "0"),
    runId: unsealed,
    causationId: record.recordId,
    ordinal: 0,
    recordedAt: AT,
    data: { ...record, round: 0 }
  }) as CoreEvent
  await using(
    layer,
    Effect.gen(function* () {
      const store = yield* EventStore
      yield* store.append(started.stream, [started], { expectedRevision: 0 })
      yield* store.append(emitted.stream, [emitted], { expectedRevision: 0 })
    })
  )
  const bad: ReadonlyArray<readonly [ReadonlyArray<string>, string, number]> = [
    [["--run", `nope-${unique()}`], "not found", 1],
    [["--run", unsealed], `cannot train on run ${unsealed}: no dataset round is sealed yet (rounds: 0)`, 1],
    [["--run", FIXTURE_RUN, "--round", "7"], "there is no dataset round 7 (sealed rounds: 0, 1, 2)", 1],
    [["--run", FIXTURE_RUN, "--round", "-1"], "--round must be a round number ≥ 0", 2],
    [["--run", "a.b"], "--run", 2],
    [["--run", FIXTURE_RUN, "--consumer", "x"], "--consumer does not go with --run", 2],
    [[], "--run or --follow is required", 2],
    [["--follow"], "--follow needs --consumer", 2],
    [["--follow", "--consumer", "c"], "train --follow needs the NATS store", 1]
  ]
  for (const [args, says, exit] of bad) {
    const r = await core(["train", ...args, ...flags])
    expectOneLineError(r, expect)
    expect(r.code).toBe(exit)
    expect(r.stderr).toContain(says)
  }
}, 90_000)

test("train --follow: SIGKILLed five times while records arrive, restarted — its last version is the model of every record in one go", async () => {
  const source = embedded(fixtureCopy("follow-source"))
  const fixture = await readEvents(source, `run.${FIXTURE_RUN}.dataset.*`)
  const runId = `trf-${unique()}`
  const consumer = `t-${unique()}`
  consumers.push(consumer)
  const stream = `trainer.follow.${consumer}`
  const state = join(tmp, "follow-state")

  // The fixture's rounds under the new run: five records a commit, each round ending with its seal.
  const commits: Array<Array<CoreEvent>> = []
  for (const round of [0, 1, 2]) {
    const s = runStream(runId, "dataset", String(round))
    const recs = fixture.flatMap((e) => (e.type === "DatasetRecordEmitted" && e.data.round === round ? [e.data] : []))
    for (let k = 0; k < recs.length; k += 5)
      commits.push(
        recs.slice(k, k + 5).map(
          (data, i) =>
            makeEvent(DatasetRecordEmitted, {
              stream: s,
              runId,
              causationId: data.recordId,
              ordinal: i,
              recordedAt: AT,
              data
            }) as CoreEvent
        )
      )
    const seal = fixture.find((e) => e.type === "DatasetSealed" && e.data.round === round)!
    commits.push([
      makeEvent(DatasetSealed, {
        stream: s,
        runId,
        causationId: `seal-${round}`,
        ordinal: 0,
        recordedAt: AT,
        data: seal.data as DataOf<typeof DatasetSealed>
      }) as CoreEvent
    ])
  }
  const all = commits.flat().flatMap((e) => (e.type === "DatasetRecordEmitted" ? [e.data] : []))
  // Each record once, in log order (a run never emits one id twice).
  const records = all.filter((r, i) => all.findIndex((x) => x.recordId === r.recordId) === i)
  expect(records.length).toBeGreaterThan(100)

  const revisions = new Map<string, number>()
  let appended = 0
  const appending = using(
    nats,
    Effect.gen(function* () {
      const store = yield* EventStore
      for (const c of commits) {
        const s = c[0]!.stream
        revisions.set(s, (yield* store.append(s, c, { expectedRevision: revisions.get(s) ?? 0 })).revision)
        appended++
        yield* Effect.sleep("150 millis")
      }
    })
  )

  const args = ["train", "--follow", "--consumer", consumer, "--run", runId, "--state", state, "--ack-wait", "1", "--store", "nats"]
  const logs: Array<{ text: string }> = []
  const start = () => {
    const p = spawnCore(args)
    followers.push(p)
    logs.push(tee(p.stderr))
    return p
  }
  let trainer = start()
  const setUp = () => logs.at(-1)!.text.includes(`train: consumer ${consumer}`)
  for (let kill = 0; kill < 5; kill++) {
    // At a random moment of its work: holding records, training, publishing or waiting.
    await waitFor(
      () => "a trainer to be set up",
      async () => setUp()
    )
    await Bun.sleep(Math.floor(Math.random() * 1000))
    trainer.kill("SIGKILL")
    await trainer.exited
    expect(trainer.signalCode).toBe("SIGKILL")
    trainer = start()
  }
  await appending
  expect(appended).toBe(commits.length)

  const last = async () => (await trainedOn(nats, stream)).at(-1)
  await waitFor(
    () => `a version of all ${records.length} records (trainer said: ${logs.at(-1)!.text.trim().split("\n").at(-1)})`,
    async () => (await last())?.records?.count === records.length
  )
  // The version may be its predecessor's: stop this one once it is up, not while it starts.
  await waitFor(
    () => "the last trainer to be set up",
    async () => setUp()
  )
  if (process.env.SHOW) console.log(logs.map((l) => l.text).join("\n----\n"))
  trainer.kill("SIGTERM")
  expect(await trainer.exited).toBe(0)
  expect(logs.at(-1)!.text).toContain("train: stopped on SIGTERM")
  // Some restart found records its predecessor had held.
  expect(logs.slice(1).some((l) => /holds [1-9]\d* records/.test(l.text))).toBe(true)

  const versions = await trainedOn(nats, stream)
  const final = versions.at(-1)!
  expect(final.seed).toBe(consumer)
  expect(await blobText(nats, final.weights!)).toBe(learnedModelJson(trainOnRecords(records, consumer)))
  // No record counted twice: the examples are those of each record once.
  expect(final.metrics).toEqual({ records: records.length, examples: records.flatMap(examplesOfRecord).length })
  // No version published twice for the same records: each learned from more than the one before.
  // (Not a later last sequence: a commit a killed trainer left unacknowledged comes again after newer ones.)
  expect(final.records).toMatchObject({ count: records.length, rounds: [0, 1, 2] })
  const counts = versions.map((v) => v.records!.count)
  expect(counts.every((n, i) => i === 0 || n > counts[i - 1]!)).toBe(true)
  expect(versions.map((v) => v.round)).toEqual(versions.map((_, i) => i + 1))
  // The state folder holds each record once; in stream order, they are the run's records in log order.
  const held = readFileSync(join(state, "records.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { recordId: string; seq: number; index: number })
  expect(held.sort((x, y) => x.seq - y.seq || x.index - y.index).map((h) => h.recordId)).toEqual(records.map((r) => r.recordId))
}, 90_000)
