/**
 * Runs logged by earlier versions of CORE must still replay. Each fixture under
 * `tests/fixtures` is a small bundled run recorded in an embedded store by
 * `tests/support/record-replay-fixture.ts` with the code of its day:
 * - `replay-run` (two forum tasks, one round) before the run config was typed and the
 *   environments were merged, so every rule at its first version;
 * - `replay-run-2` (four tasks on the three sites, two rounds) when the behaviour versions
 *   became named rules, so every rule at the version of that day: forms, an answer, a
 *   booking, expansion, extrapolation and promotion.
 * Every later change to events, deciders, policies or services must re-derive their
 * decisions exactly, and their read models too.
 */
import { expect, test } from "bun:test"
import { cpSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, REPO } from "./support/cli.ts"

const FIXTURES = [
  { dir: "replay-run", run: "run-mx9cfcfn-0a9e49", events: 133, decisions: 132 },
  { dir: "replay-run-2", run: "run-mxcb6ggg-b433bd", events: 501, decisions: 500 }
] as const

for (const fixture of FIXTURES) {
  test(`the recorded fixture ${fixture.dir} replays with 0 divergences, read models included`, async () => {
    // Replay and projection write read models beside the log: never into the checkout.
    const dir = mkdtempSync(join(tmpdir(), "core-replay-fixture-"))
    cpSync(join(REPO, "tests", "fixtures", fixture.dir), dir, { recursive: true })
    const store = ["--store", "embedded", "--data-dir", dir]
    const projected = await core(["db", "project", ...store])
    expect(projected.stderr).not.toContain("error:")
    expect(projected.code).toBe(0)
    const { stdout, stderr, code } = await core(["replay", fixture.run, "--projections", "--json", ...store])
    expect(stderr).not.toContain("error:")
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as {
      events: number
      decision_events: number
      divergences: ReadonlyArray<unknown>
      projection_digest_match: boolean | null
    }
    expect(report.events).toBe(fixture.events)
    expect(report.decision_events).toBe(fixture.decisions)
    expect(report.divergences).toEqual([])
    expect(report.projection_digest_match).toBe(true)
  }, 120_000)
}
