/**
 * `bun core eval corruptions` through the real CLI on one task per bundled site (real
 * Chromium, real checkers, real sandbox), each demo's script corrupted once per type: every
 * kept trajectory is a negative its checker confirmed, every corruption the checker still
 * passed is discarded and counted, the figures add up, the built suite is read from its cache
 * the second time, and bad input is one line. The same on a real third-party app (`--app
 * packs/tiddlywiki`, one task's demo), judged by the pack's evaluate on fresh instances. The
 * full suites' figures are in docs/benchmarks.md.
 */
import { afterAll, expect, test } from "bun:test"
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError, REPO } from "./support/cli.ts"
import { instanceProcesses } from "./support/instances.ts"

const dataDir = mkdtempSync(join(tmpdir(), "core-eval-corruptions-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
const TASKS = ["forum-upvote-1", "shop-price-of-1", "travel-add-traveller-1"]
const flags = ["--instance", TASKS.join(","), "--demos-only", "--data-dir", dataDir]
const TYPES = [
  "drop-key-step",
  "duplicate-key-step",
  "swap-steps",
  "other-item",
  "other-value",
  "undo-after",
  "near-miss-answer",
  "stop-early",
  "side-effect"
]

/** The report's types are the nine, and its totals are the sums over them; the sum of a figure over the types. */
const addsUp = (report: any) => {
  expect(Object.keys(report.by_type)).toEqual(TYPES)
  const sum = (k: string) => Object.values(report.by_type).reduce((n: number, t: any) => n + t[k], 0)
  expect(sum("negatives")).toBe(report.negatives)
  expect(sum("false_passes")).toBe(report.false_passes)
  expect(sum("discarded")).toBe(report.discarded)
  return sum
}

test("one task per site: confirmed negatives per type, discards counted, figures that add up, the cache read the second time", async () => {
  const r = await core(["eval", "corruptions", "--json", ...flags])
  if (r.code !== 0) throw new Error(r.stderr.slice(-2000))
  const report = JSON.parse(r.stdout)
  expect(report.tasks).toBe(3)
  expect(report.sources).toMatchObject({ played: 3, passing: 3, labelled_pass: 3 })
  const sum = addsUp(report)
  expect(report.false_pass_list).toHaveLength(report.false_passes)
  // Each task's demo corrupted every way that applies — once per type, and once per key step for a step dropped or
  // doubled — each corruption a negative, discarded or not built.
  const made = (type: string) => report.by_type[type].negatives + report.by_type[type].discarded + report.by_type[type].not_built
  expect(made("drop-key-step")).toBe(made("duplicate-key-step"))
  expect(made("drop-key-step")).toBeGreaterThan(3)
  expect(sum("negatives") + sum("discarded") + sum("not_built")).toBe(7 * 3 + 2 * made("drop-key-step"))
  // A key step left out, another item's script and one value changed are never right on these tasks.
  for (const type of ["other-item", "other-value"]) expect(report.by_type[type].negatives).toBe(3)
  expect(report.by_type["drop-key-step"].negatives).toBeGreaterThanOrEqual(3)
  // Only the price task ends with an answer; its near miss is another amount the page shows.
  expect(report.by_type["near-miss-answer"]).toMatchObject({ negatives: 1, not_built: 2 })
  // Each false pass names the label functions that let it through.
  for (const f of report.false_pass_list) expect(f.held.length).toBeGreaterThan(0)
  for (const key of ["precision", "recall", "npv", "kappa"]) expect(report).toHaveProperty(key)
  // Recall is over the sources: each demo's own script passes its graph.
  expect(report.sources.labelled_pass).toBe(3)
  expect(report.recall).toBe(1)
  expect(sum("discarded_accepted")).toBeLessThanOrEqual(report.discarded)

  // The cached suite: the sources and the discarded corruptions are checker-positive, every other corruption a negative it confirmed.
  const [file] = readdirSync(join(dataDir, "eval")).filter((f) => f.startsWith("corruptions-"))
  const set = JSON.parse(readFileSync(join(dataDir, "eval", file!), "utf8"))
  const discarded = new Set(set.discarded.map((d: { id: string }) => d.id))
  expect(discarded.size).toBe(report.discarded)
  for (const t of set.trajectories) expect(t.checker).toBe(t.kind === "source" || discarded.has(t.id))
  expect(set.discarded.every((d: { reason: string }) => /checker: /.test(d.reason))).toBe(true)

  const again = await core(["eval", "corruptions", "--json", ...flags])
  expect(again.code).toBe(0)
  expect(again.stderr).toContain("evaluation set from")
  expect(JSON.parse(again.stdout)).toMatchObject({ negatives: report.negatives, false_passes: report.false_passes })
}, 600_000)

test("--run: a run's verified passes are the sources, judged by its graphs", async () => {
  const dir = join(dataDir, "run")
  cpSync(join(REPO, "tests", "fixtures", "replay-run-2"), dir, { recursive: true })
  const runFlags = ["--run", "run-mxcb6ggg-b433bd", "--instance", "forum-top-post-1", "--store", "embedded", "--data-dir", dir]
  const r = await core(["eval", "corruptions", "--json", ...runFlags])
  if (r.code !== 0) throw new Error(r.stderr.slice(-2000))
  const report = JSON.parse(r.stdout)
  // The fixture run verified two passes of the task, both played again. One clicked a "4 comments" link the page shows
  // more than once: found again by role and name it opens another post, so its checker fails it and it is no source.
  expect(report.sources).toMatchObject({ played: 2, passing: 1, labelled_pass: 1 })
  expect(r.stderr).toMatch(/run:x1-s2-forum-top-post-1: the source itself does not pass/)
  expect(report.negatives).toBeGreaterThan(0)
  const [file] = readdirSync(join(dir, "eval")).filter((f) => f.startsWith("corruptions-"))
  const set = JSON.parse(readFileSync(join(dir, "eval", file!), "utf8"))
  const sources = set.trajectories.filter((t: { kind: string }) => t.kind === "source").map((t: { id: string }) => t.id)
  expect(sources).toEqual(["forum-top-post-1/source/run:r2-s0-forum-top-post-1"])
  // Every negative is a corruption of that pass.
  for (const t of set.trajectories) expect(t.family).toBe("run:r2-s0-forum-top-post-1")
  const unknown = await core(["eval", "corruptions", "--run", "run-nope", "--store", "embedded", "--data-dir", dir])
  expectOneLineError(unknown, expect)
}, 600_000)

test("--app: a pack's demo corrupted every way that applies, played on fresh instances, confirmed by its evaluate; nothing left running", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "core-eval-corruptions-tmp-"))
  const dir = join(dataDir, "app")
  const appFlags = ["--app", "packs/tiddlywiki", "--instance", "t02-search-spare-fuses", "--demos-only", "--data-dir", dir]
  try {
    const r = await core(["eval", "corruptions", "--json", ...appFlags], { TMPDIR: tmp })
    if (r.code !== 0) throw new Error(r.stderr.slice(-2000))
    const report = JSON.parse(r.stdout)
    expect(report.tasks).toBe(1)
    expect(report.sources).toMatchObject({ played: 1, passing: 1, labelled_pass: 1 })
    addsUp(report)
    // The search typed, the result opened, the count answered: its search dropped, its value changed, another task's demo
    // and another number from the same page are wrong, and evaluate says so; CORE's labels too.
    for (const type of ["drop-key-step", "other-value", "other-item", "near-miss-answer"])
      expect(report.by_type[type].negatives).toBeGreaterThanOrEqual(1)
    expect(report.false_passes).toBe(0)
    expect(report.false_pass_list).toEqual([])
    const [file] = readdirSync(join(dir, "eval")).filter((f) => f.startsWith("corruptions-app-"))
    const set = JSON.parse(readFileSync(join(dir, "eval", file!), "utf8"))
    const discarded = new Set(set.discarded.map((d: { id: string }) => d.id))
    for (const t of set.trajectories) expect(t.checker).toBe(t.kind === "source" || discarded.has(t.id))
    expect(set.trajectories.filter((t: { kind: string }) => t.kind === "near-miss-answer")[0].note).toMatch(/^answered "/)
    expect(instanceProcesses(tmp, [join(REPO, "packs", "tiddlywiki"), join(tmp, "core-tw-")])).toEqual([])

    for (const bad of [
      ["--suite", "shop"],
      ["--run", "run-nope"],
      ["--instance", "t99-nope"]
    ]) {
      const e = await core(["eval", "corruptions", "--app", "packs/tiddlywiki", ...bad, "--data-dir", dir], { TMPDIR: tmp })
      expectOneLineError(e, expect)
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}, 600_000)

test("bad input: one-line errors", async () => {
  expectOneLineError(await core(["eval", "corruptions", "--suite", "bank", "--data-dir", dataDir]), expect)
  expectOneLineError(await core(["eval", "corruptions", "--parallel", "0", "--data-dir", dataDir]), expect)
  const unknown = await core(["eval", "corruptions", "--instance", "shop-nope-9", "--data-dir", dataDir])
  expectOneLineError(unknown, expect)
  expect(unknown.stderr).toContain("shop-nope-9")
}, 120_000)
