/**
 * `bun core replay` as a user meets it: a demo run replays with no divergence on both
 * stores; a log whose decision was edited behind the store's back is reported with its
 * first divergent event and a field-level diff, exit 1 and one `error:` line; an unknown
 * run id is a one-line error.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError } from "./support/cli.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-cli-replay-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe.each([["embedded"], ["nats"]])("replay on the %s store", (store) => {
  const flags = ["--store", store, "--data-dir", join(tmp, `data-${store}`)]

  test("a demo run replays with no divergence", async () => {
    const demo = await core(["demo", "--round-trip", "--json", ...flags])
    expect(demo.code).toBe(0)
    const { run_id } = JSON.parse(demo.stdout)
    const r = await core(["replay", run_id, "--json", ...flags])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ events: 7, projection_digest_match: null, decision_events: 6, divergences: [] })
    const human = await core(["replay", run_id, "--round", "1", ...flags])
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/divergences\s+0/)
    expect(human.stdout).toMatch(/decision events\s+6 logged, 6 re-derived/)
  })

  test("an unknown run id is a one-line error", async () => {
    const r = await core(["replay", "no-such-run", ...flags])
    expectOneLineError(r, expect)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("error: run no-such-run not found")
  })
})

test("an edited decision is the first divergence, with its diff", async () => {
  const dir = join(tmp, "edited")
  const flags = ["--store", "embedded", "--data-dir", dir]
  const { run_id } = JSON.parse((await core(["demo", "--round-trip", "--json", ...flags])).stdout)
  const db = new Database(join(dir, "events.db"))
  const [from, to] = ['"worker":"demo"', '"worker":"elsewhere"']
  const edited = db
    .query("UPDATE commits SET body = replace(body, ?1, ?2) WHERE stream = ?3 AND instr(body, ?1) > 0")
    .run(from, to, `run.${run_id}.job.job-1`)
  db.close()
  expect(edited.changes).toBe(1)

  const human = await core(["replay", run_id, ...flags])
  expectOneLineError(human, expect)
  expect(human.code).toBe(1)
  expect(human.stdout).toMatch(/divergences\s+1/)
  expect(human.stdout).toMatch(
    new RegExp(`first divergence: changed JobCompleted [0-9a-f]{16}… in run\\.${run_id}\\.job\\.job-1 \\(decider demo-jobs\\)`)
  )
  expect(human.stdout).toContain('data.worker: "elsewhere" → "demo"')
  expect(human.stderr).toMatch(/error: run .* diverged: 1 divergence, the first at JobCompleted/)

  const json = await core(["replay", run_id, "--json", ...flags])
  expect(json.code).toBe(1)
  const out = JSON.parse(json.stdout)
  expect(Object.keys(out)).toEqual(["events", "projection_digest_match", "decision_events", "divergences"])
  expect(out.divergences).toHaveLength(1)
  expect(out.divergences[0]).toMatchObject({
    kind: "changed",
    type: "JobCompleted",
    stream: `run.${run_id}.job.job-1`,
    diff: [{ path: "data.worker", logged: "elsewhere", rederived: "demo" }]
  })
})

describe.each([["embedded"], ["nats"]])("replay --projections on the %s store", (store) => {
  const dir = join(tmp, `projections-${store}`)
  const flags = ["--store", store, "--data-dir", dir]

  test("live read models match a rebuild from the log; a tampered row does not", async () => {
    const { run_id } = JSON.parse((await core(["demo", "--round-trip", "--json", ...flags])).stdout)
    const before = await core(["replay", run_id, "--projections", ...flags])
    expectOneLineError(before, expect)
    expect(before.stderr).toContain("run 'bun core db project' first")

    expect((await core(["db", "project", ...flags])).code).toBe(0)
    const ok = await core(["replay", run_id, "--projections", "--json", ...flags])
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout)).toEqual({ events: 7, projection_digest_match: true, decision_events: 6, divergences: [] })

    const db = new Database(join(dir, "projections.db"))
    const changed = db.query("UPDATE runs SET command = 'tampered' WHERE run_id = ?").run(run_id)
    db.close()
    expect(changed.changes).toBe(1)
    const bad = await core(["replay", run_id, "--projections", "--json", ...flags])
    expect(bad.code).toBe(1)
    expect(JSON.parse(bad.stdout).projection_digest_match).toBe(false)
    expect(bad.stderr).toContain("read model runs differs")
    expect(bad.stderr).toContain("error: run")
  })
})
