/**
 * `bun core run --policy learned` end to end, small: two rounds on one bundled task in real
 * Chromium, one rollout per round and no explorers, on the embedded store. Each sealed
 * round (the last one's too) trains the learner in the run; its PolicyTrained names a weights blob the store
 * holds and the learner reads back; every rollout records the learned policy; and
 * `bun core replay` trains the same weights again: 0 divergences. `bun core train --run`,
 * outside the run, trains the same weights for each round.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { sha256 } from "@core/events"
import { LEARNED_POLICY, learnedModelFromJson, TRAINER_VERSION } from "@core/learner"
import { core } from "./support/cli.ts"

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

let runId = ""
let stderr = ""

beforeAll(async () => {
  const r = await core([
    "run",
    "--tasks",
    "shop-open-category-1",
    "--rounds",
    "2",
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
    "cli-run-learned-1",
    "--json",
    ...flags
  ])
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
