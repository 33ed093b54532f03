/**
 * Data rules 6: a partial trajectory that solved its task by expansion's rule, and that a
 * path its round added accepts, counts as a pass. The strategy-graph decider says so with
 * `TrajectoryPromoted` (the path and the steps its LFs held at); the run's fold, the read
 * model, metrics and agreement then count it as a pass. Runs recorded with the rules 5 stay
 * partial, as they were decided.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { nodeIdOf } from "@core/domain"
import { labelFunctionId, PathAdded, runStream, TrajectoryPromoted } from "@core/events"
import type { CoreEvent } from "@core/events"
import { strategyGraph } from "../../deciders/StrategyGraph.ts"
import { agreementOf } from "../../Agreement.ts"
import { evolveRun, initialRunState } from "../../RunState.ts"
import { finalVerdicts } from "../../Verdicts.ts"
import { event, graphOf, RUN, roundStarted, runStarted, taskRegistered, trajectoryVerified } from "./Events.ts"
import { commentCount, POST, search, searchPath, trajectory } from "./Forum.ts"
import { dataOf, deciderSpecs, typesOf } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("promotion", specKit)
afterAll(dispose)

const { task, said, demo, nodes } = commentCount
const ids = nodes.map((n) => labelFunctionId(n.code))
/** Searched, then answered "3" on the results list: the demo's search and answer, not its post page. */
const fromList = (trajectoryId: string) =>
  trajectory(trajectoryId, task.taskId, [
    [search(POST), searchPath(POST)],
    [said, searchPath(POST)]
  ])
const partial = (trajectoryId: string, answerAt = 1) =>
  trajectoryVerified({
    trajectoryId,
    taskId: task.taskId,
    verdict: "partial",
    evidence: { [ids[0]!]: 0, [ids[1]!]: -1, [ids[2]!]: answerAt }
  })
const given = (dataRules: "5" | "6", o: { readonly expandPerTask?: number } = {}): ReadonlyArray<CoreEvent> => [
  taskRegistered(task),
  demo,
  runStarted({ tasks: [task.taskId], demos: "all", dataRules, ...o }),
  ...graphOf(task.taskId, { kind: "demo", id: demo.data.demoId }, nodes),
  roundStarted({ round: 1, taskIds: [task.taskId] })
]
/** The path search → answer, as the first such trajectory of round 1 added it. */
const searchAnswer = [nodeIdOf(nodes[0]!.semanticKey), nodeIdOf(nodes[2]!.semanticKey)]
const addedBy = (trajectoryId: string) =>
  event(PathAdded, runStream(RUN, "graph", task.taskId), {
    taskId: task.taskId,
    pathId: "p-search-answer",
    nodeIds: searchAnswer,
    source: { kind: "trajectory", id: trajectoryId }
  })

describe("data rules 6: a partial that solved the task passes by the path its round added", () => {
  test("given the rules 6, when a partial answered on the results list, then its path is added and it is promoted along it", () =>
    spec(strategyGraph)
      .given([...given("6"), fromList("r1-s0-forum-comment-count-1")])
      .when(partial("r1-s0-forum-comment-count-1"))
      .then((events) => {
        expect(typesOf(events).slice(-2)).toEqual(["PathAdded", "TrajectoryPromoted"])
        const added = dataOf(events, "PathAdded")[0]!
        const [promoted] = dataOf(events, "TrajectoryPromoted")
        expect(promoted).toMatchObject({ trajectoryId: "r1-s0-forum-comment-count-1", taskId: task.taskId, path: added.nodeIds })
        // The search held at step 0 and the answer at step 1: the steps a dataset credits.
        expect(promoted!.matched.map((m) => m.satisfiedAt)).toEqual([0, 1])
        expect(events.every((e) => e.stream === runStream(RUN, "graph", task.taskId))).toBe(true)
      }))

  test("given the rules 5, the same partial adds the path and stays partial, as runs recorded with them decided", () =>
    spec(strategyGraph)
      .given([...given("5"), fromList("r1-s0-forum-comment-count-1")])
      .when(partial("r1-s0-forum-comment-count-1"))
      .then((events) => {
        expect(typesOf(events).at(-1)).toBe("PathAdded")
        expect(typesOf(events)).not.toContain("TrajectoryPromoted")
      }))

  test("with the round's expansions spent, a second partial the added path accepts is promoted without inferring anything", () =>
    spec(strategyGraph)
      .given([
        ...given("6", { expandPerTask: 1 }),
        fromList("r1-s0-forum-comment-count-1"),
        addedBy("r1-s0-forum-comment-count-1"),
        fromList("r1-s1-forum-comment-count-1")
      ])
      .when(partial("r1-s1-forum-comment-count-1"))
      .then((events) => {
        expect(typesOf(events)).toEqual(["TrajectoryPromoted"])
        expect(dataOf(events, "TrajectoryPromoted")[0]).toMatchObject({ trajectoryId: "r1-s1-forum-comment-count-1", path: searchAnswer })
      }))

  test("a partial that never claimed success is not promoted, even where the added path's LFs hold", () =>
    spec(strategyGraph)
      .given([
        ...given("6", { expandPerTask: 1 }),
        fromList("r1-s0-forum-comment-count-1"),
        addedBy("r1-s0-forum-comment-count-1"),
        trajectory("r1-s2-forum-comment-count-1", task.taskId, [[search(POST), searchPath(POST)]])
      ])
      .when(partial("r1-s2-forum-comment-count-1", -1))
      .thenNothing())
})

describe("a promoted partial counts as a pass wherever verdicts are counted", () => {
  // As the decider emits it: on the task's graph stream.
  const promoted = event(TrajectoryPromoted, runStream(RUN, "graph", task.taskId), {
    trajectoryId: "r1-s0-forum-comment-count-1",
    taskId: task.taskId,
    path: searchAnswer,
    matched: [
      { nodeId: searchAnswer[0]!, lfId: ids[0]!, satisfiedAt: 0 },
      { nodeId: searchAnswer[1]!, lfId: ids[2]!, satisfiedAt: 1 }
    ]
  })
  const log = [...given("6"), fromList("r1-s0-forum-comment-count-1"), partial("r1-s0-forum-comment-count-1")]

  test("the run's fold, final verdicts and agreement: partial before the promotion, pass after", () => {
    const before = log.reduce(evolveRun, initialRunState)
    const after = [...log, promoted].reduce(evolveRun, initialRunState)
    expect(before.verdicts.get("r1-s0-forum-comment-count-1")?.verdict).toBe("partial")
    expect(after.verdicts.get("r1-s0-forum-comment-count-1")).toMatchObject({ verdict: "pass", round: 1 })
    expect(after.verdicts.get("r1-s0-forum-comment-count-1")?.matched.map((m) => m.satisfiedAt)).toEqual([0, 1])

    expect(finalVerdicts(log).map((v) => [v.verdict, v.promoted])).toEqual([["partial", false]])
    expect(finalVerdicts([...log, promoted]).map((v) => [v.verdict, v.promoted, v.path])).toEqual([["pass", true, searchAnswer]])

    const judged = new Map([["r1-s0-forum-comment-count-1", { success: true }]])
    expect(agreementOf(log, judged).overall).toMatchObject({ predicted_pass: 0, recall: 0 })
    expect(agreementOf([...log, promoted], judged).overall).toMatchObject({ predicted_pass: 1, precision: 1, recall: 1 })
  })
})
