/**
 * The label-function evaluation set on a small subset, through the real web environment
 * (Chromium, sites server, temp blob store): two shop instances with several path
 * families, one forum and one travel instance. Every kind of trajectory is there, runs
 * that solve the task are labelled positive by its checker, the others mostly negative,
 * and the random policy draws the same moves again from the same seed.
 */
import { beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { buildLabelEvalSet, EVAL_KINDS, labelEvalSetSummary } from "../LabelEvalSet.ts"
import type { LabelEvalSet } from "../LabelEvalSet.ts"

const INSTANCES = ["shop-open-category-1", "shop-open-product-1", "forum-open-board-1", "travel-open-city-1"]
const SITE_OF: Readonly<Record<string, string>> = { shop: "/shop/", forum: "/forum/", travel: "/travel/" }

let set: LabelEvalSet = { tasks: [], trajectories: [] }
let again: LabelEvalSet = { tasks: [], trajectories: [] }

beforeAll(async () => {
  set = await Effect.runPromise(buildLabelEvalSet({ instances: INSTANCES }))
  again = await Effect.runPromise(buildLabelEvalSet({ instances: ["shop-open-product-1"], kinds: ["random"] }))
}, 480_000)

const siteOf = (taskId: string) => SITE_OF[taskId.split("-")[0]!]!

describe("label evaluation set", () => {
  test("one task per instance, each with a passing demo as LF trajectory and as demo steps", () => {
    expect(set.tasks.map((t) => t.taskId).sort()).toEqual([...INSTANCES].sort())
    for (const t of set.tasks) {
      expect([t.taskId, t.demoChecker]).toEqual([t.taskId, true])
      expect(t.demo.steps.length).toBeGreaterThan(0)
      expect(t.demoSteps.length).toBe(t.demo.steps.length)
      expect(t.demoSteps.at(-1)!.action).toEqual({ kind: "status", status: "complete" })
      expect(t.demoSteps[0]!.observation.elements).toMatch(/^[0-9a-f]{64}$/)
    }
  })

  test("every kind is present, ids are unique and readable", () => {
    const summary = labelEvalSetSummary(set)
    for (const kind of EVAL_KINDS) expect([kind, summary.byKind[kind].total > 0]).toEqual([kind, true])
    expect(new Set(set.trajectories.map((t) => t.id)).size).toBe(set.trajectories.length)
    for (const t of set.trajectories) expect(t.id.startsWith(`${t.taskId}/${t.kind}/`)).toBe(true)
    expect(summary.total).toBe(set.trajectories.length)
    expect(summary.positive + summary.negative).toBe(summary.total)
    expect(Object.keys(summary.bySuite).sort()).toEqual(["forum", "shop", "travel"])
  })

  test("runs on another path, or the same path with detours, scrolls and waits, solve the task", () => {
    const solving = set.trajectories.filter((t) => t.kind === "same-path" || t.kind === "other-path")
    expect(solving.length).toBeGreaterThanOrEqual(INSTANCES.length * 2)
    for (const t of solving) expect(`${t.id}: ${t.checker} ${t.note}`).toMatch(/^\S+: true /)
    const moves = set.trajectories.filter((t) => t.kind === "same-path").flatMap((t) => t.trajectory.steps.map((s) => s.action.kind))
    expect(moves).toContain("scroll")
    expect(moves).toContain("wait")
    expect(moves).toContain("back")
  })

  test("a sibling's parameters on this seed do the wrong item: negatives", () => {
    const wrong = set.trajectories.filter((t) => t.kind === "wrong-item")
    expect(wrong.length).toBe(INSTANCES.length)
    expect(wrong.filter((t) => !t.checker).length).toBeGreaterThanOrEqual(3)
    const board = wrong.find((t) => t.taskId === "forum-open-board-1")!
    expect(board.note).toContain("parameters of forum-open-board-")
    expect(board.trajectory.steps.at(-1)!.action.status).toBe("complete")
  })

  test("a run that breaks keeps the steps it made, its reason and the checker's verdict", () => {
    const partial = set.trajectories.filter((t) => t.partial)
    expect(partial.length).toBeGreaterThan(0)
    const withSteps = partial.find((t) => t.trajectory.steps.length > 0)!
    expect(withSteps.note).toContain("stopped early at step")
    expect(withSteps.checker).toBe(false)
    expect(withSteps.trajectory.steps[0]!.elements).not.toBeNull()
  })

  test("wrong values: a changed search breaks the path; a run that gives up wrongly is judged by where it ended", () => {
    const values = new Map(set.trajectories.filter((t) => t.kind === "wrong-value").map((t) => [t.taskId, t]))
    expect(values.get("shop-open-product-1")!.note).toMatch(/^step 1: typed '.+' instead of 'Kestrel Pro Biography'/)
    expect(values.get("shop-open-product-1")!.checker).toBe(false)
    const gaveUp = values.get("shop-open-category-1")!
    expect(gaveUp.trajectory.steps.at(-1)!.action.status).toBe("infeasible")
    // The navigation checkers read the final URL only: the paper's case, which LFs must catch and the checker does not.
    expect(gaveUp.checker).toBe(true)
  })

  test("trajectories carry element lists and site paths", () => {
    for (const t of set.trajectories) {
      const prefix = siteOf(t.taskId)
      expect([t.id, t.trajectory.initialElements !== null && t.trajectory.initialElements.length > 0]).toEqual([t.id, true])
      expect(t.trajectory.startUrl?.startsWith(prefix)).toBe(true)
      for (const s of t.trajectory.steps) {
        expect(s.elements).not.toBeNull()
        expect(s.urlBefore?.startsWith("/")).toBe(true)
        expect(s.urlAfter?.startsWith("/")).toBe(true)
        expect(s.urlAfter).not.toContain("://")
      }
    }
  })

  test("the random policy is seeded: the same seed makes the same moves on a fresh run", () => {
    const first = set.trajectories.filter((t) => t.kind === "random" && t.taskId === "shop-open-product-1")
    expect(first.length).toBe(1)
    expect(again.trajectories.map((t) => t.kind)).toEqual(["random"])
    const actions = (s: LabelEvalSet["trajectories"][number]) => s.trajectory.steps.map((x) => x.action)
    expect(actions(again.trajectories[0]!)).toEqual(actions(first[0]!))
    expect(actions(first[0]!).length).toBeGreaterThan(1)
    expect(actions(first[0]!).at(-1)!.status).toBe("complete")
  })
})
