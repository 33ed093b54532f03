/**
 * The verification decider: each recorded trajectory gets the graph verdict against its
 * task's graph as the round started, with every LF's evidence from the real sandbox. An
 * episode the environment never let through is infra-error — never a failure — and a task
 * without a graph fails; a trajectory whose blobs are gone is no verdict at all.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { labelFunctionId } from "@core/events"
import type { CoreEvent } from "@core/events"
import { verification } from "../../deciders/Rollouts.ts"
import { graphOf, observation, roundStarted, runStarted, trajectoryRecorded } from "./Events.ts"
import type { Verdict } from "./Events.ts"
import {
  click,
  complete,
  openBoard,
  openBoardDemo,
  openBoardGraph,
  openBoardNodes,
  ORIGIN,
  POST,
  search,
  searchPath,
  tasks,
  trajectory,
  UPVOTE,
  upvote,
  upvoteNodes,
  roundOneOfBoth
} from "./Forum.ts"
import { fixtureLog, idsAndData, loggedDecisions } from "./Fixture.ts"
import { dataOf, deciderSpecs } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("verification", specKit)
afterAll(dispose)

const run = runStarted({ tasks: [openBoard.taskId, upvote.taskId], demos: "all" })
const round1 = roundOneOfBoth()
const ids = (nodes: typeof upvoteNodes) => nodes.map((n) => labelFunctionId(n.code))

describe("verification: a trajectory's verdict against the graph", () => {
  const cases: ReadonlyArray<{
    name: string
    trajectory: CoreEvent
    verdict: Verdict
    evidence: ReadonlyArray<number>
    nodes: typeof upvoteNodes
  }> = [
    {
      name: "the demo's way, then complete: pass, along the demo's path",
      trajectory: trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [
        [click("link", "Cycling"), "/forum/b/cycling"],
        [complete, "/forum/b/cycling"]
      ]),
      verdict: "pass",
      evidence: [0, 1],
      nodes: openBoardNodes
    },
    {
      name: "the post reached from its board and upvoted: partial, the search LF never held",
      trajectory: trajectory("r1-s0-forum-upvote-1", upvote.taskId, [
        [click("link", "Gardening"), "/forum/b/gardening"],
        [click("link", POST), "/forum/post/p25"],
        [click("button", UPVOTE), "/forum/post/p25"],
        [complete, "/forum/post/p25"]
      ]),
      verdict: "partial",
      evidence: [-1, 1, 2, 3],
      nodes: upvoteNodes
    },
    {
      name: "the demo's whole way: pass, each LF at its step",
      trajectory: trajectory("r1-s1-forum-upvote-1", upvote.taskId, [
        [search(POST), searchPath(POST)],
        [click("link", POST), "/forum/post/p25"],
        [click("button", UPVOTE), "/forum/post/p25"],
        [complete, "/forum/post/p25"]
      ]),
      verdict: "pass",
      evidence: [0, 1, 2, 3],
      nodes: upvoteNodes
    },
    {
      name: "another board, then complete: fail",
      trajectory: trajectory("r1-s1-forum-open-board-1", openBoard.taskId, [
        [click("link", "Books"), "/forum/b/books"],
        [complete, "/forum/b/books"]
      ]),
      verdict: "fail",
      evidence: [-1, -1],
      nodes: openBoardNodes
    }
  ]
  for (const c of cases) {
    test(c.name, () =>
      spec(verification)
        .given(round1)
        .when(c.trajectory)
        .then((events) => {
          const [v] = dataOf(events, "TrajectoryVerified")
          expect(v!.verdict).toBe(c.verdict)
          const byLf = new Map(v!.evidence.map((e) => [e.lfId, e.satisfiedAt]))
          expect(ids(c.nodes).map((id) => byLf.get(id) ?? -1)).toEqual([...c.evidence])
          expect(v!.path === null).toBe(c.verdict !== "pass")
          expect(events[0]!.stream).toBe(c.trajectory.stream)
        })
    )
  }

  test("an LF that throws is evidence that it did not hold, with the error: never a pass", () => {
    const boom = { ...openBoardNodes[1]!, code: 'function labelFunction(t) {\n  throw new Error("boom")\n}\n' }
    const graph = graphOf("forum-open-board-2", { kind: "demo", id: "forum-open-board-2-script" }, [openBoardNodes[0]!, boom])
    const t = trajectory("r1-s0-forum-open-board-2", "forum-open-board-2", [
      [click("link", "Cycling"), "/forum/b/cycling"],
      [complete, "/forum/b/cycling"]
    ])
    return spec(verification)
      .given([run, ...graph, roundStarted({ round: 1, taskIds: ["forum-open-board-2"] })])
      .when(t)
      .then((events) => {
        const [v] = dataOf(events, "TrajectoryVerified")
        expect(v!.verdict).toBe("partial")
        expect(v!.evidence.find((e) => e.lfId === labelFunctionId(boom.code))).toMatchObject({
          satisfiedAt: -1,
          error: expect.stringContaining("boom")
        })
      })
  })

  test("the fixture run's trajectories, verified again from its log, get the logged verdicts", async () => {
    const log = fixtureLog()
    const recorded = log.flatMap((e, i) => (e.type === "TrajectoryRecorded" ? [i] : []))
    expect(recorded).toHaveLength(10)
    for (const i of recorded) {
      const { events } = await spec(verification).given(log.slice(0, i)).when(log[i]!).run()
      expect(events).toHaveLength(1)
      expect(idsAndData(events)).toEqual(loggedDecisions(log, log[i]!, verification))
    }
  })
})

describe("verification: what is not a pass or a fail", () => {
  test("an episode the environment never let through is infra-error, with no evidence and no sandbox run", () => {
    const broken = trajectoryRecorded({
      trajectoryId: "r1-s0-forum-open-board-1",
      taskId: openBoard.taskId,
      initial: observation(null, null, "browser crashed"),
      steps: [],
      outcome: "infra-error",
      infraError: "browser crashed",
      attempts: 3
    })
    return spec(verification)
      .given(round1)
      .when(broken)
      .then((events) =>
        expect(dataOf(events, "TrajectoryVerified")).toEqual([
          { trajectoryId: "r1-s0-forum-open-board-1", taskId: openBoard.taskId, verdict: "infra-error", evidence: [], path: null }
        ])
      )
  })

  test("a task whose graph came after the round started fails: verdicts use the graph as the round started", () =>
    spec(verification)
      .given([...tasks, openBoardDemo, run, roundStarted({ round: 1, taskIds: [openBoard.taskId] }), ...openBoardGraph])
      .when(
        trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [
          [click("link", "Cycling"), "/forum/b/cycling"],
          [complete, "/forum/b/cycling"]
        ])
      )
      .then((events) => expect(dataOf(events, "TrajectoryVerified")[0]).toMatchObject({ verdict: "fail", evidence: [], path: null })))

  test("a trajectory outside a run (no RunStarted) is not verified", () =>
    spec(verification)
      .given([...tasks, ...openBoardGraph])
      .when(trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [[complete, "/forum/"]]))
      .thenNothing())

  test("a trajectory whose element lists are gone is no verdict: the decision fails, and replay names it", () => {
    const gone = trajectoryRecorded({
      trajectoryId: "r1-s0-forum-open-board-1",
      taskId: openBoard.taskId,
      initial: observation(`${ORIGIN}/forum/`, "0".repeat(64)),
      steps: [{ action: complete, observation: observation(`${ORIGIN}/forum/`, "0".repeat(64)) }]
    })
    return spec(verification).given(round1).when(gone).thenFails("BlobNotFound")
  })
})
