/**
 * Episodes that finish (exploration 5): a rollout whose trajectory so far, with a
 * `status complete` added, would satisfy a path of its task's graph says so at that step and
 * ends, and verification passes it. The same recorded inputs under exploration 4 play on as
 * before; replayed from its recording the episode ends at the same step with the same record;
 * and where it ends is what CORE's own label functions say, not the task's truth.
 *
 * The policy is the model policy with scripted answers, so the episode's way is fixed: to the
 * Cycling board (where the open-board task is done), then off to the home page and other
 * boards until its steps run out, never saying complete.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { labelFunctionId } from "@core/events"
import type { CoreEvent } from "@core/events"
import { nodeIdOf, pathIdOf } from "@core/domain"
import { rollouts, verification } from "../../deciders/Rollouts.ts"
import { endCheckOf } from "../../EpisodeEnd.ts"
import { graphOf, jobQueued, roundStarted, runStarted } from "./Events.ts"
import type { NodeSpec, RunOptions } from "./Events.ts"
import { complete, forumSite, openBoard, openBoardDemo, openBoardGraph, openBoardNodes, tasks } from "./Forum.ts"
import { dataOf, deciderSpecs, typesOf } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("episode-end", specKit)
afterAll(dispose)

const answer = (o: Record<string, string>) => JSON.stringify({ thought: "", ...o })
/** Cycling (home's e4), then back and forth between the forum home (a board's e2) and other boards, never saying complete. */
const wandering = {
  policy: ["e4", "e2", "e5", "e2", "e6", "e2"].map((element) => answer({ action: "click", element }))
}

const run = (exploration: RunOptions["exploration"]) =>
  runStarted({ tasks: [openBoard.taskId], demos: "all", policy: "model", model: "m", stepBudget: 6, exploration })
const round = (exploration: RunOptions["exploration"], graph: ReadonlyArray<CoreEvent> = openBoardGraph) => [
  ...tasks,
  openBoardDemo,
  run(exploration),
  ...graph,
  roundStarted({ round: 1, taskIds: [openBoard.taskId] })
]
/**
 * The rollout job of sample `sample`. Each test plays its own sample: the sandbox keeps a
 * trajectory under its run and id, and the specs share one sandbox and one run id.
 */
const queued = (sample: number) =>
  jobQueued({
    jobId: `rollout-r1-s${sample}-${openBoard.taskId}`,
    kind: "rollout",
    round: 1,
    taskId: openBoard.taskId,
    params: { trajectoryId: `r1-s${sample}-${openBoard.taskId}`, sample, stepBudget: 6 }
  })

/** The episode of `sample` played live in the forum, and its TrajectoryRecorded. */
const played = async (given: ReadonlyArray<CoreEvent>, sample: number) => {
  const live = await spec(rollouts).given(given).when(queued(sample)).answering(wandering).observing(forumSite()).run()
  expect(typesOf(live.events)).toEqual(["TrajectoryRecorded", "JobCompleted"])
  return { live, recorded: live.events[0]!, data: dataOf(live.events, "TrajectoryRecorded")[0]! }
}

const verdictOf = async (given: ReadonlyArray<CoreEvent>, recorded: CoreEvent) => {
  const { events } = await spec(verification).given(given).when(recorded).run()
  return dataOf(events, "TrajectoryVerified")[0]!
}

const demoPathId = pathIdOf(
  openBoard.taskId,
  openBoardNodes.map((n) => nodeIdOf(n.semanticKey))
)

describe("exploration 5: an episode ends once a path of its graph would hold", () => {
  test("having reached the Cycling board, the episode says complete there and ends; verification passes it along the demo's path", async () => {
    const given = round("5")
    const { data, recorded } = await played(given, 0)
    expect(data.steps.map((s) => s.action)).toEqual([
      { kind: "click", target: { role: "link", name: "Cycling", elementId: "e4", text: "Cycling" } },
      complete
    ])
    expect(data.steps.map((s) => s.observation.url)).toEqual(["http://forum.test/forum/b/cycling", "http://forum.test/forum/b/cycling"])
    expect(data.outcome).toBe("completed")
    expect(data.finished).toEqual({ pathId: demoPathId, step: 1 })
    const verdict = await verdictOf(given, recorded)
    expect(verdict.verdict).toBe("pass")
    expect(verdict.path).toEqual(openBoardNodes.map((n) => nodeIdOf(n.semanticKey)))
  })

  test("under exploration 4 the same inputs play on as before: off the board until the budget runs out, partial", async () => {
    const given = round("4")
    const { data, recorded } = await played(given, 1)
    expect(data.steps.map((s) => s.action.kind)).toEqual(["click", "click", "click", "click", "click", "click"])
    expect(data.steps.at(-1)!.observation.url).toBe("http://forum.test/forum/")
    expect(data.outcome).toBe("budget-exhausted")
    expect("finished" in data).toBe(false)
    expect((await verdictOf(given, recorded)).verdict).toBe("partial")
  })

  test("replayed from its recording, the exploration-5 episode is decided again to the same record, id for id", async () => {
    const given = round("5")
    const { live, recorded } = await played(given, 2)
    await spec(rollouts)
      .given(given)
      .when(queued(2))
      .answering(wandering)
      .recorded([recorded])
      .then([...live.decisions])
  })

  test("a recording that ended later than the check says is not re-derived: replay asks for the step the policy never took", async () => {
    const given = round("5")
    const { recorded: old } = await played(round("4"), 3)
    await spec(rollouts).given(given).when(queued(3)).answering(wandering).recorded([old]).thenFails("ActionMismatch")
  })
})

describe("the check is CORE's own verifier, nothing else", () => {
  /** Label functions that are wrong for the task: they take the Books board for the goal. */
  const booksNodes: ReadonlyArray<NodeSpec> = [
    {
      keyStepIndex: 0,
      description: "Click on a UI element 'Books' (link) on the screen.",
      code: 'function labelFunction(t) {\n  return validateUrl(t, "^/forum/b/books(\\\\?.*)?$")\n}\n',
      semanticKey: { actionKind: "click", role: "link", name: "books", value: null, urlPattern: "^/forum/(\\?.*)?$" }
    },
    {
      keyStepIndex: 1,
      description: "Set the task's status as 'complete'.",
      code: 'function labelFunction(t) {\n  return validateStatus(t, "complete", { urlBefore: "^/forum/b/books(\\\\?.*)?$" })\n}\n',
      semanticKey: { actionKind: "status", role: null, name: null, value: "complete", urlPattern: "^/forum/b/books(\\?.*)?$" }
    }
  ]
  const booksGraph = graphOf(openBoard.taskId, { kind: "demo", id: "forum-open-board-1-books" }, booksNodes)

  test("with label functions that take Books for the goal, the episode passes the Cycling board by and ends on Books", async () => {
    const { data } = await played(round("5", booksGraph), 4)
    expect(data.steps.map((s) => s.action.kind)).toEqual(["click", "click", "click", "status"])
    expect(data.steps.map((s) => s.observation.url)).toEqual([
      "http://forum.test/forum/b/cycling",
      "http://forum.test/forum/",
      "http://forum.test/forum/b/books",
      "http://forum.test/forum/b/books"
    ])
    // Ended by the check, not by the policy: it never says complete.
    expect(data.finished).toEqual({
      pathId: pathIdOf(
        openBoard.taskId,
        booksNodes.map((n) => nodeIdOf(n.semanticKey))
      ),
      step: 3
    })
  })

  test("what a worker is sent to check with is the graph's paths, their label functions and the data rules: no checker, no judgement", () => {
    const lfs = new Map(openBoardNodes.map((n) => [labelFunctionId(n.code), { code: n.code }]))
    const graph = {
      taskId: openBoard.taskId,
      nodes: openBoardNodes.map((n) => ({
        nodeId: nodeIdOf(n.semanticKey),
        lfId: labelFunctionId(n.code),
        description: n.description,
        semanticKey: n.semanticKey,
        how: "demo" as const,
        source: { kind: "demo" as const, id: openBoardDemo.type === "DemoIngested" ? openBoardDemo.data.demoId : "" }
      })),
      paths: [
        { pathId: demoPathId, nodeIds: openBoardNodes.map((n) => nodeIdOf(n.semanticKey)), source: { kind: "demo" as const, id: "d" } }
      ]
    }
    const check = endCheckOf(graph, lfs, "4")!
    expect(Object.keys(check).sort()).toEqual(["dataRules", "graph", "labelFunctions"])
    expect(check.labelFunctions.map((lf) => lf.code)).toEqual(openBoardNodes.map((n) => n.code))
  })

  test("a graph whose paths all end in an answer gives no check: the policy's own answer ends those episodes", () => {
    const n = {
      nodeId: "n-a",
      lfId: "lf-a",
      description: "Answer '3'.",
      semanticKey: { actionKind: "answer" as const, role: null, name: null, value: "3", urlPattern: null },
      how: "demo" as const,
      source: { kind: "demo" as const, id: "d" }
    }
    const graph = { taskId: "t", nodes: [n], paths: [{ pathId: "p-a", nodeIds: ["n-a"], source: n.source }] }
    expect(endCheckOf(graph, new Map([["lf-a", { code: "function labelFunction(t) { return -1 }" }]]), "4")).toBeNull()
  })
})
