/**
 * `bun core dataset check` on a real logged run, the replay fixture (`tests/fixtures/replay-run`):
 * its demos' first steps were recorded without their page (sft records with no screen), and
 * its one extrapolated task's pseudo-demo is a single click (it does not close); its dpo
 * pairs predate credit rule 2. The problems are listed and the command exits 1.
 */
import { afterAll, expect, test } from "bun:test"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError, REPO } from "./support/cli.ts"

const RUN = "run-mx9cfcfn-0a9e49"
const dir = mkdtempSync(join(tmpdir(), "core-cli-dataset-check-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("dataset check lists the fixture run's problems as JSON and exits 1; bad input is one line", async () => {
  // The store is opened read-write: a copy keeps the checkout's fixture as it is.
  cpSync(join(REPO, "tests", "fixtures", "replay-run"), dir, { recursive: true })
  const store = ["--store", "embedded", "--data-dir", dir]
  const r = await core(["dataset", "check", "--run", RUN, "--json", ...store])
  expectOneLineError(r, expect)
  expect(r.code).toBe(1)
  expect(r.stderr).toContain(`error: 3 problems in run ${RUN}'s dataset (sft-screen, pseudo-demo-closes)`)
  const report = JSON.parse(r.stdout)
  expect(report).toMatchObject({
    run: RUN,
    records: 36,
    checked: { sft: 22, dpo: 4, rollout: 10 },
    warnings: { "dpo-uncredited-legacy": 4 }
  })
  expect(report.problems.map((p: { rule: string; format: string }) => [p.rule, p.format])).toEqual([
    ["sft-screen", "sft"],
    ["sft-screen", "sft"],
    ["pseudo-demo-closes", "sft"]
  ])
  expect(report.problems[2].detail).toMatch(/ends at step 0 with a click, not a status or answer/)

  const unknown = await core(["dataset", "check", "--run", "run-none-000000", ...store])
  expectOneLineError(unknown, expect)
  expect(unknown.stderr).toContain("run run-none-000000 not found")
  const usage = await core(["dataset", "check", ...store])
  expectOneLineError(usage, expect)
  expect(usage.code).toBe(2)
}, 60_000)
