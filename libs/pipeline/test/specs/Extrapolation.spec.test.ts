/**
 * The extrapolation decider: when a round completes, its verified episodes of the run's
 * own tasks may name a task they actually did — a failure laid over its own template
 * (failure-relabel), an explorer's episode over the site's templates (success-augmentation),
 * or, when no template explains a failure and the run has a model, the model's recorded
 * answer. A found task joins the pool with its pseudo-demo's LFs, nodes and path — unless
 * it is near a held-out task (the contamination guard), the run has it already, or a cap
 * is reached. RoundExtrapolated closes the round either way.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { extrapolatedTaskId } from "@core/domain"
import { runStream, sha256, TaskExtrapolationRejected } from "@core/events"
import type { CoreEvent } from "@core/events"
import { extrapolation, MODEL_GENERATOR_VERSION } from "../../deciders/Extrapolation.ts"
import { event, RUN, roundCompleted, taskRegistered, trajectoryVerified } from "./Events.ts"
import type { RunOptions, Verdict } from "./Events.ts"
import { click, complete, heldOutBoard, openBoard, search, searchPath, tasks, trajectory, upvote, roundOneOfBoth } from "./Forum.ts"
import { fixtureLog, idsAndData, loggedDecisions } from "./Fixture.ts"
import { dataOf, deciderSpecs, typesOf } from "@core/engine/testing"
import { specKit } from "./Kit.ts"
import type { ModelScript } from "@core/engine/testing"

const { spec, dispose } = deciderSpecs("extrapolation", specKit)
afterAll(dispose)

const world = (o: RunOptions = {}) => roundOneOfBoth({ heldOut: [heldOutBoard.taskId], ...o })

/** An episode of the open-board task that opened another board and said complete, and its verdict. */
const opened = (trajectoryId: string, board: string, verdict: Verdict = "fail", taskId = openBoard.taskId): ReadonlyArray<CoreEvent> => [
  trajectory(trajectoryId, taskId, [
    [click("link", board), `/forum/b/${board.toLowerCase()}`],
    [complete, `/forum/b/${board.toLowerCase()}`]
  ]),
  trajectoryVerified({ trajectoryId, taskId, verdict })
]
const idOf = (instruction: string) => extrapolatedTaskId(openBoard.taskId, sha256(instruction))
const closed = (events: ReadonlyArray<CoreEvent>) => dataOf(events, "RoundExtrapolated")[0]

describe("extrapolation: an episode names the task it did", () => {
  test("given a failed run that opened Books, when the round completes, then 'Open the Books board.' joins the pool with its graph", () =>
    spec(extrapolation)
      .given([...world(), ...opened("r1-s0-forum-open-board-1", "Books")])
      .when(roundCompleted(1))
      .then((events) => {
        const books = idOf("Open the Books board.")
        expect(typesOf(events)).toEqual([
          "TaskExtrapolated",
          "LabelFunctionInferred",
          "NodeExpanded",
          "LabelFunctionInferred",
          "NodeExpanded",
          "PathAdded",
          "RoundExtrapolated"
        ])
        expect(dataOf(events, "TaskExtrapolated")[0]).toEqual({
          newTaskId: books,
          instruction: "Open the Books board.",
          generator: "failure-relabel",
          lineage: {
            parentTrajectoryIds: ["r1-s0-forum-open-board-1"],
            parentTaskId: openBoard.taskId,
            generatorVersion: "embedded-template-v1",
            promptDigest: null
          },
          pseudoDemoTrajectoryId: "r1-s0-forum-open-board-1",
          pseudoDemoSteps: 2,
          template: { id: "forum-open-board", parameters: { board: "Books" } }
        })
        expect(events.slice(1, 6).every((e) => e.stream === runStream(RUN, "graph", books))).toBe(true)
        expect(dataOf(events, "LabelFunctionInferred")[0]!.code).toContain("/forum/b/books")
        expect(closed(events)).toEqual({ round: 1, newTaskIds: [books], refused: 0 })
      }))

  test("the fixture run's round 1, extrapolated again from its log: the Books board its explorer found, as logged", async () => {
    const log = fixtureLog()
    const i = log.findIndex((e) => e.type === "RoundCompleted" && e.data.round === 1)
    const { events } = await spec(extrapolation).given(log.slice(0, i)).when(log[i]!).run()
    expect(dataOf(events, "TaskExtrapolated").map((x) => [x.instruction, x.generator, x.pseudoDemoTrajectoryId])).toEqual([
      ["Open the Books board.", "success-augmentation", "x1-s1-forum-open-board-1"]
    ])
    expect(idsAndData(events)).toEqual(loggedDecisions(log, log[i]!, extrapolation))
  })

  test("an explorer's episode is success-augmentation, whatever its verdict", () =>
    spec(extrapolation)
      .given([...world(), ...opened("x1-s0-forum-open-board-1", "Books", "partial")])
      .when(roundCompleted(1))
      .then((events) =>
        expect(dataOf(events, "TaskExtrapolated")[0]).toMatchObject({
          instruction: "Open the Books board.",
          generator: "success-augmentation"
        })
      ))

  test("with room for two per parent, two episodes that found two boards give two tasks, in trajectory id order", () =>
    spec(extrapolation)
      .given([
        ...world({ extrapolatePerTask: 2 }),
        ...opened("r1-s1-forum-open-board-1", "Gardening"),
        ...opened("r1-s0-forum-open-board-1", "Books")
      ])
      .when(roundCompleted(1))
      .then((events) => expect(closed(events)!.newTaskIds).toEqual([idOf("Open the Books board."), idOf("Open the Gardening board.")])))
})

describe("extrapolation: what the pool refuses", () => {
  const booksTask = taskRegistered({
    taskId: "forum-open-board-2",
    instruction: "Open the Books board.",
    template: { id: "forum-open-board", parameters: { board: "Books" } }
  })
  const reworded = taskRegistered({
    taskId: "forum-books-9",
    instruction: "Open the Books board please.",
    template: { id: "forum-misc", parameters: {} }
  })
  const refusals: ReadonlyArray<{
    name: string
    given: ReadonlyArray<CoreEvent>
    board: string
    rule: "template-parameters" | "wording" | "duplicate"
    closest: string
    similarity: number
  }> = [
    {
      name: "a held-out task's template and values (the contamination guard)",
      given: world(),
      board: "Photography",
      rule: "template-parameters",
      closest: heldOutBoard.taskId,
      similarity: 1
    },
    {
      name: "a held-out task's wording",
      given: [reworded, ...world({ heldOut: ["forum-books-9"] })],
      board: "Books",
      rule: "wording",
      closest: "forum-books-9",
      similarity: 0.8
    },
    {
      name: "one of the run's own tasks (a duplicate)",
      given: [booksTask, ...world({ tasks: [openBoard.taskId, upvote.taskId, "forum-open-board-2"] })],
      board: "Books",
      rule: "duplicate",
      closest: "forum-open-board-2",
      similarity: 1
    }
  ]
  for (const r of refusals) {
    test(`${r.name} is refused and the refusal logged, once`, () =>
      spec(extrapolation)
        .given([...r.given, ...opened("r1-s0-forum-open-board-1", r.board)])
        .when(roundCompleted(1))
        .then((events) => {
          const instruction = `Open the ${r.board} board.`
          expect(typesOf(events)).toEqual(["TaskExtrapolationRejected", "RoundExtrapolated"])
          expect(dataOf(events, "TaskExtrapolationRejected")[0]).toEqual({
            instruction,
            generator: "failure-relabel",
            parentTaskId: openBoard.taskId,
            parentTrajectoryIds: ["r1-s0-forum-open-board-1"],
            rule: r.rule,
            closestTaskId: r.closest,
            similarity: r.similarity
          })
          expect(events[0]!.stream).toBe(runStream(RUN, "task", `refused-${sha256(instruction).slice(0, 12)}`))
          expect(closed(events)).toEqual({ round: 1, newTaskIds: [], refused: 1 })
        }))
  }

  const photography = event(TaskExtrapolationRejected, runStream(RUN, "task", "refused-earlier"), {
    instruction: "Open the Photography board.",
    generator: "failure-relabel",
    parentTaskId: openBoard.taskId,
    parentTrajectoryIds: ["r0"],
    rule: "template-parameters",
    closestTaskId: heldOutBoard.taskId,
    similarity: 1
  })
  const books = opened("r1-s0-forum-open-board-1", "Books")
  const nothing: ReadonlyArray<{ name: string; given: ReadonlyArray<CoreEvent>; kept?: ReadonlyArray<string> }> = [
    {
      name: "a proposal refused in an earlier round is not logged again",
      given: [...world(), photography, ...opened("r1-s0-forum-open-board-1", "Photography")]
    },
    {
      name: "a parent past run.extrapolatePerTask adds no more",
      given: [...world(), ...books, ...opened("r1-s1-forum-open-board-1", "Gardening")],
      kept: ["Open the Books board."]
    },
    {
      name: "the same task found twice in a round is kept once, and not refused",
      given: [...world({ extrapolatePerTask: 2 }), ...books, ...opened("r1-s1-forum-open-board-1", "Books")],
      kept: ["Open the Books board."]
    },
    { name: "with run.extrapolatePerTask 0 (the ablation) nothing is looked for", given: [...world({ extrapolatePerTask: 0 }), ...books] },
    { name: "an infra-error episode is no parent", given: [...world(), ...opened("r1-s0-forum-open-board-1", "Books", "infra-error")] },
    { name: "an episode without a verdict is no parent", given: [...world(), books[0]!] },
    {
      name: "an episode of a generated task is no parent",
      given: [...world(), ...opened("r1-s0-forum-open-board-1-xbooks", "Gardening", "fail", "forum-open-board-1-xbooks")]
    },
    { name: "a failure of the demo's own board names nothing new", given: [...world(), ...opened("r1-s0-forum-open-board-1", "Cycling")] }
  ]
  for (const c of nothing) {
    test(c.name, () =>
      spec(extrapolation)
        .given(c.given)
        .when(roundCompleted(1))
        .then((events) => {
          expect(dataOf(events, "TaskExtrapolated").map((x) => x.instruction)).toEqual([...(c.kept ?? [])])
          expect(closed(events)!.refused).toBe(0)
        })
    )
  }

  test("outside a run, a completed round is not extrapolated", () => spec(extrapolation).given(tasks).when(roundCompleted(1)).thenNothing())
})

describe("extrapolation: a failure no template explains, asked of the model", () => {
  /** Searched instead of opening the post: neither the upvote template nor the board template explains it. */
  const searched = (trajectoryId: string, text: string) => [
    trajectory(trajectoryId, upvote.taskId, [
      [search(text), searchPath(text)],
      [complete, searchPath(text)]
    ]),
    trajectoryVerified({ trajectoryId, taskId: upvote.taskId, verdict: "fail" })
  ]
  const withModel = world({ model: "spec-model" })
  const answers: ReadonlyArray<{
    name: string
    answer: string
    kept?: string
    rule?: string
    instruction?: string
    closest?: string | null
  }> = [
    {
      name: "an intent becomes a task, its lineage naming the prompt and the call",
      answer: "Intent: Search the forum for posts about tomato.",
      kept: "Search the forum for posts about tomato."
    },
    { name: "INVALID is refused by rule", answer: "INVALID", rule: "invalid", instruction: "INVALID", closest: null },
    {
      name: "an intent of two words is refused: a page, not a task",
      answer: "Tomato search",
      rule: "too-short",
      instruction: "Tomato search",
      closest: null
    },
    {
      name: "an intent worded as a held-out task is refused (without a template, by its wording)",
      answer: "Open the Photography board.",
      rule: "wording",
      instruction: "Open the Photography board.",
      closest: heldOutBoard.taskId
    }
  ]
  for (const a of answers) {
    test(a.name, () =>
      spec(extrapolation)
        .given([...withModel, ...searched("r1-s0-forum-upvote-1", "tomato")])
        .when(roundCompleted(1))
        .answering({ relabel: [a.answer] })
        .then((events, { modelCalls }) => {
          expect(modelCalls.map((c) => [c.purpose, c.callIndex])).toEqual([["relabel", 0]])
          if (a.kept !== undefined) {
            expect(dataOf(events, "TaskExtrapolated")[0]).toMatchObject({
              instruction: a.kept,
              generator: "failure-relabel",
              template: null,
              pseudoDemoSteps: 2,
              lineage: {
                generatorVersion: MODEL_GENERATOR_VERSION,
                promptDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
                modelCallIds: [expect.any(String)]
              }
            })
            return
          }
          expect(dataOf(events, "TaskExtrapolationRejected")[0]).toMatchObject({
            instruction: a.instruction,
            rule: a.rule,
            closestTaskId: a.closest,
            modelCallIds: [expect.any(String)]
          })
        })
    )
  }

  const caps: ReadonlyArray<{ name: string; episodes: ReadonlyArray<CoreEvent>; script: ModelScript; calls: number }> = [
    {
      name: "at most two calls per parent task and round",
      episodes: [
        ...searched("r1-s0-forum-upvote-1", "tomato"),
        ...searched("r1-s1-forum-upvote-1", "basil"),
        ...searched("r1-s2-forum-upvote-1", "kale")
      ],
      script: { relabel: ["INVALID", "INVALID", "INVALID"] },
      calls: 2
    },
    {
      name: "never twice the same question in a round",
      episodes: [...searched("r1-s0-forum-upvote-1", "tomato"), ...searched("r1-s1-forum-upvote-1", "tomato")],
      script: { relabel: ["INVALID", "INVALID"] },
      calls: 1
    }
  ]
  for (const c of caps) {
    test(c.name, () =>
      spec(extrapolation)
        .given([...withModel, ...c.episodes])
        .when(roundCompleted(1))
        .answering(c.script)
        .then((_, { modelCalls }) => {
          expect(modelCalls).toHaveLength(c.calls)
        })
    )
  }

  test("without a model, such a failure names nothing", () =>
    spec(extrapolation)
      .given([...world(), ...searched("r1-s0-forum-upvote-1", "tomato")])
      .when(roundCompleted(1))
      .then((events, { modelCalls }) => {
        expect(modelCalls).toEqual([])
        expect(typesOf(events)).toEqual(["RoundExtrapolated"])
      }))

  // Unlike inference (a failed job) or a rollout (the episode retried), a relabel call that failed fails the whole decision.
  test("a relabel call that failed when recorded fails the round's extrapolation", () =>
    spec(extrapolation)
      .given([...withModel, ...searched("r1-s0-forum-upvote-1", "tomato")])
      .when(roundCompleted(1))
      .answering({ relabel: [null] })
      .thenFails("ModelCallFailed"))
})
