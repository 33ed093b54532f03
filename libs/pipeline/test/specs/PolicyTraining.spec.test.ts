/**
 * The policy-training decider: with the embedded policy, each sealed round trains the
 * retrieval policy on every sft record of the run so far, and PolicyTrained names what it
 * was trained on (the seals' digest) and the model it made — the same records, the same
 * model. Other policies train nothing.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { RoundExtrapolated } from "@core/events"
import type { CoreEvent } from "@core/events"
import { datasets } from "../../deciders/Datasets.ts"
import { policyTraining, TRAINER, trainingDigest } from "../../deciders/PolicyTraining.ts"
import { datasetSealed, roundExtrapolated, roundStarted, runStarted, trajectoryVerified } from "./Events.ts"
import type { RunOptions } from "./Events.ts"
import { click, complete, openBoard, openBoardDemo, openBoardGraph, tasks, trajectory } from "./Forum.ts"
import { dataOf, deciderSpecs } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("policy-training", specKit)
afterAll(dispose)

const run = (o: RunOptions = {}) => runStarted({ tasks: [openBoard.taskId], demos: "all", policy: "embedded", ...o })

/** A round's dataset as the datasets decider emits it: its records, then its seal. */
const dataset = async (given: ReadonlyArray<CoreEvent>, round: number) =>
  (await spec(datasets).given(given).when(roundExtrapolated(round)).run()).events

const passed = [
  roundStarted({ round: 1, taskIds: [openBoard.taskId] }),
  trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [
    [click("link", "Cycling"), "/forum/b/cycling"],
    [complete, "/forum/b/cycling"]
  ]),
  trajectoryVerified({ trajectoryId: "r1-s0-forum-open-board-1", taskId: openBoard.taskId, verdict: "pass" })
]

describe("policy training: each sealed round trains the embedded policy", () => {
  test("given round 0's dataset (the demo), when it is sealed, then a policy trained on its sft records", async () => {
    const given = [...tasks, openBoardDemo, run(), ...openBoardGraph]
    const round0 = await dataset(given, 0)
    const sealed = round0.at(-1)!
    return spec(policyTraining)
      .given([...given, ...round0.slice(0, -1)])
      .when(sealed)
      .then((events, { state }) => {
        const [trained] = dataOf(events, "PolicyTrained")
        expect(trained).toMatchObject({
          round: 0,
          trainer: TRAINER,
          datasetDigest: trainingDigest(state, 0),
          metrics: { examples: 2, distinct_examples: 2 }
        })
        expect(trained!.checkpoint).toMatch(/^sha256:[0-9a-f]{64}$/)
      })
  })

  test("round 1 trains on rounds 0 and 1 together: the digest of both seals, and their examples", async () => {
    // The pass's closing step is the demo's own record, emitted in round 0: round 1 adds one example, and one the same as the demo's first step.
    const given = [...tasks, openBoardDemo, run(), ...openBoardGraph]
    const round0 = await dataset(given, 0)
    const upTo1 = [...given, ...round0, ...passed, roundExtrapolated(1)]
    const round1 = await dataset(
      upTo1.filter((e) => e.type !== RoundExtrapolated.type),
      1
    )
    const zero = await spec(policyTraining)
      .given([...given, ...round0.slice(0, -1)])
      .when(round0.at(-1)!)
      .run()
    return spec(policyTraining)
      .given([...upTo1, ...round1.slice(0, -1)])
      .when(round1.at(-1)!)
      .then((events, { state }) => {
        const [trained] = dataOf(events, "PolicyTrained")
        expect(trained).toMatchObject({ round: 1, datasetDigest: trainingDigest(state, 1), metrics: { examples: 3, distinct_examples: 2 } })
        expect(trained!.datasetDigest).not.toBe(dataOf(zero.events, "PolicyTrained")[0]!.datasetDigest)
      })
  })

  test("the same records train the same model: the checkpoint is a function of the log", async () => {
    const given = [...tasks, openBoardDemo, run(), ...openBoardGraph]
    const round0 = await dataset(given, 0)
    const once = await spec(policyTraining)
      .given([...given, ...round0.slice(0, -1)])
      .when(round0.at(-1)!)
      .run()
    const twice = await spec(policyTraining)
      .given([...given, ...round0.slice(0, -1)])
      .when(round0.at(-1)!)
      .run()
    expect(twice.decisions).toEqual(once.decisions)
  })

  const nothing: ReadonlyArray<{ name: string; given: ReadonlyArray<CoreEvent> }> = [
    { name: "a run whose policy explores (no training)", given: [run({ policy: "exploration" })] },
    { name: "a run whose policy is a model", given: [run({ policy: "model", model: "spec-model" })] },
    { name: "a seal outside a run", given: [] }
  ]
  for (const c of nothing) {
    test(`${c.name}: a sealed round trains nothing`, () =>
      spec(policyTraining)
        .given([...tasks, ...c.given])
        .when(datasetSealed(0))
        .thenNothing())
  }
})
