/**
 * Runs logged by earlier versions of CORE must still replay. `tests/fixtures/replay-run` is
 * a small bundled run (two forum tasks, one round, no rollout screenshots) recorded in an
 * embedded store before the run config was typed and the environments were merged
 * (recorded by `tests/support/record-replay-fixture.ts`). Every later change to events,
 * deciders or services must re-derive its decisions exactly, and its read models too.
 */
import { expect, test } from "bun:test"
import { cpSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, REPO } from "./support/cli.ts"

const RUN = "run-mx9cfcfn-0a9e49"

test("the recorded fixture run replays with 0 divergences, read models included", async () => {
  // Replay and projection write read models beside the log: never into the checkout.
  const dir = mkdtempSync(join(tmpdir(), "core-replay-fixture-"))
  cpSync(join(REPO, "tests", "fixtures", "replay-run"), dir, { recursive: true })
  const store = ["--store", "embedded", "--data-dir", dir]
  const projected = await core(["db", "project", ...store])
  expect(projected.stderr).not.toContain("error:")
  expect(projected.code).toBe(0)
  const { stdout, stderr, code } = await core(["replay", RUN, "--projections", "--json", ...store])
  expect(stderr).not.toContain("error:")
  expect(code).toBe(0)
  const report = JSON.parse(stdout) as {
    events: number
    decision_events: number
    divergences: ReadonlyArray<unknown>
    projection_digest_match: boolean | null
  }
  expect(report.events).toBe(133)
  expect(report.decision_events).toBe(132)
  expect(report.divergences).toEqual([])
  expect(report.projection_digest_match).toBe(true)
}, 120_000)
