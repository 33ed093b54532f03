/**
 * The dataset decider: once a round is extrapolated, its data is emitted and sealed —
 * round 0 the run's demos as sft records; a later round its passing trajectories as sft,
 * pass/non-pass pairs of a task as dpo, every verified episode as a rollout record, and
 * each task extrapolated in the round under its own instruction. Infra-errors and empty
 * episodes give nothing, and a record the run already emitted is not emitted again.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { sealOf } from "@core/domain"
import { runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { datasets } from "../../deciders/Datasets.ts"
import { RUN, roundExtrapolated, roundStarted, runStarted, taskExtrapolated, trajectoryVerified } from "./Events.ts"
import type { Verdict } from "./Events.ts"
import { click, complete, openBoard, openBoardDemo, openBoardGraph, tasks, trajectory, upvote, upvoteDemo } from "./Forum.ts"
import { dataOf, deciderSpecs } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("datasets", specKit)
afterAll(dispose)

const run = runStarted({ tasks: [openBoard.taskId, upvote.taskId], demos: "all" })
// The upvote task has a demo but no graph yet: round 0 holds the demos the graphs start from.
const workspace = [...tasks, openBoardDemo, upvoteDemo, run, ...openBoardGraph]
const userTurn = (body: unknown): string => (body as { messages: ReadonlyArray<{ content: string }> }).messages[1]!.content

describe("datasets: round 0 is the demos", () => {
  test("given the open-board demo's graph, when round 0 is extrapolated, then an sft record per demo step, then the seal", () =>
    spec(datasets)
      .given(workspace)
      .when(roundExtrapolated(0))
      .then((events) => {
        const records = dataOf(events, "DatasetRecordEmitted")
        expect(records.map((r) => [r.format, r.taskId, r.trajectoryIds])).toEqual([
          ["sft", openBoard.taskId, ["demo:forum-open-board-1-script"]],
          ["sft", openBoard.taskId, ["demo:forum-open-board-1-script"]]
        ])
        // Step 1 is taken on the page step 0 led to: its element list is read from the blob store.
        expect(userTurn(records[1]!.body)).toContain('link "Tubeless tyres: worth it?"')
        expect(dataOf(events, "DatasetSealed")).toEqual([{ round: 0, ...sealOf(records) }])
        expect(events.every((e) => e.stream === runStream(RUN, "dataset", "0"))).toBe(true)
      }))
})

const ids = ["r1-s0-forum-open-board-1", "r1-s1-forum-open-board-1", "r1-s2-forum-open-board-1"] as const
const episode = (i: 0 | 1 | 2, board: string) =>
  trajectory(ids[i], openBoard.taskId, [
    [click("link", board), `/forum/b/${board.toLowerCase()}`],
    [complete, `/forum/b/${board.toLowerCase()}`]
  ])
const verdict = (i: 0 | 1 | 2, v: Verdict) => trajectoryVerified({ trajectoryId: ids[i], taskId: openBoard.taskId, verdict: v })
const round1 = [...workspace, roundStarted({ round: 1, taskIds: [openBoard.taskId] })]

describe("datasets: a later round is its verified episodes", () => {
  test("a pass and a fail of one task: sft records of the pass, a dpo pair where they parted, a rollout record each", () =>
    spec(datasets)
      .given([...round1, episode(0, "Cycling"), verdict(0, "pass"), episode(1, "Books"), verdict(1, "fail")])
      .when(roundExtrapolated(1))
      .then((events) => {
        const records = dataOf(events, "DatasetRecordEmitted")
        expect(records.map((r) => [r.format, r.trajectoryIds])).toEqual([
          ["sft", [ids[0]]],
          ["sft", [ids[0]]],
          ["rollout", [ids[0]]],
          ["rollout", [ids[1]]],
          ["dpo", [ids[0], ids[1]]]
        ])
        expect(dataOf(events, "DatasetSealed")[0]).toMatchObject({ round: 1, counts: { sft: 2, dpo: 1, rollout: 2 }, recordCount: 5 })
      }))

  test("a task extrapolated from the round's episode is in it too: its pseudo-demo under its own instruction", () => {
    const books = taskExtrapolated({
      newTaskId: "forum-open-board-1-xbooks",
      instruction: "Open the Books board.",
      parentTaskId: openBoard.taskId,
      pseudoDemoTrajectoryId: ids[1],
      pseudoDemoSteps: 2
    })
    return spec(datasets)
      .given([...round1, episode(1, "Books"), verdict(1, "fail"), books])
      .when(roundExtrapolated(1, ["forum-open-board-1-xbooks"]))
      .then((events) => {
        const sft = dataOf(events, "DatasetRecordEmitted").filter((r) => r.format === "sft")
        expect(sft.map((r) => r.taskId)).toEqual(["forum-open-board-1-xbooks", "forum-open-board-1-xbooks"])
        expect(userTurn(sft[0]!.body)).toContain("Open the Books board.")
      })
  })

  const nothing: ReadonlyArray<{ name: string; given: ReadonlyArray<CoreEvent> }> = [
    {
      name: "an infra-error episode",
      given: [
        trajectory(ids[2], openBoard.taskId, [], { outcome: "infra-error", infraError: "browser crashed", attempts: 3 }),
        verdict(2, "infra-error")
      ]
    },
    { name: "an episode with no steps", given: [trajectory(ids[2], openBoard.taskId, []), verdict(2, "fail")] },
    { name: "an episode with no verdict", given: [episode(2, "Cycling")] }
  ]
  for (const c of nothing) {
    test(`${c.name} gives no record, and the round is sealed empty`, () =>
      spec(datasets)
        .given([...round1, ...c.given])
        .when(roundExtrapolated(1))
        .then((events) =>
          expect(events.map((e) => [e.type, e.type === "DatasetSealed" ? e.data.recordCount : null])).toEqual([["DatasetSealed", 0]])
        ))
  }

  test("a record the run already emitted is not emitted again; the seal covers what is new", async () => {
    const given = [...round1, episode(0, "Cycling"), verdict(0, "pass")]
    const first = await spec(datasets).given(given).when(roundExtrapolated(1)).run()
    const records = first.events.filter((e) => e.type === "DatasetRecordEmitted")
    await spec(datasets)
      .given([...given, ...records])
      .when(roundExtrapolated(1))
      .then((events) => expect(dataOf(events, "DatasetSealed")).toEqual([{ round: 1, ...sealOf([]) }]))
  })

  test("outside a run, no dataset", () =>
    spec(datasets)
      .given([...tasks, openBoardDemo, ...openBoardGraph])
      .when(roundExtrapolated(0))
      .thenNothing())
})
