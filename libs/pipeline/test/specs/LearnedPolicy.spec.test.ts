/**
 * A learned run (`run.policy` "learned"): each sealed round trains the learner on every
 * dataset record of the run so far, with the learner's seed of the run's seed and the round;
 * PolicyTrained names the weights blob, that seed and the records. The same records give
 * the same weights, a later round's records another model; the next round's rollouts act
 * with it — replayed from their recording, the same (Rounds.spec: the next round waits for it).
 */
import { afterAll, describe, expect, test } from "bun:test"
import { RoundExtrapolated, sha256 } from "@core/events"
import type { CoreEvent } from "@core/events"
import { LEARNED_POLICY, learnedModelFromJson, learnedModelJson, learnerSeed, TRAINER_VERSION } from "@core/learner"
import { dataOf, deciderSpecs } from "@core/engine/testing"
import { datasets } from "../../deciders/Datasets.ts"
import { learnedModelOf, policyTraining, trainingDigest } from "../../deciders/PolicyTraining.ts"
import { rollouts } from "../../deciders/Rollouts.ts"
import { datasetSealed, policyTrained, roundExtrapolated, roundStarted, runStarted, SEED, trajectoryVerified } from "./Events.ts"
import { evolveRun, initialRunState } from "../../RunState.ts"
import type { RunOptions } from "./Events.ts"
import { click, complete, forumSite, openBoard, openBoardDemo, openBoardGraph, openBoardRollout1, tasks, trajectory } from "./Forum.ts"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("learned-policy", specKit)
afterAll(dispose)

const run = (o: RunOptions & { readonly seed?: string } = {}) =>
  runStarted({ tasks: [openBoard.taskId], demos: "all", rounds: 2, samples: 1, explorePerTask: 0, policy: "learned", ...o })
const given = (o: RunOptions & { readonly seed?: string } = {}) => [...tasks, openBoardDemo, run(o), ...openBoardGraph]

/** A round's dataset as the datasets decider emits it: its records, then its seal. */
const dataset = async (before: ReadonlyArray<CoreEvent>, round: number) =>
  (await spec(datasets).given(before).when(roundExtrapolated(round)).run()).events

/** What the policy-training decider makes of a round's seal, with the state it decided on. */
const trained = async (before: ReadonlyArray<CoreEvent>, round: ReadonlyArray<CoreEvent>) => {
  const out = await spec(policyTraining)
    .given([...before, ...round.slice(0, -1)])
    .when(round.at(-1)!)
    .run()
  return { ...out, data: dataOf(out.events, "PolicyTrained")[0]! }
}

const passed = [
  roundStarted({ round: 1, taskIds: [openBoard.taskId] }),
  trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [
    [click("link", "Cycling"), "/forum/b/cycling"],
    [complete, "/forum/b/cycling"]
  ]),
  trajectoryVerified({ trajectoryId: "r1-s0-forum-open-board-1", taskId: openBoard.taskId, verdict: "pass" })
]

describe("a learned run: each sealed round trains the learner", () => {
  test("given round 0's dataset (the demo), when sealed, then PolicyTrained names the weights, the seed and the records", async () => {
    const round0 = await dataset(given(), 0)
    const records = dataOf(round0, "DatasetRecordEmitted").length
    expect(records).toBeGreaterThan(0)
    const { data, state } = await trained(given(), round0)
    const model = learnedModelOf(state, 0)!
    const weights = sha256(learnedModelJson(model))
    expect(data).toMatchObject({
      round: 0,
      trainer: TRAINER_VERSION,
      datasetDigest: trainingDigest(state, 0),
      checkpoint: `sha256:${weights}`,
      weights,
      seed: learnerSeed(SEED, 0),
      records: { count: records, rounds: [0] },
      metrics: { examples: model.examples, records }
    })
    expect(data.metrics.examples).toBeGreaterThan(0)
    expect(data.metrics.accuracy).toBeGreaterThanOrEqual(0)
    expect(data.metrics.accuracy).toBeLessThanOrEqual(1)
    // The weights the event names are the model's canonical JSON, read back as the same model.
    expect(learnedModelFromJson(learnedModelJson(model))).toEqual(model)
  })

  test("the same records and seed give the same weights, byte for byte", async () => {
    const round0 = await dataset(given(), 0)
    const once = await trained(given(), round0)
    const twice = await trained(given(), round0)
    expect(twice.decisions).toEqual(once.decisions)
    // Another run's seed trains with another learner seed, and says so.
    const other = await trained(given({ seed: "another-seed" }), round0)
    expect(other.data.seed).toBe(learnerSeed("another-seed", 0))
    expect(other.data.datasetDigest).toBe(once.data.datasetDigest)
  })

  test("round 1 learns from rounds 0 and 1: more records, another model", async () => {
    const round0 = await dataset(given(), 0)
    const zero = await trained(given(), round0)
    const upTo1 = [...given(), ...round0, zero.events[0]!, ...passed, roundExtrapolated(1)]
    const round1 = await dataset(
      upTo1.filter((e) => e.type !== RoundExtrapolated.type),
      1
    )
    const added = dataOf(round1, "DatasetRecordEmitted").length
    expect(added).toBeGreaterThan(0)
    const one = await trained(upTo1, round1)
    expect(one.data).toMatchObject({
      round: 1,
      seed: learnerSeed(SEED, 1),
      records: { count: zero.data.records!.count + added, rounds: [0, 1] }
    })
    expect(one.data.weights).not.toBe(zero.data.weights)
    expect(one.data.datasetDigest).not.toBe(zero.data.datasetDigest)
  })

  test("a rollout of round 1 acts with the model of round 0, recorded as the learned policy and replayed the same; before a model it explores", async () => {
    const round0 = await dataset(given(), 0)
    const zero = await trained(given(), round0)
    const round1 = roundStarted({ round: 1, taskIds: [openBoard.taskId] })
    const queued = openBoardRollout1
    const played = [...given(), ...round0, zero.events[0]!, round1]
    const live = await spec(rollouts).given(played).when(queued).observing(forumSite()).run()
    const [t] = dataOf(live.events, "TrajectoryRecorded")
    expect(t).toMatchObject({ trajectoryId: "r1-s0-forum-open-board-1", policy: LEARNED_POLICY, attempts: 1 })
    // The demo's first screen has no element list: the model learned its one example, the closing step, and takes it.
    expect(zero.data.metrics.examples).toBe(1)
    expect(t!.steps.map((st) => st.action)).toEqual([complete])
    await spec(rollouts)
      .given(played)
      .when(queued)
      .recorded([live.events[0]!])
      .then([...live.decisions])
    // Without the PolicyTrained folded there is no model: the same episode explores, as the learner does without one.
    const unseen = await spec(rollouts)
      .given([...given(), ...round0, round1])
      .when(queued)
      .observing(forumSite())
      .run()
    const [explored] = dataOf(unseen.events, "TrajectoryRecorded")
    expect(explored!.policy).toBe(LEARNED_POLICY)
    expect(explored!.steps.length).toBeGreaterThan(1)
  })

  test("a run of another policy keeps no records, and has no learned model", async () => {
    const round0 = await dataset(given({ policy: "embedded" }), 0)
    const { state, data } = await trained(given({ policy: "embedded" }), round0)
    expect(state.learning).toBeNull()
    expect(learnedModelOf(state, 0)).toBeNull()
    expect(data.weights).toBeUndefined()
    const explored = await spec(policyTraining)
      .given(given({ policy: "exploration" }))
      .when(datasetSealed(0))
      .run()
    expect(explored.events).toEqual([])
  })
})

describe("a trainer outside the run", () => {
  test("given a PolicyTrained with no run id (a train --follow version) folded before the run, the run has trained nothing until its own", () => {
    const foreign = { ...policyTrained(3), runId: null, stream: "trainer.follow.nightly" } as CoreEvent
    const before = [foreign, run()].reduce(evolveRun, initialRunState)
    expect(before.trained).toBeNull()
    const own = [policyTrained(0)].reduce(evolveRun, before)
    expect(own.trained?.round).toBe(0)
    expect([foreign].reduce(evolveRun, own).trained?.round).toBe(0)
  })
})
