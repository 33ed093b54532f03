/**
 * `bun core bench ui` as a user runs it: the real CLI in a child process, the console and
 * the static server on loopback. Only the report's shape, its counts and its arithmetic are
 * checked — never how fast anything was: timings belong in benchmarks, not tests.
 */
import { describe, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { core } from "./support/cli.ts"

const bench = (args: ReadonlyArray<string>) => core(["bench", "ui", ...args])

const TIMINGS = ["trajectory_page_ms", "trajectory_load_ms", "static_load_ms", "runs_page_ms", "static_runs_ms"].flatMap((k) => [
  `${k}_p50`,
  `${k}_p95`
])

const KEYS = [
  "runs",
  "trajectory_steps",
  "screenshots",
  "screenshot_kb_mean",
  "events",
  "samples",
  "trajectory_page_kb",
  "runs_page_kb",
  ...TIMINGS,
  "ratio",
  "runs_ratio",
  "target_ms",
  "trajectory_ok",
  "runs_ok",
  "targets_met",
  "peak_rss_mb",
  "bun_version"
]

type Report = Record<string, unknown>
const num = (r: Report, k: string): number => {
  const v = r[k]
  if (typeof v !== "number") throw new Error(`${k} is ${JSON.stringify(v)}, not a number`)
  return v
}

describe("bun core bench ui", () => {
  test("--json reports every figure over the log it built, and the temp data dir is gone afterwards", async () => {
    const { stdout, stderr, code } = await bench(["--json"])
    expect(stderr).not.toContain("error:")
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as Report
    expect(Object.keys(report).sort()).toEqual([...KEYS].sort())
    // What was built, as the pages showed it: the initial screen and one per step.
    expect(report.runs).toBe(100)
    expect(report.trajectory_steps).toBe(12)
    expect(report.screenshots).toBe(13)
    expect(report.samples).toBe(30)
    expect(num(report, "events")).toBeGreaterThan(100)
    // 1280×800 PNGs of a real page's size, not stand-ins of a few bytes.
    expect(num(report, "screenshot_kb_mean")).toBeGreaterThan(30)
    for (const k of ["trajectory_page_kb", "runs_page_kb", ...TIMINGS, "ratio", "runs_ratio"]) expect(num(report, k)).toBeGreaterThan(0)
    for (const k of TIMINGS.filter((t) => t.endsWith("_p50")))
      expect(num(report, k)).toBeLessThanOrEqual(num(report, k.replace(/_p50$/, "_p95")))
    // Three decimals, from the printed p50s.
    const close = (r: string, a: string, b: string) =>
      expect(Math.abs(num(report, r) - num(report, a) / num(report, b))).toBeLessThanOrEqual(0.0005 + 1e-9)
    close("ratio", "trajectory_load_ms_p50", "static_load_ms_p50")
    close("runs_ratio", "runs_page_ms_p50", "static_runs_ms_p50")
    expect(report.target_ms).toBe(300)
    expect(report.trajectory_ok).toBe(num(report, "trajectory_page_ms_p95") < 300)
    expect(report.runs_ok).toBe(num(report, "runs_page_ms_p95") < 300)
    expect(report.targets_met).toBe(report.trajectory_ok === true && report.runs_ok === true)

    // Progress on stderr, one line per phase; stdout holds only the JSON.
    expect(stderr.split("\n").filter((l) => /\[\d\/4\]/.test(l))).toHaveLength(4)
    const dir = stderr.match(/to (\S*core-bench-ui-\S+)/)?.[1]
    expect(dir).toBeDefined()
    expect(existsSync(dir!)).toBe(false)
  }, 120_000)

  test("the table shows both targets with a mark; a bad --samples is a usage error", async () => {
    const { stdout, code } = await bench(["--samples", "20"])
    expect(code).toBe(0)
    expect(stdout.match(/p95 < 300 [✓✗]/g)).toHaveLength(2)
    expect(stdout).toContain("trajectory page, 12 steps")
    expect(stdout).toContain("runs page, 100 runs")
    expect(stdout).toMatch(/targets (met|NOT met)/)
    for (const bad of ["19", "2.5"]) {
      const r = await bench(["--samples", bad])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("--samples")
    }
  }, 120_000)
})
