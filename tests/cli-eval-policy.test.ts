/**
 * `eval --policy` as a user meets it, without playing an episode: `learned` is taken by the
 * single-round evaluation and by `--report` (each goes on to what is missing: an unsealed
 * round of the recorded fixture run, a site that is not there), and any other value is a
 * one-line usage error naming the choices.
 */
import { afterAll, expect, test } from "bun:test"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
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
