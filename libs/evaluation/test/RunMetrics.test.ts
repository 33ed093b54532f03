/**
 * A run's metrics from plain events and ground truth: given the graph's paths, verdicts and
 * the checkers' answers, then the counts, the verified paths and the agreement with ground
 * truth.
 */
import { expect, test } from "bun:test"
import { makeEvent, NodeExpanded, PathAdded, TrajectoryVerified } from "@core/events"
import type { CoreEvent } from "@core/events"
import type { SuiteTask } from "@core/sites/suites"
import { runMetrics } from "../RunMetrics.ts"

const AT = "2026-12-03T10:00:00.000Z"
let n = 0
const ev = (e: Parameters<typeof makeEvent>[0], data: unknown): CoreEvent =>
  makeEvent(e, { stream: "run.r.x.y", runId: "r", causationId: `c${n++}`, ordinal: 0, recordedAt: AT, data } as never) as CoreEvent

const node = (taskId: string, nodeId: string, lfId = `lf-${nodeId}`) =>
  ev(NodeExpanded, {
    taskId,
    nodeId,
    lfId,
    description: nodeId,
    how: "demo",
    source: { kind: "demo", id: "d" },
    semanticKey: { actionKind: "click", role: "link", name: nodeId, value: null, urlPattern: null }
  })
const path = (taskId: string, pathId: string, nodeIds: Array<string>, source: { kind: "demo" | "trajectory"; id: string }) =>
  ev(PathAdded, { taskId, pathId, nodeIds, source })
const verdict = (
  trajectoryId: string,
  taskId: string,
  v: "pass" | "partial" | "fail" | "infra-error",
  nodeIds: Array<string> | null = null
) => ev(TrajectoryVerified, { trajectoryId, taskId, verdict: v, evidence: [], path: nodeIds })

const task = (id: string, families: number) =>
  ({ id, pathFamilies: Array.from({ length: families }, (_, i) => ({ id: `f${i}` })) }) as unknown as SuiteTask

test("given paths, verdicts and the checkers' answers, then the counts, verified paths and precision/recall", () => {
  const events = [
    node("t1", "n1"),
    node("t1", "n2"),
    node("t1", "n3"),
    node("t2", "n1"),
    node("t2", "n2"),
    path("t1", "p1", ["n1", "n2"], { kind: "demo", id: "d1" }),
    path("t2", "p3", ["n1"], { kind: "demo", id: "d2" }),
    verdict("r1-s0-t1", "t1", "pass", ["n1", "n2"]),
    verdict("r1-s1-t1", "t1", "partial"),
    verdict("r1-s2-t1", "t1", "pass", ["n1", "n2"]),
    verdict("r1-s0-t2", "t2", "fail"),
    verdict("r1-s1-t2", "t2", "infra-error"),
    // An explorer episode: counted over the whole run, not among the policy's rollouts.
    verdict("x1-s0-t1", "t1", "pass", ["n1", "n2"]),
    // Built from a partial run the checker passes: a trajectory along it passed, so verified.
    path("t1", "p2", ["n3", "n2"], { kind: "trajectory", id: "r1-s1-t1" }),
    // Built from one the checker fails: not verified.
    path("t2", "p4", ["n2"], { kind: "trajectory", id: "r1-s0-t2" })
  ]
  const groundTruth = new Map([
    ["r1-s0-t1", { success: true, reason: "" }],
    ["r1-s1-t1", { success: true, reason: "" }],
    ["r1-s2-t1", { success: false, reason: "wandered" }],
    ["r1-s0-t2", { success: false, reason: "" }],
    ["x1-s0-t1", { success: true, reason: "" }]
  ])
  const m = runMetrics({ runId: "r", events, groundTruth, tasks: [task("t1", 2), task("t2", 1)] })
  expect(m).toMatchObject({
    run_id: "r",
    tasks: 2,
    trajectories: 6,
    pass: 3,
    partial: 1,
    fail: 1,
    infra_errors: 1,
    nodes: 3,
    paths_per_task_mean: 2,
    tasks_with_alternatives: 1,
    tasks_with_multiple_paths: 1,
    verdict_vs_ground_truth: {
      precision: 0.6667,
      recall: 0.6667,
      predicted_pass: 3,
      rollouts: { precision: 0.5, recall: 0.5, predicted_pass: 2 }
    }
  })
})

test("given no verdicts, then no ratios rather than a division by zero", () => {
  const m = runMetrics({ runId: "r", events: [], groundTruth: new Map(), tasks: [] })
  const none = { precision: null, recall: null, predicted_pass: 0 }
  expect(m.verdict_vs_ground_truth).toEqual({ ...none, rollouts: none })
  expect(m.paths_per_task_mean).toBe(0)
})

test("given two paths whose nodes have the same label functions, then one path by meaning, two by node sequence", () => {
  const events = [
    // One LF on two pages: two nodes, one meaning.
    node("t1", "n-home", "lf-open"),
    node("t1", "n-category", "lf-open"),
    node("t1", "n-done", "lf-done"),
    node("t1", "n-other", "lf-other"),
    path("t1", "p1", ["n-home", "n-done"], { kind: "demo", id: "d1" }),
    path("t1", "p2", ["n-category", "n-done"], { kind: "trajectory", id: "r1-s0-t1" }),
    verdict("r1-s1-t1", "t1", "pass", ["n-category", "n-done"])
  ]
  const groundTruth = new Map([
    ["r1-s0-t1", { success: true, reason: "" }],
    ["r1-s1-t1", { success: true, reason: "" }]
  ])
  const m = runMetrics({ runId: "r", events, groundTruth, tasks: [task("t1", 2)] })
  expect(m.paths_per_task_mean).toBe(1)
  expect(m.tasks_with_multiple_paths).toBe(0)
  expect(m.by_nodes).toEqual({ paths_per_task_mean: 2, tasks_with_multiple_paths: 1 })
  // Another LF is another way: now two by meaning as well.
  const more = [...events, path("t1", "p3", ["n-other", "n-done"], { kind: "trajectory", id: "r1-s1-t1" })]
  expect(runMetrics({ runId: "r", events: more, groundTruth, tasks: [task("t1", 2)] }).tasks_with_multiple_paths).toBe(1)
})

test("given a demo's goal-state path and a pass along it, then no second path: it is evidence of the outcome, not a way", () => {
  const events = [
    node("t1", "n-search"),
    node("t1", "n-upvote"),
    node("t1", "n-done"),
    path("t1", "p1", ["n-search", "n-upvote", "n-done"], { kind: "demo", id: "d1" }),
    ev(PathAdded, {
      taskId: "t1",
      pathId: "p2",
      nodeIds: ["n-upvote", "n-done"],
      source: { kind: "demo", id: "d1" },
      evidence: "goal-state"
    }),
    verdict("r1-s0-t1", "t1", "pass", ["n-upvote", "n-done"])
  ]
  const groundTruth = new Map([["r1-s0-t1", { success: true, reason: "" }]])
  const m = runMetrics({ runId: "r", events, groundTruth, tasks: [task("t1", 2)] })
  expect(m.paths_per_task_mean).toBe(1)
  expect(m.tasks_with_multiple_paths).toBe(0)
  expect(m.by_nodes).toEqual({ paths_per_task_mean: 1, tasks_with_multiple_paths: 0 })
  // The pass itself counts: it is a verdict like any other.
  expect(m.verdict_vs_ground_truth.precision).toBe(1)
})
