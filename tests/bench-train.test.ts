/**
 * `bun core bench train` as a user runs it, on a copy of the replay fixture's store (a real
 * 2-round run's dataset). Only the report's shape and arithmetic are checked — never how
 * fast anything was: timings belong in benchmarks, not tests.
 */
import { describe, expect, test } from "bun:test"
import { cpSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError, REPO } from "./support/cli.ts"

const FIXTURE_RUN = "run-mxcb6ggg-b433bd"
const dir = mkdtempSync(join(tmpdir(), "core-bench-train-"))
cpSync(join(REPO, "tests", "fixtures", "replay-run-2"), dir, { recursive: true })
const store = ["--store", "embedded", "--data-dir", dir]

describe("bun core bench train", () => {
  test("--json: every figure, medians within their spreads, each family's held-apart accuracy a share", async () => {
    const { stdout, stderr, code } = await core(["bench", "train", "--rounds", "2", "--json", ...store])
    expect(stderr).not.toContain("error:")
    expect(code).toBe(0)
    const r = JSON.parse(stdout)
    expect(r.run).toBe(FIXTURE_RUN)
    expect(r.records).toBe(194)
    // The states the current learner trains on: most of the fixture's verified rollouts (an exploration run's) are
    // longer than their task's demo, and learner 2 leaves those detours out.
    expect(r.states).toBeGreaterThan(30)
    expect(r.states).toBeLessThan(r.records)
    expect(r.states).toBeLessThanOrEqual(r.records)
    expect(r.rounds).toHaveLength(2)
    expect(r.records_per_s).toBeGreaterThanOrEqual(r.records_per_s_spread[0])
    expect(r.records_per_s).toBeLessThanOrEqual(r.records_per_s_spread[1])
    expect(r.epoch_per_s).toBeGreaterThanOrEqual(r.epoch_per_s_spread[0])
    expect(r.ratio).toBeCloseTo(r.records_per_s / r.read_per_s, 2)
    expect(r.held_apart.tasks).toBeGreaterThan(0)
    for (const f of ["listwise", "pairwise"]) {
      expect(r.families[f].accuracy).toBeGreaterThanOrEqual(0)
      expect(r.families[f].accuracy).toBeLessThanOrEqual(1)
    }
    expect(r.round_s === null || r.round_s > 0).toBe(true)
    expect(r.targets_met).toBe(r.epoch_per_s >= 20_000 && (r.round_share === null || r.round_share < 0.1))
  })

  test("a run that is not there is one line and a non-zero exit", async () => {
    const r = await core(["bench", "train", "--run", "run-nope", ...store])
    expectOneLineError(r, expect)
    expect(r.stderr).toContain("run run-nope not found")
  })
})
