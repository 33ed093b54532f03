/**
 * CORE on Debian's MediaWiki, end to end as a user runs it: `run --app packs/mediawiki` on
 * two train tasks from an empty data directory (each episode logged in by the pack's
 * auth.steps.json; step files played as demos, label functions inferred, one round of
 * rollouts and exploration), then the pack's evaluate against the run's verdicts, and no
 * MediaWiki (PHP) process or instance left behind. Skipped, in one line, where Debian's
 * packages are not installed.
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { missingPackages, WIKI_PASSWORD } from "../packs/mediawiki/lib.ts"
import { core, REPO, smallRunArgs } from "./support/cli.ts"
import { instanceProcesses } from "./support/instances.ts"

const PACK = join(REPO, "packs", "mediawiki")
const TASKS = ["t01-open-owlcote", "t03-signal-box-levers"]
const missing = missingPackages()
if (missing.length > 0) console.log(`skipping the mediawiki pack run: apt-get install ${missing.join(" ")}`)
const data = mkdtempSync(join(tmpdir(), "core-mwrun-"))
const flags = ["--store", "embedded", "--data-dir", data]
/** The user's password for the pack's log-in, as its README asks them to set it. */
const secret = { CORE_MEDIAWIKI_PASSWORD: WIKI_PASSWORD }
afterAll(() => rmSync(data, { recursive: true, force: true }))

/** The pack's commands run under this TMPDIR (its template is built there once): what they leave is this test's alone. */
const tmp = mkdtempSync(join(tmpdir(), "core-mwrun-tmp-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
/** Processes CORE started for a MediaWiki instance in this test (CORE tags what it starts); one started by hand is not ours. */
const mediawikis = () => instanceProcesses(tmp, [PACK, join(tmp, "core-mw-")])
/** Instance dirs (not the shared template or OPcache dirs) still on disk. */
const instanceDirs = (): ReadonlyArray<string> => readdirSync(tmp).filter((n) => /^core-mw-[A-Za-z0-9]{6}$/.test(n))

test.skipIf(missing.length > 0)(
  "run --app packs/mediawiki on two tasks: demos 2/2, no infra errors, evaluate judges every episode, nothing left running",
  async () => {
    const before = new Set(instanceDirs())
    // The user allows the pack's log-in its password variable, and nothing else of theirs.
    const run = await core(smallRunArgs("packs/mediawiki", TASKS, [...flags, "--allow-secret", "CORE_MEDIAWIKI_PASSWORD"]), {
      ...secret,
      TMPDIR: tmp
    })
    expect(run.stderr).not.toContain("error:")
    expect(run.code).toBe(0)
    expect(run.stderr).toContain("demos: 2/2")
    const metrics = JSON.parse(run.stdout) as { run_id: string; tasks: number; trajectories: number; infra_errors: number }
    expect(metrics.tasks).toBe(2)
    expect(metrics.trajectories).toBeGreaterThanOrEqual(4)
    expect(metrics.infra_errors).toBe(0)

    const judged = await core(["eval", "labels", "--app", "packs/mediawiki", "--run", metrics.run_id, "--json", ...flags], {
      ...secret,
      TMPDIR: tmp
    })
    expect(judged.code).toBe(0)
    const scores = JSON.parse(judged.stdout) as { judged: number; agreement: number | null; per_task: Record<string, unknown> }
    expect(scores.judged).toBe(metrics.trajectories)
    expect(Object.keys(scores.per_task).sort()).toEqual(TASKS)
    expect(scores.agreement).not.toBeNull()

    expect(mediawikis()).toEqual([])
    expect(instanceDirs().filter((d) => !before.has(d))).toEqual([])
  },
  120_000
)
