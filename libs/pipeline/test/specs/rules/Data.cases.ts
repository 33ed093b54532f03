/**
 * The data rules' cases: the verification, extrapolation, dataset and strategy-graph
 * deciders through their specs, on the forum's tasks (fixtures of DataRules.spec.test.ts,
 * StrategyGraph.spec.test.ts, Promotion.spec.test.ts and ValuesKept.spec.test.ts), each
 * run under the rules before a rule's and under the rule's.
 *
 * @example
 * data.sftOrigin // { run, before: [null, null], after: ["demo", "demo"] }
 */
import { addNode, addPath, dataRulesAt, emptyGraph, graphVerdict, nodeIdOf, normalizeKey, pathIdOf } from "@core/domain"
import type { GraphNode, LfResult } from "@core/domain"
import { labelFunctionId, runStream, TrajectoryVerified } from "@core/events"
import type { Action, CoreEvent } from "@core/events"
import { datasets } from "../../../deciders/Datasets.ts"
import { extrapolation } from "../../../deciders/Extrapolation.ts"
import { verification } from "../../../deciders/Rollouts.ts"
import { strategyGraph } from "../../../deciders/StrategyGraph.ts"
import { verdictRules } from "../../../Verification.ts"
import {
  demoIngested,
  demoStep,
  elements,
  event,
  jobCompleted,
  labelFunctionInferred,
  graphOf,
  observation,
  RUN,
  roundCompleted,
  roundExtrapolated,
  roundStarted,
  runStarted,
  taskRegistered,
  trajectoryRecorded,
  trajectoryVerified
} from "../Events.ts"
import type { EventOfType, NodeSpec, RunOptions } from "../Events.ts"
import {
  click,
  commentCount,
  complete,
  openBoard,
  openBoardDemo,
  openBoardGraph,
  openBoardNodes,
  ORIGIN,
  POST,
  roundOneOfBoth,
  search,
  searchPath,
  target,
  tasks,
  trajectory,
  UPVOTE,
  upvote,
  upvoteDemo,
  upvoteNodes
} from "../Forum.ts"
import { dataOf, typesOf } from "@core/engine/testing"
import type { Table } from "./Cases.ts"
import { goalStateReading } from "./GoalStateReading.cases.ts"
import { spec } from "./Cases.ts"

/** A demo step over the spec forum's board page (its elements do not matter to the graph). */
const demoStepOf = (action: Action, before: string, after: string) => demoStep(action, before, after, null)

/** The paths the strategy graph adds when the upvote task's demo has been inferred under `v`: each as its evidence and its nodes' kinds. */
const pathsInferred = async (v: string, demo: EventOfType<"DemoIngested">, nodes: ReadonlyArray<NodeSpec>) => {
  const source = { kind: "demo" as const, id: demo.data.demoId }
  const given = [
    ...tasks,
    demo,
    runStarted({ tasks: [upvote.taskId], demos: "all", dataRules: v as RunOptions["dataRules"] }),
    ...nodes.map((n, i) => labelFunctionInferred(upvote.taskId, source, n, i))
  ]
  const done = jobCompleted({ jobId: `infer-${demo.data.demoId}`, outcome: "done" }, { stream: runStream(RUN, "infer", demo.data.demoId) })
  const { events } = await spec(strategyGraph).given(given).when(done).run()
  const kinds = new Map(dataOf(events, "NodeExpanded").map((n) => [n.nodeId, n.semanticKey.actionKind]))
  return dataOf(events, "PathAdded").map((p) => `${p.evidence ?? "way"}: ${p.nodeIds.map((id) => kinds.get(id)).join(", ")}`)
}

const world = (v: string) => roundOneOfBoth({ dataRules: v as RunOptions["dataRules"] })
/** Upvote the post, then `later`, then complete: on the post page, with its votes' pressed state. */
const upvoted = (id: string, later: ReadonlyArray<{ readonly action: Action; readonly page: string }>) => {
  const DOWNVOTE = `Downvote post '${POST}'`
  const post = (up: boolean, down: boolean) =>
    elements(
      "/forum/post/p25",
      ["heading", POST],
      ["button", UPVOTE, { text: "Upvote", checked: up }],
      ["button", DOWNVOTE, { text: "Downvote", checked: down }]
    )
  const atPost = (path: string, page: string) => observation(`${ORIGIN}${path}`, page)
  return {
    downvote: { action: click("button", DOWNVOTE), page: post(false, true) },
    recorded: trajectoryRecorded({
      trajectoryId: id,
      taskId: upvote.taskId,
      initial: atPost("/forum/", elements("/forum/", ["searchbox", "Search posts"], ["link", POST])),
      steps: [
        {
          action: search(POST),
          observation: atPost(searchPath(POST), elements(searchPath(POST), ["searchbox", "Search posts"], ["link", POST]))
        },
        { action: click("link", POST), observation: atPost("/forum/post/p25", post(false, false)) },
        { action: click("button", UPVOTE), observation: atPost("/forum/post/p25", post(true, false)) },
        ...later.map((l) => ({ action: l.action, observation: atPost("/forum/post/p25", l.page) })),
        { action: complete, observation: atPost("/forum/post/p25", later.at(-1)?.page ?? post(true, false)) }
      ]
    })
  }
}
const verdictOf = async (v: string, t: CoreEvent) =>
  dataOf((await spec(verification).given(world(v)).when(t).run()).events, "TrajectoryVerified")[0]!

const extrapolated = async (v: string, steps: ReadonlyArray<readonly [Action, string]>) => {
  const walked = [
    trajectory("r1-s0-forum-open-board-1", openBoard.taskId, steps),
    trajectoryVerified({ trajectoryId: "r1-s0-forum-open-board-1", taskId: openBoard.taskId, verdict: "fail" })
  ]
  return dataOf(
    (
      await spec(extrapolation)
        .given([...world(v), ...walked])
        .when(roundCompleted(1))
        .run()
    ).events,
    "TaskExtrapolated"
  )[0]!
}

/** A pass that looked at Gardening first, and a fail: round 1 of the open-board task, under `v`. */
const detouredRound = (v: string) => {
  const [cycling, done] = openBoardNodes.map((n) => ({ nodeId: nodeIdOf(n.semanticKey), lfId: labelFunctionId(n.code) }))
  return [
    ...tasks,
    openBoardDemo,
    runStarted({ tasks: [openBoard.taskId], demos: "all", dataRules: v as RunOptions["dataRules"] }),
    ...openBoardGraph,
    roundStarted({ round: 1, taskIds: [openBoard.taskId] }),
    trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [
      [click("link", "Gardening"), "/forum/b/gardening"],
      [click("link", "CORE Forum home"), "/forum/"],
      [click("link", "Cycling"), "/forum/b/cycling"],
      [complete, "/forum/b/cycling"]
    ]),
    event(TrajectoryVerified, runStream(RUN, "traj", "r1-s0-forum-open-board-1"), {
      trajectoryId: "r1-s0-forum-open-board-1",
      taskId: openBoard.taskId,
      verdict: "pass",
      evidence: [],
      path: [cycling!.nodeId, done!.nodeId],
      matched: [
        { ...cycling!, satisfiedAt: 2 },
        { ...done!, satisfiedAt: 3 }
      ]
    }),
    trajectory("r1-s1-forum-open-board-1", openBoard.taskId, [
      [click("link", "Books"), "/forum/b/books"],
      [complete, "/forum/b/books"]
    ]),
    trajectoryVerified({ trajectoryId: "r1-s1-forum-open-board-1", taskId: openBoard.taskId, verdict: "fail" })
  ]
}
const records = async (round: number, given: ReadonlyArray<CoreEvent>) =>
  dataOf((await spec(datasets).given(given).when(roundExtrapolated(round)).run()).events, "DatasetRecordEmitted").map(
    (r) => [r.format, r.body as { readonly meta: Readonly<Record<string, unknown>> }] as const
  )

/** The comment-count task's graph in round 1 under `v`, then trajectory `id` partial with `evidence`: what the strategy graph decides. */
const expanded = async (v: string, id: string, steps: ReadonlyArray<readonly [Action, string]>, evidence: ReadonlyArray<number>) => {
  const { task, demo, nodes } = commentCount
  const ids = nodes.map((n) => labelFunctionId(n.code))
  const given = [
    taskRegistered(task),
    demo,
    runStarted({ tasks: [task.taskId], demos: "all", dataRules: v as RunOptions["dataRules"] }),
    ...graphOf(task.taskId, { kind: "demo", id: demo.data.demoId }, nodes),
    roundStarted({ round: 1, taskIds: [task.taskId] }),
    trajectory(id, task.taskId, steps)
  ]
  const verdict = trajectoryVerified({
    trajectoryId: id,
    taskId: task.taskId,
    verdict: "partial",
    evidence: Object.fromEntries(ids.map((lfId, i) => [lfId, evidence[i]!]))
  })
  return typesOf((await spec(strategyGraph).given(given).when(verdict).run()).events).filter((t) => t !== "LabelFunctionInferred")
}
/** Searched for the post, then answered "3" on the results list; each rule's case is its own rollout (the sandbox keeps a trajectory by its id). */
const fromList = (v: string, sample: number) =>
  expanded(
    v,
    `r1-s${sample}-forum-comment-count-1`,
    [
      [search(POST), searchPath(POST)],
      [commentCount.said, searchPath(POST)]
    ],
    [0, -1, 1]
  )

/**
 * A comment written on the post and sent, then the same form filled with another comment and
 * sent too, then complete: every LF held where the first comment was, under `v`.
 */
const commentedTwice = async (v: string) => {
  const task = { taskId: "forum-comment-1", instruction: `Comment "Nice" on the post "${POST}".` }
  const FIELD = "Comment"
  const SEND = "Post comment"
  const at = "^/forum/post/p25(\\?.*)?$"
  const nodes = [
    {
      keyStepIndex: 0,
      description: `Type text 'Nice' into the '${FIELD}'.`,
      code: `function labelFunction(t) {\n  return validateType(t, "Nice", "${FIELD}")\n}\n`,
      semanticKey: { actionKind: "type", role: "textbox", name: FIELD.toLowerCase(), value: "nice", urlPattern: at }
    },
    {
      keyStepIndex: 1,
      description: `Click on a UI element '${SEND}' (button) on the screen.`,
      code: `function labelFunction(t) {\n  return validateClick(t, "button", "${SEND}")\n}\n`,
      semanticKey: { actionKind: "click", role: "button", name: SEND.toLowerCase(), value: null, urlPattern: at }
    },
    {
      keyStepIndex: 2,
      description: "Set the task's status as 'complete'.",
      code: 'function labelFunction(t) {\n  return validateStatus(t, "complete")\n}\n',
      semanticKey: { actionKind: "status", role: null, name: null, value: "complete", urlPattern: at }
    }
  ] as const
  const write = (text: string): Action => ({
    kind: "type",
    target: { role: "textbox", name: FIELD, elementId: null, text: "" },
    text,
    submit: false
  })
  const given = [
    taskRegistered(task),
    runStarted({ tasks: [task.taskId], demos: "all", dataRules: v as RunOptions["dataRules"] }),
    ...graphOf(task.taskId, { kind: "demo", id: "forum-comment-1-script" }, nodes),
    roundStarted({ round: 1, taskIds: [task.taskId] })
  ]
  const recorded = trajectory(`r1-s${70 + Number(v)}-forum-comment-1`, task.taskId, [
    [click("link", POST), "/forum/post/p25"],
    [write("Nice"), "/forum/post/p25"],
    [click("button", SEND), "/forum/post/p25"],
    [write("Nice, but on second thought no"), "/forum/post/p25"],
    [click("button", SEND), "/forum/post/p25"],
    [complete, "/forum/post/p25"]
  ])
  return dataOf((await spec(verification).given(given).when(recorded).run()).events, "TrajectoryVerified")[0]!.verdict
}

export const data: Table["data"] = {
  ...goalStateReading,
  pathsByMeaning: {
    // A second demo that clicked "Cycling board" to the same board: its LFs are the first's, so by meaning it is the same way.
    run: async (v) => {
      const steps = openBoardDemo.data.steps.map((st, i) => (i === 0 ? { ...st, action: click("link", "Cycling board") } : st))
      const again = demoIngested({ demoId: "forum-open-board-1-again", taskId: openBoard.taskId, steps })
      const lfs = openBoardNodes.map((n, i) =>
        labelFunctionInferred(openBoard.taskId, { kind: "demo", id: "forum-open-board-1-again" }, n, i)
      )
      const run = runStarted({ tasks: [openBoard.taskId], demos: "all", dataRules: v as RunOptions["dataRules"] })
      const done = jobCompleted(
        { jobId: "infer-forum-open-board-1-again", outcome: "done" },
        { stream: runStream(RUN, "infer", "forum-open-board-1-again") }
      )
      const given = [...tasks, openBoardDemo, again, run, ...openBoardGraph, ...lfs]
      return typesOf((await spec(strategyGraph).given(given).when(done).run()).events)
    },
    before: ["NodeExpanded", "PathAdded"],
    after: []
  },
  commutesAndRefusesUndone: {
    run: async (v) => {
      const t = upvoted("r1-s0-forum-upvote-1", [])
      return (await verdictOf(v, upvoted("r1-s0-forum-upvote-1", [t.downvote]).recorded)).verdict
    },
    before: "pass",
    after: "partial"
  },
  recordsMatched: {
    run: async (v) => {
      const verdict = await verdictOf(v, upvoted("r1-s1-forum-upvote-1", []).recorded)
      return { verdict: verdict.verdict, matched: verdict.matched !== undefined }
    },
    before: { verdict: "pass", matched: false },
    after: { verdict: "pass", matched: true }
  },
  prunesPseudoDemos: {
    run: async (v) =>
      (
        await extrapolated(v, [
          [click("link", "Gardening"), "/forum/b/gardening"],
          [click("link", "CORE Forum home"), "/forum/"],
          [click("link", "Books"), "/forum/b/books"],
          [complete, "/forum/b/books"]
        ])
      ).pseudoDemoSteps,
    before: 4,
    after: 2
  },
  subGoalsAugment: {
    run: async (v) =>
      (
        await extrapolated(v, [
          [click("link", "Books"), "/forum/b/books"],
          [click("link", "CORE Forum home"), "/forum/"]
        ])
      ).generator,
    before: "failure-relabel",
    after: "success-augmentation"
  },
  creditsPreferences: {
    run: async (v) => {
      const [pair] = (await records(1, detouredRound(v))).filter(([format]) => format === "dpo")
      return (pair![1].meta.action as { target: { name: string } }).target.name
    },
    before: "Gardening",
    after: "Cycling"
  },
  sftOrigin: {
    run: async (v) => {
      const given = [
        ...tasks,
        openBoardDemo,
        runStarted({ tasks: [openBoard.taskId], demos: "all", dataRules: v as RunOptions["dataRules"] }),
        ...openBoardGraph
      ]
      const sft = (await records(0, given)).filter(([format]) => format === "sft")
      return sft.map(([, body]) => (body.meta.origin as { kind?: string } | undefined)?.kind ?? null)
    },
    before: [null, null],
    after: ["demo", "demo"]
  },
  answerAlone: {
    // The right answer read on the results list, not on the post page the demo read it on.
    run: async (v) => (await fromList(v, 20 + Number(v))).includes("PathAdded"),
    before: false,
    after: true
  },
  dropsNoOpPaths: {
    // An empty search that stayed on the home page, then the right answer: the search did nothing.
    run: async (v) =>
      expanded(
        v,
        `r1-s${30 + Number(v)}-forum-comment-count-1`,
        [
          [search(""), "/forum/"],
          [commentCount.said, "/forum/"]
        ],
        [-1, -1, 1]
      ),
    before: ["NodeExpanded", "PathAdded"],
    after: ["PathRefused"]
  },
  promotesSolvedPartials: {
    run: async (v) => fromList(v, 50 + Number(v)),
    before: ["PathAdded"],
    after: ["PathAdded", "TrajectoryPromoted"]
  },
  refusesPathsWithoutValues: {
    // Answered "3" on the home page: the demo's answer, without ever entering the post's title.
    run: async (v) => expanded(v, `r1-s${60 + Number(v)}-forum-comment-count-1`, [[commentCount.said, "/forum/"]], [-1, -1, 0]),
    before: ["PathAdded", "TrajectoryPromoted"],
    after: ["PathRefused"]
  },
  refusesRedoneGoals: {
    run: commentedTwice,
    before: "pass",
    after: "partial"
  },
  addsGoalStatePaths: {
    // The upvote demo's inference done: its path, and then the path of its upvote and claim without the search and the link.
    run: (v) => pathsInferred(v, upvoteDemo, upvoteNodes),
    before: ["way: type, click, click, status"],
    after: ["way: type, click, click, status", "goal-state: click, status"]
  },
  goalStateByQueries: {
    // A board sorted by a select its Apply button carried into the URL, then its top post opened: the sort found the post.
    run: async (v) => {
      const sorted = "/forum/b/gardening?sort=top"
      const demo = demoIngested({
        demoId: "forum-upvote-1-sorted",
        taskId: upvote.taskId,
        steps: [
          demoStepOf(click("link", "Gardening"), "/forum/", "/forum/b/gardening"),
          demoStepOf({ kind: "select", target: target("combobox", "Sort by"), value: "top" }, "/forum/b/gardening", "/forum/b/gardening"),
          demoStepOf(click("button", "Apply"), "/forum/b/gardening", sorted),
          demoStepOf(click("link", POST), sorted, "/forum/post/p25"),
          demoStepOf(complete, "/forum/post/p25", "/forum/post/p25")
        ]
      })
      const nodes = [1, 2, 3, 4].map((keyStepIndex) => ({
        keyStepIndex,
        description: `key step ${keyStepIndex}`,
        code: `function labelFunction(t) {\n  return ${keyStepIndex}\n}\n`,
        semanticKey: { actionKind: "click" as const, role: null, name: null, value: null, urlPattern: null }
      }))
      return pathsInferred(v, demo, nodes)
    },
    before: ["way: select, click, click, status", "goal-state: select, click, status"],
    after: ["way: select, click, click, status", "goal-state: click, status"]
  },
  fieldsFilledAtOnce: {
    // A booking form's name and email, typed one by one in the demo, both shown after one "Fill in from saved traveller" press.
    run: (v) => {
      const field = (name: string, lfId: string, kind: "type" | "click" = "type"): GraphNode => {
        const semanticKey = normalizeKey({ actionKind: kind, role: "textbox", name, value: null, urlPattern: "^/booking/2(\\?.*)?$" })
        return { nodeId: nodeIdOf(semanticKey), lfId, description: name, semanticKey, how: "demo", source: { kind: "demo", id: "d" } }
      }
      const nodes = [field("Full name", "lf-name"), field("Email", "lf-email"), field("Continue", "lf-continue", "click")]
      const nodeIds = nodes.map((n) => n.nodeId)
      const g = addPath(
        nodes.reduce((g, n) => addNode(g, n), emptyGraph("travel-book")),
        { pathId: pathIdOf("travel-book", nodeIds), nodeIds, source: { kind: "demo", id: "d" } }
      )
      // The prefill at step 0 shows both fields; Continue is step 1.
      const at: Record<string, number> = { "lf-name": 0, "lf-email": 0, "lf-continue": 1 }
      const known = (q: { lfId: string; from: number }): LfResult => ({ satisfiedAt: (at[q.lfId] ?? -1) >= q.from ? at[q.lfId]! : -1 })
      const step = graphVerdict(g, known, verdictRules(dataRulesAt(v), g, { steps: [], startUrl: "/booking/2", initialElements: null }))
      return step.kind === "done" ? step.verdict.verdict : "pending"
    },
    before: "partial",
    after: "pass"
  }
}
