/**
 * A learned run that takes a follow trainer's versions (`run.trainer`): at each seal it asks
 * PublishedPolicies for the trainer's latest version, and its PolicyTrained is that version's
 * data under the run's round, with `published` naming which version it took. Replay is told
 * the same by the recorded layer, from that very event; a log without it diverges. Nothing
 * published yet: version 0, and the next round explores; a version: the next round acts with
 * the model its weights blob holds.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { PublishedPolicies, PublishedPolicyRefused } from "@core/engine"
import type { PublishedAnswer } from "@core/engine"
import type { CoreEvent } from "@core/events"
import { LEARNED_POLICY, TRAINER_VERSION } from "@core/learner"
import { dataOf, deciderSpecs } from "@core/engine/testing"
import { datasets } from "../../deciders/Datasets.ts"
import { policyTraining, trainingDigest } from "../../deciders/PolicyTraining.ts"
import { rollouts } from "../../deciders/Rollouts.ts"
import { roundExtrapolated, roundStarted, runStarted } from "./Events.ts"
import type { RunOptions } from "./Events.ts"
import { complete, forumSite, openBoard, openBoardDemo, openBoardGraph, openBoardRollout1, tasks } from "./Forum.ts"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("published-policy", specKit)
afterAll(dispose)

const STREAM = "trainer.follow.nightly"
const EVENT_ID = "e".repeat(64)
const run = (o: RunOptions = {}) =>
  runStarted({ tasks: [openBoard.taskId], demos: "all", rounds: 2, samples: 1, explorePerTask: 0, policy: "learned", ...o })
const given = (o: RunOptions = {}) => [...tasks, openBoardDemo, run(o), ...openBoardGraph]
const withTrainer = () => given({ trainer: "nightly" })

/** Round 0's dataset, its seal last. */
const round0 = async () => (await spec(datasets).given(given()).when(roundExtrapolated(0)).run()).events

/** A trainer that has published `latest` (null: nothing yet). */
const publishing = (latest: PublishedAnswer["latest"]) =>
  Layer.succeed(PublishedPolicies, { latest: () => Effect.succeed({ stream: STREAM, latest }) })

/** A version as the trainer published it: the model a run trained in itself on round 0, its weights blob in the store. */
const aVersion = async (records: ReadonlyArray<CoreEvent>) => {
  const own = await spec(policyTraining)
    .given([...given(), ...records.slice(0, -1)])
    .when(records.at(-1)!)
    .run()
  const data = dataOf(own.events, "PolicyTrained")[0]!
  return { version: 2, eventId: EVENT_ID, data: { ...data, round: 2 } }
}

const taken = (records: ReadonlyArray<CoreEvent>) =>
  spec(policyTraining)
    .given([...withTrainer(), ...records.slice(0, -1)])
    .when(records.at(-1)!)

describe("a learned run taking a follow trainer's versions", () => {
  test("given version 2 published, when round 0 seals, then its PolicyTrained is version 2 under round 0, naming it; replayed, the same", async () => {
    const records = await round0()
    const version = await aVersion(records)
    const live = await taken(records).publishing(publishing(version)).run()
    const [data] = dataOf(live.events, "PolicyTrained")
    const { round: _, ...own } = version.data
    expect(data).toEqual({ ...own, round: 0, published: { trainer: "nightly", stream: STREAM, version: 2, eventId: EVENT_ID } })
    expect(live.state.learning?.records.length).toBeGreaterThan(0)
    // Replay: the recorded layer answers from the event itself, so the same decision comes out.
    await taken(records).recorded(live.events).then(live.decisions)
    // A log without it cannot say what the trainer had published: a divergence, not a guess.
    await taken(records).thenFails("PublishedPolicyNotRecorded")
  })

  test("given a version the live layer refuses, when a round seals, then the decider fails with its one line, deciding nothing", async () => {
    const records = await round0()
    const refused = Layer.succeed(PublishedPolicies, {
      latest: ({ trainer }) => Effect.fail(new PublishedPolicyRefused({ trainer, reason: "version 3's weights are refused" }))
    })
    await taken(records)
      .publishing(refused)
      .thenFails((e) => expect((e as Error).message).toBe("trainer nightly: version 3's weights are refused"))
  })

  test("given nothing published, when round 0 seals, then version 0 without weights, and round 1's rollout explores", async () => {
    const records = await round0()
    const live = await taken(records).publishing(publishing(null)).run()
    const [data] = dataOf(live.events, "PolicyTrained")
    expect(data).toEqual({
      round: 0,
      trainer: TRAINER_VERSION,
      datasetDigest: trainingDigest(live.state, 0),
      checkpoint: "none",
      metrics: {},
      published: { trainer: "nightly", stream: STREAM, version: 0 }
    })
    const played = await rollout([...withTrainer(), ...records, live.events[0]!])
    expect(played.policy).toBe(LEARNED_POLICY)
    expect(played.steps.length).toBeGreaterThan(1)
  })

  test("given a version taken, round 1's rollout acts with the model of its weights blob, and replays the same", async () => {
    const records = await round0()
    const live = await taken(records)
      .publishing(publishing(await aVersion(records)))
      .run()
    const before = [...withTrainer(), ...records, live.events[0]!]
    const played = await rollout(before)
    // Round 0's model learned the demo's closing step (LearnedPolicy.spec), and the taken version is that model.
    expect(played.steps.map((st) => st.action)).toEqual([complete])
  })
})

const queued = openBoardRollout1

/** Round 1's one rollout after `before`, played live on the forum site and then replayed from its recording: the same. */
const rollout = async (before: ReadonlyArray<CoreEvent>) => {
  const played = [...before, roundStarted({ round: 1, taskIds: [openBoard.taskId] })]
  const live = await spec(rollouts).given(played).when(queued).observing(forumSite()).run()
  await spec(rollouts)
    .given(played)
    .when(queued)
    .recorded([live.events[0]!])
    .then([...live.decisions])
  return dataOf(live.events, "TrajectoryRecorded")[0]!
}
