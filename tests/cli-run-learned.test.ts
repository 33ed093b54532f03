/**
 * `bun core run --policy learned` end to end, small: two rounds on one bundled task in real
 * Chromium, one rollout per round and no explorers, on the embedded store. Each sealed
 * round (the last one's too) trains the learner in the run; its PolicyTrained names a weights blob the store
 * holds and the learner reads back; every rollout records the learned policy; and
 * `bun core replay` trains the same weights again: 0 divergences. `bun core train --run`,
 * outside the run, trains the same weights for each round. A run with `--trainer NAME`
 * takes the latest version published on `trainer.follow.NAME` instead of training: its
 * PolicyTrained events name that version, its rollout acts with it, and it replays with 0
 * divergences; a version it cannot vouch for stops it before it starts, in one line.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { sha256 } from "@core/events"
import { EmbeddedStore } from "@core/eventstore"
import { appendTrained, putWeights, readTrained, trainerStream } from "@core/trainer"
import type { TrainedData } from "@core/trainer"
import { LEARNED_POLICY, learnedModelFromJson, TRAINER_VERSION } from "@core/learner"
import { core, expectOneLineError } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-run-learned-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const flags = ["--store", "embedded", "--data-dir", tmp]

const jsonl = (text: string): Array<any> =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))

const tail = async (filter: string, type: string) => {
  const r = await core(["events", "tail", "--no-follow", "--filter", filter, "--type", type, ...flags])
  expect(r.code).toBe(0)
  return jsonl(r.stdout)
}

const blob = (hash: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* (yield* BlobStore).get(hash)
    }).pipe(Effect.provide(DirectoryBlobStore.layer({ dir: join(tmp, "blobs") })))
  )

/** One bundled task, one rollout per round and no explorers, expansion or extrapolation: a learned run in seconds. */
const learnedRun = (rounds: number, seed: string) => [
  "run",
  "--tasks",
  "shop-open-category-1",
  "--rounds",
  String(rounds),
  "--samples",
  "1",
  "--explore-per-task",
  "0",
  "--expand-per-task",
  "0",
  "--extrapolate-per-task",
  "0",
  "--policy",
  "learned",
  "--seed",
  seed,
  "--json",
  ...flags
]

let runId = ""
let stderr = ""

beforeAll(async () => {
  const r = await core(learnedRun(2, "cli-run-learned-1"))
  stderr = r.stderr
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr.slice(-3000)}`)
  runId = JSON.parse(r.stdout).run_id
}, 110_000)

test("a learned run trains after each seal, names weights the store holds, acts with them, and replays with 0 divergences", async () => {
  expect(stderr).toMatch(/policy learned \(the learner, trained on each round's data\)/)
  const trained = await tail(`run.${runId}.round.*`, "PolicyTrained")
  // The last round's seal trains too: the policy the run leaves behind, for evaluation.
  expect(trained.map((e) => e.data.round)).toEqual([0, 1, 2])
  const records = (await tail(`run.${runId}.dataset.*`, "DatasetRecordEmitted")).map((e) => e.data)
  for (const t of trained) {
    const through = records.filter((r) => r.round <= t.data.round)
    expect(t.data).toMatchObject({
      trainer: TRAINER_VERSION,
      checkpoint: `sha256:${t.data.weights}`,
      records: { count: through.length, rounds: Array.from({ length: t.data.round + 1 }, (_, r) => r) },
      metrics: { records: through.length }
    })
    expect(t.data.seed).toMatch(/^[0-9a-f]{64}$/)
    // The weights blob is in the store, and is the learner's model.
    const bytes = await blob(t.data.weights)
    const json = new TextDecoder().decode(bytes)
    expect(sha256(json)).toBe(t.data.weights)
    expect(learnedModelFromJson(json)).toMatchObject({ version: TRAINER_VERSION, seed: t.data.seed })
  }
  // Round 0's demos and round 1's data train different models.
  expect(trained[1].data.weights).not.toBe(trained[0].data.weights)

  const rollouts = await tail(`run.${runId}.traj.*`, "TrajectoryRecorded")
  expect(rollouts.map((t) => t.data.trajectoryId).sort()).toEqual(["r1-s0-shop-open-category-1", "r2-s0-shop-open-category-1"])
  for (const t of rollouts) expect(t.data.policy).toBe(LEARNED_POLICY)
  const started = await tail(`run.${runId}.round.*`, "RoundStarted")
  expect(started.map((e) => e.data.policy)).toEqual([LEARNED_POLICY, LEARNED_POLICY, LEARNED_POLICY])

  const replay = await core(["replay", runId, "--json", ...flags])
  expect(replay.code).toBe(0)
  const report = JSON.parse(replay.stdout)
  expect(report.divergences).toEqual([])
  // Both trainings and both rollouts among what it decided again.
  expect(report.decision_events).toBeGreaterThan(4)
}, 60_000)

test("core train --run, outside the run, trains each round the weights the run's own rounds named", async () => {
  const trained = await tail(`run.${runId}.round.*`, "PolicyTrained")
  for (const round of [1, 2]) {
    const r = await core(["train", "--run", runId, "--round", String(round), "--json", ...flags])
    expect(r.code).toBe(0)
    const own = trained.find((e) => e.data.round === round)!.data
    expect(JSON.parse(r.stdout)).toMatchObject({ round, seed: own.seed, weights: own.weights, records: own.records.count })
  }
  // On its own stream: the run's log holds its own PolicyTrained events only.
  expect((await tail(`trainer.run.${runId}`, "PolicyTrained")).map((e) => e.data.round)).toEqual([1, 2])
  expect(await tail(`run.${runId}.round.*`, "PolicyTrained")).toEqual(trained)
}, 30_000)

/** Publishes a version on `trainer.follow.<trainer>` in the run's store, as `train --follow` would: its weights put first. */
const publish = (trainer: string, json: string, data: (weights: string) => TrainedData) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const { weights } = yield* putWeights(json)
      const { revision } = yield* readTrained(trainerStream(trainer))
      yield* appendTrained(trainerStream(trainer), revision, data(weights))
    }).pipe(
      Effect.provide(EmbeddedStore.layer({ path: join(tmp, "events.db") })),
      Effect.provide(DirectoryBlobStore.layer({ dir: join(tmp, "blobs") }))
    )
  )

test("run --trainer takes the trainer's latest version at each seal, acts with it, and replays; a version it cannot vouch for stops it first", async () => {
  // The version a follow trainer would have published: the model the first run trained through round 1.
  const own = (await tail(`run.${runId}.round.*`, "PolicyTrained")).find((e) => e.data.round === 1)!.data
  const json = new TextDecoder().decode(await blob(own.weights))
  await publish("cli-nightly", json, () => ({ ...own, round: 1, records: { count: own.records.count, first: 1, last: own.records.count } }))
  const r = await core([...learnedRun(1, "cli-run-learned-2"), "--trainer", "cli-nightly"])
  if (r.code !== 0) throw new Error(`run failed: ${r.stderr.slice(-3000)}`)
  expect(r.stderr).toMatch(/trainer cli-nightly: version 1 on trainer\.follow\.cli-nightly/)
  expect(r.stderr).toMatch(/policy: trainer cli-nightly's version 1 \(\d+ records\)/)
  const taken = JSON.parse(r.stdout).run_id
  const trained = await tail(`run.${taken}.round.*`, "PolicyTrained")
  const [version] = await tail("trainer.follow.cli-nightly", "PolicyTrained")
  expect(trained.map((e) => e.data.round)).toEqual([0, 1])
  for (const t of trained) {
    expect(t.data).toMatchObject({ weights: own.weights, seed: own.seed, trainer: TRAINER_VERSION })
    expect(t.data.published).toEqual({ trainer: "cli-nightly", stream: "trainer.follow.cli-nightly", version: 1, eventId: version.id })
  }
  const [rollout] = await tail(`run.${taken}.traj.*`, "TrajectoryRecorded")
  expect(rollout.data.policy).toBe(LEARNED_POLICY)
  const replay = await core(["replay", taken, "--json", ...flags])
  expect(replay.code).toBe(0)
  expect(JSON.parse(replay.stdout).divergences).toEqual([])

  // A version whose weights are not the learner's model: refused before the run starts.
  await publish("cli-junk", JSON.stringify({ version: TRAINER_VERSION }), (weights) => ({ ...own, round: 1, weights }))
  const junk = await core([
    "run",
    "--tasks",
    "shop-open-category-1",
    "--rounds",
    "1",
    "--policy",
    "learned",
    "--trainer",
    "cli-junk",
    ...flags
  ])
  expectOneLineError(junk, expect)
  expect(junk.stderr).toMatch(/trainer cli-junk: version 1.s weights are refused: learner-v2 model without/)
  const usage = await core(["run", "--tasks", "shop-open-category-1", "--trainer", "cli-nightly", ...flags])
  expectOneLineError(usage, expect)
  expect(usage.code).toBe(2)
  expect(usage.stderr).toMatch(/--trainer .* goes with --policy learned/)
}, 60_000)
