/**
 * A small forum for the decider specs, modelled on the recorded fixture run
 * (tests/fixtures/replay-run): its pages' element lists, two tasks with their demos and the
 * label functions inference gives them, a held-out task, recorded trajectories over the
 * pages, and the same pages as an in-memory environment a rollout can act in.
 *
 * @example
 * const t = trajectory("r1-s0-forum-open-board-1", openBoard.taskId, [[click("link", "Cycling"), "/forum/b/cycling"], [complete, "/forum/b/cycling"]])
 */
import { Effect, Layer } from "effect"
import { Observations } from "@core/engine"
import type { Observed } from "@core/engine"
import type { Action, CoreEvent } from "@core/events"
import {
  demoIngested,
  demoStep,
  elements,
  graphOf,
  jobQueued,
  observation,
  pendingBlobs,
  roundStarted,
  runStarted,
  taskRegistered,
  trajectoryRecorded
} from "./Events.ts"
import type { EventOfType, NodeSpec, RunOptions, TaskOptions, TrajectoryData } from "./Events.ts"

/** Where rollouts play: trajectories record whole URLs, demos only paths. */
export const ORIGIN = "http://forum.test"
export const POST = "Beginner question about tomatoes"
export const UPVOTE = `Upvote post '${POST}'`
/** The results page of a search, as the forum names it. */
export const searchPath = (text: string): string => `/forum/search?q=${text.replaceAll(" ", "+")}`
const SEARCH = searchPath(POST)

const home = elements(
  "/forum/",
  ["searchbox", "Search posts"],
  ["button", "Search"],
  ["link", "Gardening"],
  ["link", "Cycling"],
  ["link", "Books"],
  ["link", "Photography"],
  ["link", POST]
)
const board = (name: string, ...posts: ReadonlyArray<string>) =>
  elements(`/forum/b/${name.toLowerCase()}`, ["heading", name], ["link", "CORE Forum home"], ...posts.map((p) => ["link", p] as const))

/** Each page's element list, by path. */
export const pages: Readonly<Record<string, string>> = {
  "/forum/": home,
  "/forum/b/cycling": board("Cycling", "Tubeless tyres: worth it?"),
  "/forum/b/books": board("Books", "Anyone else obsessed with book clubs?"),
  "/forum/b/gardening": board("Gardening", POST),
  "/forum/b/photography": board("Photography", "Which lens for birds?"),
  [SEARCH]: elements(SEARCH, ["searchbox", "Search posts"], ["link", POST]),
  "/forum/post/p25": elements(
    "/forum/post/p25",
    ["heading", POST],
    ["button", UPVOTE, { text: "Upvote" }],
    ["button", `Downvote post '${POST}'`, { text: "Downvote" }]
  )
}

/** A page's element list; every search shows the same results. */
export const pageAt = (path: string): string => {
  const hash = pages[path] ?? (path.startsWith("/forum/search?") ? pages[SEARCH] : undefined)
  if (hash === undefined) throw new Error(`the spec forum has no page ${path}`)
  return hash
}

export const target = (role: string, name: string) => ({ role, name, elementId: null, text: name })
export const click = (role: string, name: string): Action => ({ kind: "click", target: target(role, name) })
export const search = (text: string): Action => ({ kind: "type", target: target("searchbox", "Search posts"), text, submit: true })
export const complete: Action = { kind: "status", status: "complete" }

// --- tasks and demos ---

export const openBoard: TaskOptions = {
  taskId: "forum-open-board-1",
  instruction: "Open the Cycling board.",
  template: { id: "forum-open-board", parameters: { board: "Cycling" } }
}
export const upvote: TaskOptions = {
  taskId: "forum-upvote-1",
  instruction: `Upvote the post "${POST}".`,
  template: { id: "forum-upvote", parameters: { post: POST } }
}
/** Held out: a generated task must not come near it. */
export const heldOutBoard: TaskOptions = {
  taskId: "forum-open-board-3",
  instruction: "Open the Photography board.",
  template: { id: "forum-open-board", parameters: { board: "Photography" } }
}
export const tasks: ReadonlyArray<CoreEvent> = [openBoard, upvote, heldOutBoard].map(taskRegistered)

/** Round 1's one rollout of the Cycling board task, four steps at most. */
export const openBoardRollout1 = jobQueued({
  jobId: "rollout-r1-s0-forum-open-board-1",
  kind: "rollout",
  round: 1,
  taskId: openBoard.taskId,
  params: { trajectoryId: "r1-s0-forum-open-board-1", sample: 0, stepBudget: 4 }
})

export const openBoardDemo = demoIngested({
  demoId: "forum-open-board-1-script",
  taskId: openBoard.taskId,
  steps: [
    demoStep(click("link", "Cycling"), "/forum/", "/forum/b/cycling", pageAt("/forum/b/cycling")),
    demoStep(complete, "/forum/b/cycling", "/forum/b/cycling", pageAt("/forum/b/cycling"))
  ]
})

export const upvoteDemo = demoIngested({
  demoId: "forum-upvote-1-script",
  taskId: upvote.taskId,
  steps: [
    demoStep(search(POST), "/forum/", SEARCH, pageAt(SEARCH)),
    demoStep(click("link", POST), SEARCH, "/forum/post/p25", pageAt("/forum/post/p25")),
    demoStep(click("button", UPVOTE), "/forum/post/p25", "/forum/post/p25", pageAt("/forum/post/p25")),
    demoStep(complete, "/forum/post/p25", "/forum/post/p25", pageAt("/forum/post/p25"))
  ]
})

const lf = (body: string) => `function labelFunction(t) {\n  return ${body}\n}\n`
const re = (path: string) => `"^${path}(\\\\?.*)?$"`

/** The label functions inference gives the open-board demo (LabelInference.spec checks it), one node each. */
export const openBoardNodes: ReadonlyArray<NodeSpec> = [
  {
    keyStepIndex: 0,
    description: "Click on a UI element 'Cycling' (link) on the screen.",
    code: lf(`validateUrl(t, ${re("/forum/b/cycling")})`),
    semanticKey: { actionKind: "click", role: "link", name: "cycling", value: null, urlPattern: "^/forum/(\\?.*)?$" }
  },
  {
    keyStepIndex: 1,
    description: "Set the task's status as 'complete'.",
    code: lf(`validateStatus(t, "complete", { urlBefore: ${re("/forum/b/cycling")} })`),
    semanticKey: { actionKind: "status", role: null, name: null, value: "complete", urlPattern: "^/forum/b/cycling(\\?.*)?$" }
  }
]

/** The upvote demo's: search, open the post, upvote, say complete. */
export const upvoteNodes: ReadonlyArray<NodeSpec> = [
  {
    keyStepIndex: 0,
    description: `Type text '${POST}' into the 'Search posts' and press Enter.`,
    code: lf(`validateType(t, "${POST}", "Search posts")`),
    semanticKey: { actionKind: "type", role: "searchbox", name: "search posts", value: POST.toLowerCase(), urlPattern: "^/forum/(\\?.*)?$" }
  },
  {
    keyStepIndex: 1,
    description: `Click on a UI element '${POST}' (link) on the screen.`,
    code: lf(`validateUrl(t, ${re("/forum/post/p25")})`),
    semanticKey: { actionKind: "click", role: "link", name: POST.toLowerCase(), value: null, urlPattern: "^/forum/search(\\?.*)?$" }
  },
  {
    keyStepIndex: 2,
    description: `Click on a UI element '${UPVOTE}' (button) on the screen.`,
    code: lf(`validateClick(t, "button", "${UPVOTE}", { urlBefore: ${re("/forum/post/p25")} })`),
    semanticKey: { actionKind: "click", role: "button", name: UPVOTE.toLowerCase(), value: null, urlPattern: "^/forum/post/p25(\\?.*)?$" }
  },
  {
    keyStepIndex: 3,
    description: "Set the task's status as 'complete'.",
    code: lf(`validateStatus(t, "complete", { urlBefore: ${re("/forum/post/p25")} })`),
    semanticKey: { actionKind: "status", role: null, name: null, value: "complete", urlPattern: "^/forum/post/p25(\\?.*)?$" }
  }
]

const demoSource = (demo: EventOfType<"DemoIngested">) => ({ kind: "demo" as const, id: demo.data.demoId })

/** The open-board task's graph as the run built it from its demo: LFs, nodes, one path. */
export const openBoardGraph = graphOf(openBoard.taskId, demoSource(openBoardDemo), openBoardNodes)
export const upvoteGraph = graphOf(upvote.taskId, demoSource(upvoteDemo), upvoteNodes)

/** Both tasks registered with their demos and graphs, in a run (of `o`) whose round 1 has just started. */
export const roundOneOfBoth = (o: RunOptions = {}): ReadonlyArray<CoreEvent> => [
  ...tasks,
  openBoardDemo,
  upvoteDemo,
  runStarted({ tasks: [openBoard.taskId, upvote.taskId], demos: "all", ...o }),
  ...openBoardGraph,
  ...upvoteGraph,
  roundStarted({ round: 1, taskIds: [openBoard.taskId, upvote.taskId] })
]

/**
 * A question answered where the demo read it: the demo searched, opened the post and read
 * its comment count there (its nodes: the search, the post's page, the answer).
 */
export const commentCount = (() => {
  const task: TaskOptions = {
    taskId: "forum-comment-count-1",
    instruction: `How many comments does the post "${POST}" have?`,
    template: { id: "forum-comment-count", parameters: { post: POST } }
  }
  const said: Action = { kind: "answer", text: "3" }
  const demo = demoIngested({
    demoId: "forum-comment-count-1-script",
    taskId: task.taskId,
    steps: [
      demoStep(search(POST), "/forum/", searchPath(POST), pageAt(searchPath(POST))),
      demoStep(click("link", POST), searchPath(POST), "/forum/post/p25", pageAt("/forum/post/p25")),
      demoStep(said, "/forum/post/p25", "/forum/post/p25", pageAt("/forum/post/p25"))
    ]
  })
  const nodes: ReadonlyArray<NodeSpec> = [
    upvoteNodes[0]!,
    upvoteNodes[1]!,
    {
      keyStepIndex: 2,
      description: "Answer '3'.",
      code: 'function labelFunction(t) {\n  return validateAnswer(t, "3")\n}\n',
      semanticKey: { actionKind: "answer", role: null, name: null, value: "3", urlPattern: null }
    }
  ]
  return { task, said, demo, nodes }
})()

// --- trajectories ---

/** A recorded trajectory from the home page: each action with the path it led to. */
export const trajectory = (
  trajectoryId: string,
  taskId: string,
  steps: ReadonlyArray<readonly [Action, string]>,
  more: Partial<Pick<TrajectoryData, "round" | "sample" | "outcome" | "infraError" | "attempts">> = {}
): CoreEvent =>
  trajectoryRecorded({
    trajectoryId,
    taskId,
    initial: observation(`${ORIGIN}/forum/`, home),
    steps: steps.map(([action, path]) => ({ action, observation: observation(`${ORIGIN}${path}`, pageAt(path)) })),
    ...more
  })

// --- the forum as an environment ---

const linkTo: Readonly<Record<string, string>> = {
  Cycling: "/forum/b/cycling",
  Books: "/forum/b/books",
  Gardening: "/forum/b/gardening",
  Photography: "/forum/b/photography",
  "CORE Forum home": "/forum/",
  [POST]: "/forum/post/p25"
}

/** Where an action leads from a page: links to their pages, a search to the results; anything else stays. */
const next = (path: string, action: Action): string => {
  if (action.kind === "click" && action.target?.role === "link") return linkTo[action.target.name ?? ""] ?? path
  if (action.kind === "type" && action.target?.role === "searchbox" && action.submit === true) return searchPath(action.text)
  return path
}

const observed = (path: string): Observed => ({
  observation: observation(`${ORIGIN}${path}`, pageAt(path)),
  screenshot: null,
  elements: pendingBlobs().get(pageAt(path)) ?? null,
  aria: null
})

/** The forum in memory: every episode starts on the home page. */
export const forumSite = (): Layer.Layer<Observations> => {
  const at = new Map<string, string>()
  return Layer.succeed(
    Observations,
    Observations.of({
      reset: (trajectoryId) => Effect.sync(() => (at.set(trajectoryId, "/forum/"), observed("/forum/"))),
      act: (trajectoryId, _step, action) =>
        Effect.sync(() => {
          const to = next(at.get(trajectoryId) ?? "/forum/", action)
          at.set(trajectoryId, to)
          return observed(to)
        }),
      end: (trajectoryId) => Effect.sync(() => void at.delete(trajectoryId))
    })
  )
}
