/**
 * Demos judged before they are taken, on a small pack (libs/apps/test/fixtures/notes: an
 * editor, a search box, an evaluate that reads what was saved): `record --from` refuses a
 * step file whose text went into the search box, in one line and writing nothing, writes
 * the one that does the task, and writes the bad one with --no-judge; an evaluate that
 * cannot judge is its own line. `record` starts exactly one instance. `run --app` stops
 * before inference naming the rejected demo, and with --no-judge runs; the policy it trained
 * is evaluated with one "eval:" prefix per line.
 */
import { afterAll, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fixtureRoot, leftovers, removeRoot } from "../libs/apps/test/support.ts"
import { core, expectOneLineError } from "./support/cli.ts"

const root = fixtureRoot("demo-judge")
afterAll(() => removeRoot(root))
const PACK = join(root, "notes")
const GOOD = join(PACK, "demos", "fn-write-1.steps.json")
// Types the note into the search box, then saves an empty editor.
const BAD = join(PACK, "demos", "fn-write-2.steps.json")
const headless = { DISPLAY: "", WAYLAND_DISPLAY: "" }
const starts = () => readFileSync(join(PACK, "starts.log"), "utf8").trim().split("\n").length
const record = (task: string, from: string, out: string, ...extra: Array<string>) =>
  core(["record", "--app", PACK, "--task", task, "--from", from, "--out", join(root, out), ...extra], headless)

test("record --from and run --app take only demos the pack's evaluate passes, unless --no-judge", async () => {
  const bad = await record("fn-write-1", BAD, "bad")
  expectOneLineError(bad, expect)
  // The evaluator's own last line says why.
  expect(bad.stderr).toMatch(
    /error: demo of task fn-write-1 does not do the task: the pack's evaluate says fail \(exit 1\): fail: the app saved .*, not "Hello"\n/
  )
  expect(existsSync(join(root, "bad"))).toBe(false)
  // The pack keeps a pool of 3; a recording needs one instance and starts only that one.
  expect(starts()).toBe(1)

  const good = await record("fn-write-1", GOOD, "good")
  expect(good.stderr).not.toContain("error:")
  expect(good.code).toBe(0)
  expect(existsSync(join(root, "good", "demo.json"))).toBe(true)
  expect(good.stderr).toContain("step 2: key Control+End")
  expect(starts()).toBe(2)

  const forced = await record("fn-write-1", BAD, "forced", "--no-judge")
  expect(forced.code).toBe(0)
  expect(existsSync(join(root, "forced", "demo.json"))).toBe(true)

  const broken = await record("fn-broken-1", GOOD, "broken")
  expectOneLineError(broken, expect)
  expect(broken.stderr).toMatch(/^error: cannot judge the demo of task fn-broken-1: evaluate exited with code 2 \(0 = pass, 1 = fail\)/m)
  expect(existsSync(join(root, "broken"))).toBe(false)

  const data = join(root, "data")
  const flags = ["--store", "embedded", "--data-dir", data]
  const quick = ["--rounds", "1", "--samples", "1", "--explore-per-task", "0", "--expand-per-task", "0", "--extrapolate-per-task", "0"]
  const stopped = await core(["run", "--app", PACK, "--tasks", "fn-write-1,fn-write-2", ...quick, ...flags])
  expectOneLineError(stopped, expect)
  const error = stopped.stderr.split("\n").find((l) => l.startsWith("error:"))!
  expect(error).toContain("the run stops before inference: demo of task fn-write-2 does not do the task")
  expect(error).toContain("--no-judge")
  expect(error).not.toContain("fn-write-1")
  // Nothing was inferred: the run never started.
  expect(stopped.stderr).not.toMatch(/^run: run /m)
  expect(readdirSync(join(data, "demos", "fixture-editor"))).toEqual(["fn-write-1"])

  const run = await core([
    "run",
    "--app",
    PACK,
    "--tasks",
    "fn-write-1,fn-write-2",
    ...quick,
    "--policy",
    "embedded",
    "--no-judge",
    "--json",
    ...flags
  ])
  expect(run.stderr).not.toContain("error:")
  expect(run.code).toBe(0)
  const metrics = JSON.parse(run.stdout) as { run_id: string; tasks: number }
  expect(metrics.tasks).toBe(2)
  const runId = metrics.run_id
  // The demos entered the log as before: a replay re-derives the run.
  const replay = await core(["replay", runId, "--json", ...flags])
  expect(replay.code).toBe(0)
  expect(JSON.parse(replay.stdout).divergences).toEqual([])

  const evaluated = await core(["eval", "--policy", "embedded", ...flags])
  expect(evaluated.code).toBe(0)
  expect(evaluated.stderr).toMatch(
    /^eval: run run-\S+, policy trained through round 1 \(\d+ examples?\), 1 held-out task of fixture-editor × 1$/m
  )
  expect(evaluated.stderr).not.toContain("eval: eval:")
  expect(leftovers(root)).toEqual([])
}, 120_000)
