/**
 * `eval --policy` as a user meets it. Without playing an episode: `learned` is taken by the
 * single-round evaluation and by `--report` (each goes on to what is missing: an unsealed
 * round of the recorded fixture run, a site that is not there), and any other value is a
 * one-line usage error naming the choices. Then the smallest learned report in real
 * Chromium: its runs are learned runs, and every arm it judged is the model its run trained
 * at that round, byte for byte (PolicyTrained's checkpoint names the weights).
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readRunLog } from "@core/engine"
import { armAt, heldOutTaskOf, sealedRun } from "@core/evaluation"
import { sha256 } from "@core/events"
import { EmbeddedStore } from "@core/eventstore"
import { learnedModelJson } from "@core/learner"
import { runTaskOf } from "@core/sites/app"
import { loadSuites } from "@core/sites/suites"
import { core, expectOneLineError, REPO } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-eval-policy-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
cpSync(join(REPO, "tests", "fixtures", "replay-run-2"), tmp, { recursive: true })
const flags = ["--store", "embedded", "--data-dir", tmp]

const oneLine = (r: { code: number; stderr: string; stdout: string }, message: RegExp) => {
  expectOneLineError(r, expect)
  expect(r.stderr).toMatch(message)
}

test("--policy learned is taken with --suite held-out and with --report; another value is a one-line error", async () => {
  const [single, report, ...bad] = await Promise.all([
    core(["eval", "--suite", "held-out", "--policy", "learned", "--run", "run-mxcb6ggg-b433bd", "--round", "3", ...flags]),
    core(["eval", "--report", "--policy", "learned", "--site", "nowhere", ...flags]),
    core(["eval", "--suite", "held-out", "--policy", "retrieval", ...flags]),
    core(["eval", "--report", "--policy", "learnt", ...flags])
  ])
  oneLine(single!, /run run-mxcb6ggg-b433bd: its round 3 dataset is not sealed \(sealed: 0, 1, 2\)/)
  oneLine(report!, /--site nowhere: no such site/)
  oneLine(bad[0]!, /--policy must be one of embedded, learned, got 'retrieval'/)
  oneLine(bad[1]!, /--policy must be one of embedded, learned, got 'learnt'/)
}, 60_000)

test("a learned report: learned runs, and each arm the model its run trained at that round", async () => {
  const dir = join(tmp, "report")
  const r = await core([
    "eval",
    "--report",
    "--policy",
    "learned",
    "--seeds",
    "1",
    "--rounds",
    "1",
    "--site",
    "shop",
    "--tasks",
    "shop-open-category-1",
    "--held-out",
    "shop-open-category-3",
    "--json",
    "--store",
    "embedded",
    "--data-dir",
    dir
  ])
  if (r.code !== 0) throw new Error(r.stderr.slice(-3000))
  const report = JSON.parse(r.stdout)
  expect(report.config).toMatchObject({ policy: "learned", train: ["shop-open-category-1"], held_out: ["shop-open-category-3"] })
  expect(Object.keys(report.paired)).toContain("core_vs_bc")
  expect(r.stderr).toMatch(/eval report: seed report-1: bc: \d\/1 held-out episodes succeeded/)
  const heldOut = (await Effect.runPromise(loadSuites()))
    .flatMap((s) => s.tasks)
    .filter((t) => t.id === "shop-open-category-3")
    .map((t) => heldOutTaskOf(runTaskOf(t)))
  const { core: full, no_expansion, no_extrapolation } = report.runs[0]
  const checked: Array<string> = []
  for (const runId of [full, no_expansion, no_extrapolation]) {
    const { events } = await Effect.runPromise(Effect.provide(readRunLog(runId), EmbeddedStore.layer({ path: join(dir, "events.db") })))
    expect(events.find((e) => e.type === "RunStarted")?.data.config["run.policy"]).toBe("learned")
    for (const e of events) {
      if (e.type !== "PolicyTrained") continue
      const run = sealedRun(events, e.data.round)
      if (typeof run === "string") throw new Error(run)
      const { arm, excluded } = armAt(run, "learned", heldOut)
      if (arm.kind !== "learned" || arm.model === null) throw new Error("expected a learned model")
      expect(excluded).toBe(0)
      expect(`sha256:${sha256(learnedModelJson(arm.model))}`).toBe(e.data.checkpoint)
      checked.push(`${runId}@${e.data.round}`)
    }
  }
  // rounds 0 and 1 of each run: bc and round 1 of the full run, the ablations' round 1
  expect(checked).toHaveLength(6)
}, 120_000)
