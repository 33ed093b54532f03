/**
 * `bun core metrics <run>` re-derives what `run` printed from the log and the run's
 * ground-truth file, and `run --resume` of the finished run prints the same figures (it
 * used to lose the judgements of the episodes it did not play again). The replay fixture
 * has no ground-truth file, so this logs the cheapest real run that has one: one task, one
 * rollout, one explorer episode (whose detour, with this seed, adds a second verified path),
 * no extrapolation.
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-metrics-"))
const flags = ["--store", "embedded", "--data-dir", tmp]
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const figures = (stdout: string) => {
  const { seconds, ...rest } = JSON.parse(stdout) as Record<string, unknown>
  expect(typeof seconds).toBe("number")
  return rest
}

test("metrics <run> --json equals what run printed, and run --resume of the finished run prints the same", async () => {
  const ran = await core([
    "run",
    "--tasks",
    "forum-open-board-1",
    "--samples",
    "1",
    "--explore-per-task",
    "1",
    "--expand-per-task",
    "1",
    "--extrapolate-per-task",
    "0",
    "--seed",
    "m1",
    "--json",
    ...flags
  ])
  if (ran.code !== 0) throw new Error(`run failed: ${ran.stderr.slice(-2000)}`)
  const printed = figures(ran.stdout)
  const runId = printed.run_id as string
  // The figures against ground truth come from the file: with it unread they would be null.
  expect((printed.verdict_vs_ground_truth as { precision: number | null }).precision).not.toBeNull()
  const file = join(tmp, "eval", `run-${runId}-ground-truth.json`)
  const judged = readFileSync(file, "utf8")

  const derived = await core(["metrics", runId, "--json", ...flags])
  expect(derived.code).toBe(0)
  expect(JSON.parse(derived.stdout)).toEqual(printed)

  const resumed = await core(["run", "--resume", runId, "--json", ...flags])
  expect(resumed.code).toBe(0)
  expect(resumed.stderr).toContain("nothing to resume")
  expect(figures(resumed.stdout)).toEqual(printed)
  // The resume kept the judgements it did not make.
  expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(JSON.parse(judged))
  expect(JSON.parse((await core(["metrics", runId, "--json", ...flags])).stdout)).toEqual(printed)

  const unknown = await core(["metrics", "run-none-000000", ...flags])
  expectOneLineError(unknown, expect)
  expect(unknown.stderr).toContain("run run-none-000000 not found")
}, 120_000)
