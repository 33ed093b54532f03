/**
 * Data rules 7: expansion refuses a path whose trajectory never entered a value the task's
 * demo typed or picked from its instruction, and `PathRefused` names the values; so nothing
 * is promoted along it. Runs recorded with the rules 6 add the path and promote, as they
 * were decided.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { labelFunctionId } from "@core/events"
import type { CoreEvent } from "@core/events"
import { strategyGraph } from "../../deciders/StrategyGraph.ts"
import { graphOf, roundStarted, runStarted, taskRegistered, trajectoryVerified } from "./Events.ts"
import { commentCount, POST, search, searchPath, trajectory } from "./Forum.ts"
import { dataOf, deciderSpecs, typesOf } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("values-kept", specKit)
afterAll(dispose)

const { task, said, demo, nodes } = commentCount
const ids = nodes.map((n) => labelFunctionId(n.code))
const given = (dataRules: "6" | "7"): ReadonlyArray<CoreEvent> => [
  taskRegistered(task),
  demo,
  runStarted({ tasks: [task.taskId], demos: "all", dataRules }),
  ...graphOf(task.taskId, { kind: "demo", id: demo.data.demoId }, nodes),
  roundStarted({ round: 1, taskIds: [task.taskId] })
]
/** Answered "3" on the home page: the demo's answer, without the post it searched for. */
const guessed = trajectory("r1-s0-forum-comment-count-1", task.taskId, [[said, "/forum/"]])
const guessedVerdict = trajectoryVerified({
  trajectoryId: "r1-s0-forum-comment-count-1",
  taskId: task.taskId,
  verdict: "partial",
  evidence: { [ids[0]!]: -1, [ids[1]!]: -1, [ids[2]!]: 0 }
})
/** Searched for the post, then answered on the results list. */
const searched = trajectory("r1-s1-forum-comment-count-1", task.taskId, [
  [search(POST), searchPath(POST)],
  [said, searchPath(POST)]
])
const searchedVerdict = trajectoryVerified({
  trajectoryId: "r1-s1-forum-comment-count-1",
  taskId: task.taskId,
  verdict: "partial",
  evidence: { [ids[0]!]: 0, [ids[1]!]: -1, [ids[2]!]: 1 }
})

describe("data rules 7: a path enters the values the demo entered from the instruction", () => {
  test("given the rules 7, when a partial answered without ever entering the post's title, then its path is refused and names it", () =>
    spec(strategyGraph)
      .given([...given("7"), guessed])
      .when(guessedVerdict)
      .then((events) => {
        expect(typesOf(events)).not.toContain("PathAdded")
        expect(typesOf(events)).not.toContain("TrajectoryPromoted")
        expect(dataOf(events, "PathRefused")).toEqual([
          expect.objectContaining({
            reason: "leaves-out",
            values: [POST],
            steps: [],
            source: { kind: "trajectory", id: "r1-s0-forum-comment-count-1" }
          })
        ])
      }))

  test("given the rules 6, the same partial adds its path and is promoted, as runs recorded with them decided", () =>
    spec(strategyGraph)
      .given([...given("6"), guessed])
      .when(guessedVerdict)
      .then((events) => {
        expect(typesOf(events).slice(-2)).toEqual(["PathAdded", "TrajectoryPromoted"])
        expect(typesOf(events)).not.toContain("PathRefused")
      }))

  test("given the rules 7, a partial that searched for the title adds its path and is promoted", () =>
    spec(strategyGraph)
      .given([...given("7"), searched])
      .when(searchedVerdict)
      .then((events) => {
        expect(typesOf(events).slice(-2)).toEqual(["PathAdded", "TrajectoryPromoted"])
        expect(typesOf(events)).not.toContain("PathRefused")
      }))
})
