/**
 * `bun core eval labels` through the real CLI on a small slice of the evaluation set (real
 * Chromium, real checkers, real sandbox): the report's keys and their arithmetic, the
 * cached set on a second run, the round-0 reading (`--round0`), and bad input. The full figures are in docs/benchmarks.md.
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError } from "./support/cli.ts"

const dataDir = mkdtempSync(join(tmpdir(), "core-eval-labels-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
const flags = ["--instance", "shop-wishlist-add-1,forum-upvote-1", "--data-dir", dataDir]

test("labels a slice of the set against the checkers, and reads the built set from its cache the second time", async () => {
  const r = await core(["eval", "labels", "--json", ...flags])
  if (r.code !== 0) throw new Error(r.stderr.slice(-2000))
  const report = JSON.parse(r.stdout)
  for (const key of [
    "trajectories",
    "tp",
    "fp",
    "tn",
    "fn",
    "precision",
    "recall",
    "recall_same_path",
    "recall_other_paths",
    "npv",
    "kappa"
  ]) {
    expect(report).toHaveProperty(key)
  }
  expect(report.tasks).toBe(2)
  expect(report.tp + report.fp + report.tn + report.fn).toBe(report.trajectories)
  // Two tasks: each demo's perturbed rerun, other families, a wrong item, a wrong value, a random rollout.
  expect(report.trajectories).toBeGreaterThanOrEqual(10)
  expect(report.by_kind["same-path"]).toMatchObject({ total: 2, positives: 2 })
  expect(report.by_kind.random.total).toBe(2)
  expect(report.label_functions).toBeGreaterThanOrEqual(4)
  expect(report.recall_same_path).toBe(1)
  expect(report.fp).toBe(0)
  // NPV: of the trajectories CORE refused, the share the checkers refused too.
  expect(report.npv).toBe(Math.round((report.tn / (report.tn + report.fn)) * 10000) / 10000)
  expect(readdirSync(join(dataDir, "eval")).filter((f) => f.startsWith("label-set-"))).toHaveLength(1)

  const again = await core(["eval", "labels", "--json", ...flags])
  expect(again.code).toBe(0)
  expect(again.stderr).toContain("evaluation set from")
  expect(JSON.parse(again.stdout)).toMatchObject({ tp: report.tp, fp: report.fp, tn: report.tn, fn: report.fn })

  // As a run's round 0 judges: the goal-state path beside each demo's accepts the post reached by browsing, and nothing wrong.
  const round0 = await core(["eval", "labels", "--round0", "--json", ...flags])
  expect(round0.code).toBe(0)
  const judged = JSON.parse(round0.stdout)
  expect(judged).toMatchObject({ trajectories: report.trajectories, fp: 0, recall_same_path: 1 })
  expect(judged.by_kind["other-path"].labelled_pass).toBeGreaterThan(report.by_kind["other-path"].labelled_pass)
}, 900_000)

test("bad input: one-line errors", async () => {
  expectOneLineError(await core(["eval", "labels", "--suite", "bank", "--data-dir", dataDir]), expect)
  expectOneLineError(await core(["eval", "labels", "--random", "-1", "--data-dir", dataDir]), expect)
  expectOneLineError(await core(["eval", "labels", "--round0", "--run", "run-x", "--data-dir", dataDir]), expect)
  const unknown = await core(["eval", "labels", "--instance", "shop-nope-9", "--data-dir", dataDir])
  expectOneLineError(unknown, expect)
  expect(unknown.stderr).toContain("shop-nope-9")
}, 120_000)
