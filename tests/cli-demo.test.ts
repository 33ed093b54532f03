/**
 * `bun core demo`, the README's main job: one CORE round on six bundled tasks with zero
 * setup — expert demos recorded and ingested, label functions inferred, rollouts in real
 * Chromium, verified and expanded — with a summary on stdout, progress on stderr, and a
 * run that replays with 0 divergences.
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core } from "./support/cli.ts"

const dir = mkdtempSync(join(tmpdir(), "core-cli-demo-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("one round on six tasks: every episode verified, the figures on stdout, and a replayable run", async () => {
  const flags = ["--store", "embedded", "--data-dir", dir]
  const r = await core(["demo", "--samples", "2", "--json", ...flags])
  if (r.code !== 0) throw new Error(r.stderr.slice(-3000))
  const m = JSON.parse(r.stdout)
  expect(m.store).toBe("embedded")
  expect(m.tasks).toBe(6)
  // Two rollouts and three explorer episodes per task.
  expect(m.trajectories).toBe(30)
  expect(m.pass + m.partial + m.fail + m.infra_errors).toBe(30)
  expect(m.tasks_with_alternatives).toBe(6)
  expect(Object.keys(m)).toEqual(
    expect.arrayContaining([
      "run_id",
      "nodes",
      "paths_per_task_mean",
      "tasks_with_multiple_paths",
      "verdict_vs_ground_truth",
      "recall_other_paths",
      "seconds"
    ])
  )
  expect(r.stderr).toContain("store: embedded")
  expect(r.stderr).toMatch(/demos: 6\/6 travel-add-traveller-1: \d+ steps ingested/)
  expect(r.stderr).toMatch(/round 1\/1 \[#+\] 30\/30 trajectories/)
  const replay = JSON.parse((await core(["replay", m.run_id, "--json", ...flags])).stdout)
  expect(replay.divergences).toEqual([])
  // The human table names the run and says where to look next.
  const table = await core(["demo", "--samples", "1", ...flags])
  expect(table.code).toBe(0)
  expect(table.stdout).toMatch(/^run {14}demo-/m)
  expect(table.stdout).toContain("bun core audit trajectory")
  // The second time, the demos are already ingested: none is recorded again.
  expect(table.stderr).not.toContain("scripted expert demo")
}, 600_000)
