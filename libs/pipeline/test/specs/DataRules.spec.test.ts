/**
 * The data rules of version 2, decider by decider: a verdict refuses a goal undone before
 * the claim, extrapolation prunes a pseudo-demo to what its task needs and closes it,
 * and a preference pair prefers only a credited step. Each case also shows that a run
 * recorded before those rules (no `run.dataRules`) is decided as it always was.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { extrapolatedTaskId, nodeIdOf } from "@core/domain"
import { labelFunctionId, runStream, sha256, TrajectoryVerified } from "@core/events"
import type { CoreEvent } from "@core/events"
import { datasets } from "../../deciders/Datasets.ts"
import { extrapolation } from "../../deciders/Extrapolation.ts"
import { verification } from "../../deciders/Rollouts.ts"
import {
  elements,
  event,
  observation,
  RUN,
  roundCompleted,
  roundExtrapolated,
  roundStarted,
  runStarted,
  taskExtrapolated,
  trajectoryRecorded,
  trajectoryVerified
} from "./Events.ts"
import type { RunOptions } from "./Events.ts"
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
  roundOneOfBoth
} from "./Forum.ts"
import { dataOf, deciderSpecs } from "@core/engine/testing"
import { specKit } from "./Kit.ts"

const { spec, dispose } = deciderSpecs("data-rules", specKit)
afterAll(dispose)

const V2: RunOptions = { dataRules: "2" }
const world = roundOneOfBoth

describe("verification: no pass after an undo", () => {
  const DOWNVOTE = `Downvote post '${POST}'`
  /** The post page with the votes' pressed state and the comment box's text. */
  const post = (up: boolean, down: boolean, comment = "") =>
    elements(
      "/forum/post/p25",
      ["heading", POST],
      ["button", UPVOTE, { text: "Upvote", checked: up }],
      ["button", DOWNVOTE, { text: "Downvote", checked: down }],
      ["textbox", "Comment", { value: comment }],
      ["button", "Post comment"]
    )
  const at = (path: string, page: string) => observation(`${ORIGIN}${path}`, page)
  const upvoted = (id: string, later: ReadonlyArray<{ action: ReturnType<typeof click>; page: string }>) =>
    trajectoryRecorded({
      trajectoryId: id,
      taskId: upvote.taskId,
      initial: at("/forum/", elements("/forum/", ["searchbox", "Search posts"], ["link", POST])),
      steps: [
        {
          action: search(POST),
          observation: at(searchPath(POST), elements(searchPath(POST), ["searchbox", "Search posts"], ["link", POST]))
        },
        { action: click("link", POST), observation: at("/forum/post/p25", post(false, false)) },
        { action: click("button", UPVOTE), observation: at("/forum/post/p25", post(true, false)) },
        ...later.map((l) => ({ action: l.action, observation: at("/forum/post/p25", l.page) })),
        { action: complete, observation: at("/forum/post/p25", later.at(-1)?.page ?? post(true, false)) }
      ]
    })
  const undo = upvoted("r1-s0-forum-upvote-1", [{ action: click("button", DOWNVOTE), page: post(false, true) }])
  const comment = upvoted("r1-s1-forum-upvote-1", [
    {
      action: {
        kind: "type",
        target: { role: "textbox", name: "Comment", elementId: null, text: "" },
        text: "nice",
        submit: false
      } as never,
      page: post(true, false, "nice")
    },
    { action: click("button", "Post comment"), page: post(true, false) }
  ])
  const cases = [
    {
      name: "upvote, downvote, complete under the data rules 2: partial, the path named as undone",
      o: V2,
      t: undo,
      verdict: "partial",
      undone: true
    },
    { name: "upvote, comment, complete under the data rules 2: pass, the vote stands", o: V2, t: comment, verdict: "pass", undone: false },
    {
      name: "upvote, downvote, complete in a run before the rules: pass, as it was decided then",
      o: {},
      t: undo,
      verdict: "pass",
      undone: false
    }
  ] as const
  for (const c of cases) {
    test(c.name, () =>
      spec(verification)
        .given(world(c.o))
        .when(c.t)
        .then((events) => {
          const [v] = dataOf(events, "TrajectoryVerified")
          expect(v!.verdict).toBe(c.verdict)
          expect((v!.undone ?? []).length).toBe(c.undone ? 1 : 0)
          // Under the rules 2 a pass records the steps its path's LFs held at: what a dataset credits.
          expect(v!.matched === undefined).toBe(!(c.o === V2 && c.verdict === "pass"))
        })
    )
  }
})

describe("extrapolation: a pseudo-demo is what its task needs, closed", () => {
  const books = extrapolatedTaskId(openBoard.taskId, sha256("Open the Books board."))
  /** Gardening, back home, Books, complete: a walk before the way to Books. */
  const walked = [
    trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [
      [click("link", "Gardening"), "/forum/b/gardening"],
      [click("link", "CORE Forum home"), "/forum/"],
      [click("link", "Books"), "/forum/b/books"],
      [complete, "/forum/b/books"]
    ]),
    trajectoryVerified({ trajectoryId: "r1-s0-forum-open-board-1", taskId: openBoard.taskId, verdict: "fail" })
  ]
  /** Books, then on to the home page: the sub-goal was reached on the way, never claimed. */
  const walkedOn = [
    trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [
      [click("link", "Books"), "/forum/b/books"],
      [click("link", "CORE Forum home"), "/forum/"]
    ]),
    trajectoryVerified({ trajectoryId: "r1-s0-forum-open-board-1", taskId: openBoard.taskId, verdict: "fail" })
  ]

  test("given a failed walk that ended on Books, then under the rules 2 the loop is dropped: Books and complete", () =>
    spec(extrapolation)
      .given([...world(V2), ...walked])
      .when(roundCompleted(1))
      .then((events) => {
        expect(dataOf(events, "TaskExtrapolated")[0]).toMatchObject({
          newTaskId: books,
          generator: "failure-relabel",
          pseudoDemoSteps: 2,
          pseudoDemoStepIndices: [2, 3],
          pseudoDemoAddsClosing: false
        })
        expect(dataOf(events, "PathAdded")[0]!.signature).toBeString()
      }))

  test("given the same walk in a run before the rules, then the whole prefix, as then", () =>
    spec(extrapolation)
      .given([...world({}), ...walked])
      .when(roundCompleted(1))
      .then((events) => {
        const x = dataOf(events, "TaskExtrapolated")[0]!
        expect(x.pseudoDemoSteps).toBe(4)
        expect(x.pseudoDemoStepIndices).toBeUndefined()
      }))

  test("given a run that opened Books and walked on, then under the rules 2 a sub-goal: success-augmentation, closed with an added claim", () =>
    spec(extrapolation)
      .given([...world(V2), ...walkedOn])
      .when(roundCompleted(1))
      .then((events) => {
        expect(dataOf(events, "TaskExtrapolated")[0]).toMatchObject({
          generator: "success-augmentation",
          pseudoDemoStepIndices: [0],
          pseudoDemoAddsClosing: true
        })
        // The added claim is a key step of the pseudo-demo: its task's path ends with a status.
        expect(dataOf(events, "NodeExpanded").map((n) => n.semanticKey.actionKind)).toEqual(["click", "status"])
      }))

  test("given it in a run before the rules, then failure-relabel of a one-step prefix, as then", () =>
    spec(extrapolation)
      .given([...world({}), ...walkedOn])
      .when(roundCompleted(1))
      .then((events) => expect(dataOf(events, "TaskExtrapolated")[0]).toMatchObject({ generator: "failure-relabel", pseudoDemoSteps: 1 })))
})

describe("datasets: preference pairs with credit", () => {
  const [cycling, done] = openBoardNodes.map((n) => ({ nodeId: nodeIdOf(n.semanticKey), lfId: labelFunctionId(n.code) }))
  /** A pass that first looked at Gardening and came back, then did the demo's way. */
  const detoured = trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [
    [click("link", "Gardening"), "/forum/b/gardening"],
    [click("link", "CORE Forum home"), "/forum/"],
    [click("link", "Cycling"), "/forum/b/cycling"],
    [complete, "/forum/b/cycling"]
  ])
  const passed = event(TrajectoryVerified, runStream(RUN, "traj", "r1-s0-forum-open-board-1"), {
    trajectoryId: "r1-s0-forum-open-board-1",
    taskId: openBoard.taskId,
    verdict: "pass",
    evidence: [],
    path: [cycling!.nodeId, done!.nodeId],
    matched: [
      { ...cycling!, satisfiedAt: 2 },
      { ...done!, satisfiedAt: 3 }
    ]
  })
  const failed = [
    trajectory("r1-s1-forum-open-board-1", openBoard.taskId, [
      [click("link", "Books"), "/forum/b/books"],
      [complete, "/forum/b/books"]
    ]),
    trajectoryVerified({ trajectoryId: "r1-s1-forum-open-board-1", taskId: openBoard.taskId, verdict: "fail" })
  ]
  const round1 = (o: RunOptions) => [
    ...tasks,
    openBoardDemo,
    runStarted({ tasks: [openBoard.taskId], demos: "all", ...o }),
    ...openBoardGraph,
    roundStarted({ round: 1, taskIds: [openBoard.taskId] }),
    detoured,
    passed,
    ...failed
  ]
  const pairs = (events: ReadonlyArray<CoreEvent>) =>
    dataOf(events, "DatasetRecordEmitted")
      .filter((r) => r.format === "dpo")
      .map((r) => {
        const b = r.body as {
          chosen: ReadonlyArray<{ content: string }>
          rejected: ReadonlyArray<{ content: string }>
          meta: Record<string, unknown>
        }
        return { chosen: b.chosen[0]!.content, rejected: b.rejected[0]!.content, meta: b.meta }
      })

  test("under the rules 2, the detour is never chosen: Cycling (a key step) against Books, on the same home page", () =>
    spec(datasets)
      .given(round1(V2))
      .when(roundExtrapolated(1))
      .then((events) => {
        const [pair, ...rest] = pairs(events)
        expect(rest).toEqual([])
        expect(pair!.meta).toMatchObject({
          action: { target: { name: "Cycling" } },
          step: 2,
          rejected_step: 0,
          credit_rule: "2",
          credited: { node_id: cycling!.nodeId, role: "key-step" }
        })
      }))

  test("in a run before the rules, the pair is where the two parted: the detour to Gardening is chosen, as then", () =>
    spec(datasets)
      .given(round1({}))
      .when(roundExtrapolated(1))
      .then((events) => {
        const [pair] = pairs(events)
        expect(pair!.meta).toMatchObject({ action: { target: { name: "Gardening" } }, step: 0 })
        expect(pair!.meta.credited).toBeUndefined()
      }))

  /** Each sft record's task and trajectory with its `meta.origin`. */
  const origins = (events: ReadonlyArray<CoreEvent>) =>
    dataOf(events, "DatasetRecordEmitted")
      .filter((r) => r.format === "sft")
      .map((r) => [r.taskId, (r.body as { meta: { origin?: unknown } }).meta.origin] as const)
  const books = taskExtrapolated({
    newTaskId: "x-open-books",
    instruction: "Open the Books board.",
    parentTaskId: openBoard.taskId,
    pseudoDemoTrajectoryId: "r1-s1-forum-open-board-1",
    pseudoDemoSteps: 2
  })

  test("under the rules 3, every sft record says where its steps came from: a verified pass, a pseudo-demo and its parent", () =>
    spec(datasets)
      .given([...round1({ dataRules: "3" }), books])
      .when(roundExtrapolated(1, ["x-open-books"]))
      .then((events) => {
        const all = origins(events)
        const verified = { kind: "verified", trajectory_id: "r1-s0-forum-open-board-1" }
        expect(all.filter(([task]) => task === openBoard.taskId).map(([, o]) => o)).toEqual([verified, verified, verified, verified])
        const pseudo = {
          kind: "pseudo-demo",
          parent_trajectory: "r1-s1-forum-open-board-1",
          parent_task: openBoard.taskId,
          generator: "success-augmentation"
        }
        expect(all.filter(([task]) => task === "x-open-books").map(([, o]) => o)).toEqual([pseudo, pseudo])
      }))

  test("under the rules 3 the demos' records of round 0 name their demo; under the rules 2 no record has an origin", async () => {
    const demos = await spec(datasets)
      .given([...tasks, openBoardDemo, runStarted({ tasks: [openBoard.taskId], demos: "all", dataRules: "3" }), ...openBoardGraph])
      .when(roundExtrapolated(0))
      .run()
    const demoId = dataOf([openBoardDemo], "DemoIngested")[0]!.demoId
    expect(origins(demos.events).map(([, o]) => o)).toEqual([
      { kind: "demo", demo_id: demoId },
      { kind: "demo", demo_id: demoId }
    ])
    const before = await spec(datasets)
      .given([...round1(V2), books])
      .when(roundExtrapolated(1, ["x-open-books"]))
      .run()
    expect(origins(before.events).length).toBeGreaterThan(0)
    expect(origins(before.events).every(([, o]) => o === undefined)).toBe(true)
  })
})
