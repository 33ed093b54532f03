/**
 * CORE on Actual Budget (packs/actual), end to end as a user runs it: `run --app packs/actual`
 * on two train tasks from an empty data directory (tasks registered, step files played as
 * demos through the pack's log-in, label functions inferred, one round of rollouts and
 * exploration) with no infrastructure error, then the pack's evaluate against the run's
 * verdicts — and no process of the app left behind. Skips when the pack is not installed.
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { installed } from "../packs/actual/lib.ts"
import { core, REPO, smallRunArgs } from "./support/cli.ts"
import { instanceProcesses } from "./support/instances.ts"

const PACK = join(REPO, "packs", "actual")
const TASKS = ["t01-savings-balance", "t08-hide-decimals"]
const ready = installed()
if (!ready) console.log("skip: packs/actual is not installed (run scripts/setup or packs/actual/install.sh)")
const data = mkdtempSync(join(tmpdir(), "core-pack-actual-"))
const flags = ["--store", "embedded", "--data-dir", data]
afterAll(() => rmSync(data, { recursive: true, force: true }))

/** The pack's commands run under this TMPDIR: what they leave is this test's alone. */
const tmp = mkdtempSync(join(tmpdir(), "core-pack-actual-tmp-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
/** Every process CORE started for an instance of the pack in this test (CORE tags what it starts). */
const appProcesses = () => instanceProcesses(tmp, [PACK, join(tmp, "core-actual-")])

test.skipIf(!ready)(
  "run --app packs/actual on two tasks: demos 2/2, no infra errors; evaluate judges every verified episode; nothing left running",
  async () => {
    const run = await core(smallRunArgs("packs/actual", TASKS, flags), { TMPDIR: tmp })
    expect(run.stderr).not.toContain("error:")
    expect(run.code).toBe(0)
    expect(run.stderr).toContain("demos: 2/2")
    const metrics = JSON.parse(run.stdout) as { run_id: string; tasks: number; trajectories: number; infra_errors: number }
    expect(metrics.tasks).toBe(2)
    expect(metrics.infra_errors).toBe(0)
    expect(metrics.trajectories).toBeGreaterThanOrEqual(2)
    expect(appProcesses()).toEqual([])

    const judged = await core(["eval", "labels", "--app", "packs/actual", "--run", metrics.run_id, "--json", ...flags], { TMPDIR: tmp })
    expect(judged.code).toBe(0)
    const scores = JSON.parse(judged.stdout) as { judged: number; agreement: number | null; per_task: Record<string, unknown> }
    expect(scores.judged).toBe(metrics.trajectories)
    expect(Object.keys(scores.per_task).sort()).toEqual([...TASKS].sort())
    expect(scores.agreement).not.toBeNull()
    expect(appProcesses()).toEqual([])
  },
  300_000
)
