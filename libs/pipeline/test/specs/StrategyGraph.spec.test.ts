/**
 * The strategy-graph decider: a demo's accepted label functions become nodes and a path;
 * a partial trajectory (or a passing explorer episode) that reached the goal another way
 * adds its own path, once its LFs hold on it in order. Everything else — a failed job, a
 * path already known, a run that did not claim success, undid it, or a round's budget of
 * expansions spent — leaves the graph as it is. Under the data rules 5, a path whose extra
 * key steps changed nothing is refused, with a PathRefused saying which steps.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { nodeIdOf } from "@core/domain"
import { labelFunctionId, PathAdded, runStream } from "@core/events"
import type { Action, CoreEvent } from "@core/events"
import { strategyGraph } from "../../deciders/StrategyGraph.ts"
import {
  demoIngested,
  elements,
  event,
  graphOf,
  jobCompleted,
  labelFunctionInferred,
  observation,
  RUN,
  roundStarted,
  runStarted,
  taskRegistered,
  trajectoryRecorded,
  trajectoryVerified
} from "./Events.ts"
import type { RunOptions, Verdict } from "./Events.ts"
import {
  click,
  complete,
  openBoard,
  openBoardDemo,
  openBoardGraph,
  openBoardNodes,
  commentCount,
  ORIGIN,
  POST,
  search,
  searchPath,
  tasks,
  trajectory,
  UPVOTE,
  upvote,
  upvoteDemo,
  upvoteGraph,
  upvoteNodes
} from "./Forum.ts"
import { fixtureLog, idsAndData, loggedDecisions } from "./Fixture.ts"
import { dataOf, deciderSpecs, typesOf } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("strategy-graph", specKit)
afterAll(dispose)

const run = (o: RunOptions = {}) => runStarted({ tasks: [openBoard.taskId, upvote.taskId], demos: "all", ...o })
const demoSource = { kind: "demo" as const, id: "forum-open-board-1-script" }
const openBoardLfs = openBoardNodes.map((n, i) => labelFunctionInferred(openBoard.taskId, demoSource, n, i))
const inferDone = (demoId: string, outcome: "done" | "failed" = "done") =>
  jobCompleted({ jobId: `infer-${demoId}`, outcome }, { stream: runStream(RUN, "infer", demoId) })

describe("strategy graph: a demo's label functions become its nodes and path", () => {
  test("given the open-board demo's LFs, when its inference job completes, then a node per LF and the demo's path", () =>
    spec(strategyGraph)
      .given([...tasks, openBoardDemo, run(), ...openBoardLfs])
      .when(inferDone("forum-open-board-1-script"))
      .then((events) => {
        expect(typesOf(events)).toEqual(["NodeExpanded", "NodeExpanded", "PathAdded"])
        expect(events.every((e) => e.stream === runStream(RUN, "graph", openBoard.taskId))).toBe(true)
        const nodes = dataOf(events, "NodeExpanded")
        // The nodes' meanings are the demo's steps: the spec forum's graphs use the same.
        expect(nodes.map((n) => n.semanticKey)).toEqual(openBoardNodes.map((n) => n.semanticKey))
        expect(nodes.map((n) => [n.how, n.lfId])).toEqual(openBoardNodes.map((n) => ["demo", labelFunctionId(n.code)]))
        expect(dataOf(events, "PathAdded")[0]).toMatchObject({ nodeIds: nodes.map((n) => n.nodeId), source: demoSource })
      }))

  test("a second demo that goes the same way adds no node and no path", () => {
    const again = demoIngested({ demoId: "forum-open-board-1-again", taskId: openBoard.taskId, steps: openBoardDemo.data.steps })
    const lfs = openBoardNodes.map((n, i) =>
      labelFunctionInferred(openBoard.taskId, { kind: "demo", id: "forum-open-board-1-again" }, n, i)
    )
    return spec(strategyGraph)
      .given([...tasks, openBoardDemo, again, run(), ...openBoardGraph, ...lfs])
      .when(inferDone("forum-open-board-1-again"))
      .thenNothing()
  })

  const nothing: ReadonlyArray<{ name: string; given: ReadonlyArray<CoreEvent>; when: CoreEvent }> = [
    { name: "a failed inference job", given: [run(), ...openBoardLfs], when: inferDone("forum-open-board-1-script", "failed") },
    { name: "a demo that got no LF", given: [run()], when: inferDone("forum-open-board-1-script") },
    {
      name: "an infer run, which builds no graph",
      given: [runStarted({ command: "infer", demos: "all" }), ...openBoardLfs],
      when: inferDone("forum-open-board-1-script")
    }
  ]
  for (const c of nothing) {
    test(`${c.name} grows no graph`, () =>
      spec(strategyGraph)
        .given([...tasks, openBoardDemo, ...c.given])
        .when(c.when)
        .thenNothing())
  }
})

/** Reached the post from its board instead of searching, upvoted and said complete: all but the search LF held. */
const viaBoard = (
  trajectoryId: string,
  more: ReadonlyArray<readonly [ReturnType<typeof click>, string]> = [[complete, "/forum/post/p25"]]
) =>
  trajectory(trajectoryId, upvote.taskId, [
    [click("link", "Gardening"), "/forum/b/gardening"],
    [click("link", POST), "/forum/post/p25"],
    [click("button", UPVOTE), "/forum/post/p25"],
    ...more
  ])

const lfIds = upvoteNodes.map((n) => labelFunctionId(n.code))
/** Evidence as verification gives it: each demo LF's step, -1 where it never held. */
const evidence = (steps: ReadonlyArray<number>) => Object.fromEntries(lfIds.map((id, i) => [id, steps[i]!]))
const verified = (trajectoryId: string, verdict: Verdict, steps: ReadonlyArray<number> = [-1, 1, 2, 3]) =>
  trajectoryVerified({ trajectoryId, taskId: upvote.taskId, verdict, evidence: evidence(steps) })

const round1 = (o: RunOptions = {}) => [...tasks, upvoteDemo, run(o), ...upvoteGraph, roundStarted({ round: 1, taskIds: [upvote.taskId] })]

describe("strategy graph: a partial trajectory that reached the goal another way", () => {
  test("given a partial run that upvoted from the post's board, when verified, then its LFs, its new node and its path join the graph", () =>
    spec(strategyGraph)
      .given([...round1(), viaBoard("r1-s0-forum-upvote-1")])
      .when(verified("r1-s0-forum-upvote-1", "partial"))
      .then((events) => {
        expect(typesOf(events)).toEqual([
          "LabelFunctionInferred",
          "LabelFunctionInferred",
          "LabelFunctionInferred",
          "NodeExpanded",
          "PathAdded"
        ])
        const source = { kind: "trajectory", id: "r1-s0-forum-upvote-1" } as const
        expect(dataOf(events, "LabelFunctionInferred").map((l) => [l.keyStepIndex, l.source])).toEqual([
          [1, source],
          [2, source],
          [3, source]
        ])
        const [node] = dataOf(events, "NodeExpanded")
        // Opening the post from its board is the new meaning; upvoting and saying complete are the demo's nodes.
        expect(node).toMatchObject({
          how: "partial",
          semanticKey: { actionKind: "click", role: "link", urlPattern: "^/forum/b/gardening(\\?.*)?$" }
        })
        const [, , upvoted, said] = upvoteNodes.map((n) => nodeIdOf(n.semanticKey))
        expect(dataOf(events, "PathAdded")[0]).toMatchObject({ nodeIds: [node!.nodeId, upvoted, said], source })
      }))

  test("a passing explorer episode is a candidate too: it may have reached a node another way", () =>
    spec(strategyGraph)
      .given([...round1(), viaBoard("x1-s0-forum-upvote-1")])
      .when(verified("x1-s0-forum-upvote-1", "pass"))
      .then((events) => {
        expect(typesOf(events).at(-1)).toBe("PathAdded")
      }))

  test("the fixture run's explorer that searched for the Cycling board, decided again from its log, adds the path it logged", async () => {
    const log = fixtureLog()
    const i = log.findIndex((e) => e.type === "TrajectoryVerified" && e.data.trajectoryId === "x1-s0-forum-open-board-1")
    const { events } = await spec(strategyGraph).given(log.slice(0, i)).when(log[i]!).run()
    expect(typesOf(events).at(-1)).toBe("PathAdded")
    expect(idsAndData(events)).toEqual(loggedDecisions(log, log[i]!, strategyGraph))
  })

  test("the same way again, once its path is in the graph, records its LFs but adds no node or path", async () => {
    const given = [...round1(), viaBoard("r1-s0-forum-upvote-1"), viaBoard("r1-s1-forum-upvote-1")]
    const first = verified("r1-s0-forum-upvote-1", "partial")
    const { events } = await spec(strategyGraph).given(given).when(first).run()
    // The first one's decisions as the log holds them, then the second verdict.
    await spec(strategyGraph)
      .given([...given, first, ...events])
      .when(verified("r1-s1-forum-upvote-1", "partial"))
      .then((again) => {
        expect(typesOf(again)).toEqual(["LabelFunctionInferred", "LabelFunctionInferred", "LabelFunctionInferred"])
      })
  })

  const refusals: ReadonlyArray<{ name: string; given?: ReadonlyArray<CoreEvent>; trajectory?: CoreEvent; verdict: CoreEvent }> = [
    { name: "a failed trajectory", verdict: verified("r1-s0-forum-upvote-1", "fail", [-1, -1, -1, -1]) },
    {
      name: "a passing rollout (not an explorer): the graph already has its way",
      verdict: verified("r1-s0-forum-upvote-1", "pass", [0, 1, 2, 3])
    },
    { name: "a partial run whose goal step never held", verdict: verified("r1-s0-forum-upvote-1", "partial", [-1, 1, -1, 3]) },
    {
      name: "a partial run that did not claim success",
      trajectory: viaBoard("r1-s0-forum-upvote-1", []),
      verdict: verified("r1-s0-forum-upvote-1", "partial", [-1, 1, 2, -1])
    },
    {
      name: "a partial run that undid its upvote before saying complete",
      trajectory: viaBoard("r1-s0-forum-upvote-1", [
        [click("button", `Downvote post '${POST}'`), "/forum/post/p25"],
        [complete, "/forum/post/p25"]
      ]),
      verdict: verified("r1-s0-forum-upvote-1", "partial", [-1, 1, 2, 4])
    },
    {
      name: "a partial run once the round's expansions are spent (run.expandPerTask)",
      given: [
        ...round1({ expandPerTask: 1 }),
        viaBoard("r1-s1-forum-upvote-1"),
        event(PathAdded, runStream(RUN, "graph", upvote.taskId), {
          taskId: upvote.taskId,
          pathId: "p-earlier",
          nodeIds: [nodeIdOf(upvoteNodes[3]!.semanticKey)],
          source: { kind: "trajectory", id: "r1-s1-forum-upvote-1" }
        })
      ],
      verdict: verified("r1-s0-forum-upvote-1", "partial")
    },
    {
      name: "a verdict before any run started",
      given: [...tasks, upvoteDemo, ...upvoteGraph],
      verdict: verified("r1-s0-forum-upvote-1", "partial")
    }
  ]
  for (const r of refusals) {
    test(`${r.name} adds nothing`, () =>
      spec(strategyGraph)
        .given([...(r.given ?? round1()), r.trajectory ?? viaBoard("r1-s0-forum-upvote-1")])
        .when(r.verdict)
        .thenNothing())
  }
})

describe("strategy graph: an answer read on another page (data rules 4), and paths that did nothing (data rules 5)", () => {
  // The demo searched, opened the post and read its count there; the rollout read it off the results list.
  const { task: count, said, demo, nodes } = commentCount
  const ids = nodes.map((n) => labelFunctionId(n.code))
  const fromList = trajectory("r1-s0-forum-comment-count-1", count.taskId, [
    [search(POST), searchPath(POST)],
    [said, searchPath(POST)]
  ])
  const verdict = trajectoryVerified({
    trajectoryId: "r1-s0-forum-comment-count-1",
    taskId: count.taskId,
    verdict: "partial",
    evidence: { [ids[0]!]: 0, [ids[1]!]: -1, [ids[2]!]: 1 }
  })
  const given = (dataRules: "3" | "4" | "5") => [
    taskRegistered(count),
    demo,
    runStarted({ tasks: [count.taskId], demos: "all", dataRules }),
    ...graphOf(count.taskId, { kind: "demo", id: demo.data.demoId }, nodes),
    roundStarted({ round: 1, taskIds: [count.taskId] }),
    fromList
  ]

  test("under the rules 4, the right answer given on the results list adds the path search, answer", () =>
    spec(strategyGraph)
      .given(given("4"))
      .when(verdict)
      .then((events) => {
        expect(typesOf(events).at(-1)).toBe("PathAdded")
        const path = dataOf(events, "PathAdded")[0]!
        // The search is the demo's node; the answer is a node of its own only if its code differs.
        expect(path.nodeIds[0]).toBe(nodeIdOf(nodes[0]!.semanticKey))
        expect(path.nodeIds).not.toContain(nodeIdOf(nodes[1]!.semanticKey))
        expect(path.nodeIds).toHaveLength(2)
      }))

  test("under the rules 3, the demo's page before the answer is still needed: nothing", () =>
    spec(strategyGraph).given(given("3")).when(verdict).thenNothing())

  // An empty search that stayed on the home page, then the right answer: the search did nothing.
  // Each case is its own rollout: the sandbox keeps a trajectory by its id.
  const verdictOf = (trajectoryId: string) =>
    trajectoryVerified({ trajectoryId, taskId: count.taskId, verdict: "partial", evidence: { [ids[0]!]: -1, [ids[1]!]: -1, [ids[2]!]: 1 } })
  const idle: ReadonlyArray<readonly [Action, string]> = [
    [search(""), "/forum/"],
    [said, "/forum/"]
  ]
  const expand = (dataRules: "4" | "5", trajectoryId: string, steps: ReadonlyArray<readonly [Action, string]>) =>
    spec(strategyGraph)
      .given([...given(dataRules).slice(0, -1), trajectory(trajectoryId, count.taskId, steps)])
      .when(verdictOf(trajectoryId))

  test("under the rules 5, a path whose extra step changed nothing (an empty search that stayed on the page) is refused, and says why", () =>
    expand("5", "r1-s1-forum-comment-count-1", idle).then((events) => {
      // The run's own LFs are recorded as always; no node and no path join the graph.
      expect(typesOf(events).filter((t) => t !== "LabelFunctionInferred")).toEqual(["PathRefused"])
      const [refused] = dataOf(events, "PathRefused")
      expect(refused).toMatchObject({
        taskId: count.taskId,
        reason: "no-op",
        steps: [0],
        source: { kind: "trajectory", id: "r1-s1-forum-comment-count-1" }
      })
      expect(refused!.nodeIds.at(-1)).toBe(nodeIdOf(nodes[2]!.semanticKey))
      expect(refused!.nodeIds).toHaveLength(2)
    }))

  test("under the rules 4, the same no-op path is added, as runs recorded with them decided", () =>
    expand("4", "r1-s2-forum-comment-count-1", idle).then((events) => {
      expect(typesOf(events).slice(-2)).toEqual(["NodeExpanded", "PathAdded"])
      expect(dataOf(events, "NodeExpanded")[0]!.semanticKey).toMatchObject({ actionKind: "type", value: null })
    }))

  test("under the rules 5, a path whose extra step changed the page (a search that found results) is added", () =>
    expand("5", "r1-s3-forum-comment-count-1", [
      [search("tomatoes"), searchPath("tomatoes")],
      [said, searchPath("tomatoes")]
    ]).then((events) => {
      expect(typesOf(events).slice(-2)).toEqual(["NodeExpanded", "PathAdded"])
      expect(dataOf(events, "NodeExpanded")[0]!.semanticKey).toMatchObject({ actionKind: "type", value: "tomatoes" })
    }))

  test("under the rules 5, a path whose extra step changed a field (typed, not submitted) is added", () => {
    const id = "r1-s4-forum-comment-count-1"
    const typed = elements("/forum/", ["searchbox", "Search posts", { value: "tomatoes" }], ["button", "Search"], ["link", POST])
    const before = elements("/forum/", ["searchbox", "Search posts"], ["button", "Search"], ["link", POST])
    const steps = [
      { action: { ...search("tomatoes"), submit: false }, observation: observation(`${ORIGIN}/forum/`, typed) },
      { action: said, observation: observation(`${ORIGIN}/forum/`, typed) }
    ]
    return spec(strategyGraph)
      .given([
        ...given("5").slice(0, -1),
        trajectoryRecorded({ trajectoryId: id, taskId: count.taskId, initial: observation(`${ORIGIN}/forum/`, before), steps })
      ])
      .when(verdictOf(id))
      .then((events) => {
        expect(typesOf(events).slice(-2)).toEqual(["NodeExpanded", "PathAdded"])
        expect(typesOf(events)).not.toContain("PathRefused")
      })
  })
})
