/**
 * The round decider: round 0 (the demos) starts and completes once every inference job has
 * completed; a round completes when each episode it queued has a verdict; the next round
 * starts on the previous one's sealed dataset (its trained policy, for the embedded and learned ones),
 * on the grown task pool — until `run.rounds`. Before that, it decides nothing.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { RoundCompleted, RoundStarted, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { decision } from "@core/engine"
import { rounds } from "../../deciders/Rounds.ts"
import {
  datasetSealed,
  graphOf,
  inferJob,
  jobCompleted,
  jobQueued,
  policyTrained,
  RUN,
  roundCompleted,
  roundStarted,
  runStarted,
  taskExtrapolated,
  trajectoryVerified
} from "./Events.ts"
import type { EventOfType, RunOptions, Verdict } from "./Events.ts"
import { complete, openBoard, openBoardDemo, openBoardGraph, openBoardNodes, tasks, trajectory, upvote, upvoteDemo } from "./Forum.ts"
import { deciderSpecs, typesOf } from "@core/engine/testing"
import { LEARNED_POLICY } from "@core/learner"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("rounds", specKit)
afterAll(dispose)

const run = (o: RunOptions = {}) => runStarted({ tasks: [openBoard.taskId, upvote.taskId], rounds: 2, samples: 1, demos: "all", ...o })
const workspace = [...tasks, openBoardDemo, upvoteDemo]
const inferDone = (demo: EventOfType<"DemoIngested">) => {
  const id = demo.data.demoId
  return jobCompleted({ jobId: `infer-${id}` }, { stream: runStream(RUN, "infer", id), cause: inferJob(demo) })
}
const round0 = (cause: CoreEvent, demos: number) => [
  decision(RoundStarted, {
    stream: runStream(RUN, "round", "0"),
    causationId: cause.id,
    ordinal: 0,
    data: { round: 0, taskIds: [], policy: "exploration-v1", samplesPerTask: 0 }
  }),
  decision(RoundCompleted, {
    stream: runStream(RUN, "round", "0"),
    causationId: cause.id,
    ordinal: 0,
    data: { round: 0, counts: { demos }, datasetDigest: null }
  })
]

describe("rounds: round 0, the demos", () => {
  test("a run with no demos to infer starts and completes round 0 at once", () => {
    const started = run({ demos: [] })
    return spec(rounds).given(workspace).when(started).then(round0(started, 0))
  })

  test("a run with demos waits for their inference jobs", () => spec(rounds).given(workspace).when(run()).thenNothing())

  test("when the last inference job completes, round 0 starts and completes with the demos counted", () => {
    const last = inferDone(upvoteDemo)
    return spec(rounds)
      .given([...workspace, run(), inferJob(openBoardDemo), inferJob(upvoteDemo), inferDone(openBoardDemo)])
      .when(last)
      .then(round0(last, 2))
  })

  test("while an inference job is still running, nothing", () =>
    spec(rounds)
      .given([...workspace, run(), inferJob(openBoardDemo), inferJob(upvoteDemo)])
      .when(inferDone(openBoardDemo))
      .thenNothing())

  test("a run of zero rounds plays none, not even round 0", () =>
    spec(rounds)
      .given(workspace)
      .when(run({ rounds: 0, demos: [] }))
      .thenNothing())
})

describe("rounds: the next round starts on the last one's data", () => {
  const after0 = (o: RunOptions = {}) => [
    ...workspace,
    run(o),
    roundStarted({ round: 0, taskIds: [], samplesPerTask: 0 }),
    roundCompleted(0)
  ]
  const next = (round: number, taskIds: ReadonlyArray<string>, cause: CoreEvent, policy = "exploration-v1") => [
    decision(RoundStarted, {
      stream: runStream(RUN, "round", String(round)),
      causationId: cause.id,
      ordinal: 0,
      data: { round, taskIds: [...taskIds], policy, samplesPerTask: 1 }
    })
  ]
  const own = [openBoard.taskId, upvote.taskId]

  test("a sealed dataset starts the next round over the run's tasks", () => {
    const sealed = datasetSealed(0)
    return spec(rounds)
      .given(after0())
      .when(sealed)
      .then(next(1, own, sealed))
  })

  test("with the embedded policy, the next round waits for the policy trained on the data", async () => {
    await spec(rounds)
      .given(after0({ policy: "embedded" }))
      .when(datasetSealed(0))
      .thenNothing()
    const trained = policyTrained(0)
    await spec(rounds)
      .given([...after0({ policy: "embedded" }), datasetSealed(0)])
      .when(trained)
      .then(next(1, own, trained, "retrieval-v1"))
  })

  test("with the learned policy too, the next round waits for the policy trained on the data, and plays it", async () => {
    await spec(rounds)
      .given(after0({ policy: "learned" }))
      .when(datasetSealed(0))
      .thenNothing()
    const trained = policyTrained(0)
    await spec(rounds)
      .given([...after0({ policy: "learned" }), datasetSealed(0)])
      .when(trained)
      .then(next(1, own, trained, LEARNED_POLICY))
  })

  test("an extrapolated task joins the pool once it has a path; one without stays out", () => {
    const parent = trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [[complete, "/forum/"]])
    const kept = taskExtrapolated({
      newTaskId: "forum-open-board-1-xbooks",
      instruction: "Open the Books board.",
      parentTaskId: openBoard.taskId,
      pseudoDemoTrajectoryId: "r1-s0-forum-open-board-1",
      pseudoDemoSteps: 1
    })
    const pathless = taskExtrapolated({
      newTaskId: "forum-open-board-1-xnone",
      instruction: "Open the Gardening board.",
      parentTaskId: openBoard.taskId,
      pseudoDemoTrajectoryId: "r1-s0-forum-open-board-1",
      pseudoDemoSteps: 1
    })
    const graph = graphOf("forum-open-board-1-xbooks", { kind: "trajectory", id: "r1-s0-forum-open-board-1" }, [openBoardNodes[1]!])
    const sealed = datasetSealed(1)
    return spec(rounds)
      .given([...after0(), roundStarted({ round: 1, taskIds: own }), parent, kept, pathless, ...graph, roundCompleted(1)])
      .when(sealed)
      .then(next(2, [...own, "forum-open-board-1-xbooks"], sealed))
  })

  const refusals: ReadonlyArray<{ name: string; given: ReadonlyArray<CoreEvent>; when: CoreEvent }> = [
    {
      name: "the last round's seal (run.rounds reached)",
      given: [...after0(), roundStarted({ round: 2, taskIds: own }), roundCompleted(2)],
      when: datasetSealed(2)
    },
    { name: "a seal of a round not completed yet", given: [...workspace, run()], when: datasetSealed(0) },
    { name: "a trained policy, when the run's policy is not the embedded one", given: after0(), when: policyTrained(0) }
  ]
  for (const r of refusals) test(`${r.name} starts nothing`, () => spec(rounds).given(r.given).when(r.when).thenNothing())
})

describe("rounds: a round completes when every episode has its verdict", () => {
  const ids = ["r1-s0-forum-open-board-1", "r1-s0-forum-upvote-1"]
  const episodes = ids.flatMap((id) => {
    const taskId = id.slice("r1-s0-".length)
    return [
      jobQueued({ jobId: `rollout-${id}`, kind: "rollout", round: 1, taskId, params: { trajectoryId: id, sample: 0, stepBudget: 4 } }),
      trajectory(id, taskId, [[complete, "/forum/"]])
    ]
  })
  const playing = [
    ...workspace,
    run(),
    ...openBoardGraph,
    roundStarted({ round: 0, taskIds: [], samplesPerTask: 0 }),
    roundCompleted(0),
    roundStarted({ round: 1, taskIds: [openBoard.taskId, upvote.taskId] }),
    ...episodes
  ]
  const verdict = (i: number, v: Verdict) =>
    trajectoryVerified({ trajectoryId: ids[i]!, taskId: ids[i]!.slice("r1-s0-".length), verdict: v })

  test("the last verdict completes the round, with its verdicts and the graphs' paths counted", () => {
    const last = verdict(1, "fail")
    return spec(rounds)
      .given([...playing, verdict(0, "pass")])
      .when(last)
      .then([
        decision(RoundCompleted, {
          stream: runStream(RUN, "round", "1"),
          causationId: last.id,
          ordinal: 0,
          data: { round: 1, counts: { trajectories: 2, pass: 1, partial: 0, fail: 1, "infra-error": 0, paths: 1 }, datasetDigest: null }
        })
      ])
  })

  test("an earlier verdict completes nothing", () => spec(rounds).given(playing).when(verdict(0, "pass")).thenNothing())

  test("a verdict after the round completed completes it no second time", () =>
    spec(rounds)
      .given([...playing, verdict(0, "pass"), roundCompleted(1)])
      .when(verdict(1, "fail"))
      .then((events) => expect(typesOf(events)).toEqual([])))
})
