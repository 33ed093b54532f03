/**
 * The learned policy is judged by code it cannot reach and that cannot reach it: the sites'
 * ground-truth checkers and the label-function judge — the sandbox and the modules that
 * evaluate label functions (validation, the graph verdict, verification, the episode's end
 * check) — never import `@core/learner`, directly or through another module; and the learner
 * reaches neither the checkers nor the sites' state API. A judge that could read the learner
 * could be tuned to it; a learner that could read the judge or the ground truth would learn
 * the answers instead of the task.
 */
import { expect, test } from "bun:test"
import { Glob } from "bun"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { importGraph, reachable, REPO } from "./support/importGraph.ts"

type Graph = ReadonlyMap<string, ReadonlyArray<string>>

/** The ground-truth checkers, and every module that evaluates a label function or decides from its verdicts. */
const JUDGES: ReadonlyArray<string> = [
  "apps/sites/eval/mod.ts",
  "libs/sandbox/mod.ts",
  "libs/domain/Validation.ts",
  "libs/domain/StrategyGraph.ts",
  "libs/domain/LfApi.ts",
  "libs/domain/LfTrajectory.ts",
  "libs/pipeline/Verification.ts",
  "libs/pipeline/LabelSandbox.ts",
  "libs/pipeline/LabelInference.ts",
  "libs/pipeline/EpisodeEnd.ts"
]

const isLearner = (m: string): boolean => m === "@core/learner" || m.startsWith("@core/learner/") || m.startsWith("libs/learner/")

/** What is ground truth: the checkers' folder and the sites' package, which serves the state API. */
const isGroundTruth = (m: string): boolean => m.startsWith("apps/sites/") || m.startsWith("@core/sites") || m.startsWith("libs/evaluation/")

const STATE_API = [/__core\/state/, /x-core-state-token|STATE_TOKEN_HEADER/]

/** Each judge that reaches the learner, with the learner module it reaches. */
const judgesReachingLearner = (graph: Graph, judges: ReadonlyArray<string>): Array<string> =>
  judges.flatMap((j) => [...reachable(graph, j)].filter(isLearner).map((m) => `${j} reaches ${m}`))

/** Each learner module that reaches ground truth, or whose reach names the state API. */
const learnerReachingGroundTruth = (graph: Graph, text: (file: string) => string): Array<string> =>
  [...graph.keys()]
    .filter((f) => f.startsWith("libs/learner/") && !f.includes("/test/"))
    .flatMap((f) =>
      [...reachable(graph, f)].flatMap((m) => [
        ...(isGroundTruth(m) ? [`${f} reaches ${m}`] : []),
        ...(graph.has(m) && STATE_API.some((p) => p.test(text(m))) ? [`${f} reaches ${m}, which names the state API`] : [])
      ])
    )

const read = (file: string): string => readFileSync(join(REPO, file), "utf8")

test("the checkers and the label-function judge never reach @core/learner", () => {
  const graph = importGraph()
  for (const j of JUDGES) expect(graph.has(j)).toBe(true)
  // every file of the sandbox is a judge, not only what its mod.ts re-exports
  const sandbox = [...new Glob("libs/sandbox/*.ts").scanSync({ cwd: REPO })]
  expect(sandbox.length).toBeGreaterThan(5)
  expect(judgesReachingLearner(graph, [...JUDGES, ...sandbox])).toEqual([])
})

test("libs/learner reaches neither the checkers nor the sites' state API", () => {
  const graph = importGraph()
  const learner = [...graph.keys()].filter((f) => f.startsWith("libs/learner/") && !f.includes("/test/"))
  expect(learner).toContain("libs/learner/mod.ts")
  // it does reach what it learns from: the reach is real, not empty
  expect(reachable(graph, "libs/learner/mod.ts").size).toBeGreaterThan(10)
  expect(learnerReachingGroundTruth(graph, read)).toEqual([])
})

test("the check itself can fail: a judge importing the learner through another module, and a learner importing a checker, are caught", () => {
  const graph: Graph = new Map([
    ["libs/domain/Validation.ts", ["libs/domain/Helper.ts"]],
    ["libs/domain/Helper.ts", ["libs/learner/mod.ts"]],
    ["libs/learner/mod.ts", ["libs/learner/Train.ts", "libs/policy/mod.ts"]],
    ["libs/learner/Train.ts", ["apps/sites/eval/mod.ts"]],
    ["libs/learner/Screen.ts", ["libs/learner/Peek.ts"]],
    ["libs/learner/Peek.ts", []],
    ["libs/policy/mod.ts", []],
    ["apps/sites/eval/mod.ts", []]
  ])
  expect(judgesReachingLearner(graph, ["libs/domain/Validation.ts"])).toEqual([
    "libs/domain/Validation.ts reaches libs/learner/mod.ts",
    "libs/domain/Validation.ts reaches libs/learner/Train.ts"
  ])
  expect(judgesReachingLearner(graph, ["libs/policy/mod.ts"])).toEqual([])
  const texts: Record<string, string> = { "libs/learner/Peek.ts": `fetch(origin + "/__core/state/t1")` }
  const found = learnerReachingGroundTruth(graph, (f) => texts[f] ?? "")
  expect(found).toContain("libs/learner/Train.ts reaches apps/sites/eval/mod.ts")
  expect(found).toContain("libs/learner/mod.ts reaches apps/sites/eval/mod.ts")
  expect(found).toContain("libs/learner/Screen.ts reaches libs/learner/Peek.ts, which names the state API")
})
