/**
 * `bun core bench env` as a user runs it: the real CLI in a child process, the bundled shop
 * in-process and real Chromium. Only the report's shape and arithmetic are checked — never
 * how fast anything was (timings belong in benchmarks, not tests) — and that no Chromium
 * outlives the command.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { core } from "./support/cli.ts"

const KEYS = [
  "episodes",
  "steps_per_episode",
  "reset_ms_p50",
  "raw_reset_ms_p50",
  "raw_first_observe_ms_p50",
  "step_ms_p50",
  "click_ms_p50",
  "type_ms_p50",
  "raw_step_ms_p50",
  "steps_per_s",
  "raw_steps_per_s",
  "step_ratio",
  "episodes_per_hour",
  "action_ms_p50",
  "settle_ms_p50",
  "observe_ms_p50",
  "episodes_retried",
  "peak_rss_mb",
  "bun_version",
  "targets_met"
]

type Report = Record<string, unknown>
const num = (r: Report, k: string): number => {
  const v = r[k]
  if (typeof v !== "number") throw new Error(`${k} is ${JSON.stringify(v)}, not a number`)
  return v
}

/** Tags the bench's process: the Chromiums it starts inherit the tag, so another test's or user's browsers never count. */
const TAG = `CORE_BENCH_ENV_TAG=${process.pid}-${Date.now()}`

/** Live headless Chromium processes started under the tag (zombies waiting for their parent are not running). */
const liveChromium = (): Array<string> => {
  const pids = Bun.spawnSync(["pgrep", "-f", "chromium.*--headless"])
    .stdout.toString()
    .split("\n")
    .filter((l) => l !== "")
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1")
      return !/^\d+ \(.*\) Z /.test(stat) && readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(TAG)
    } catch {
      return false // gone since
    }
  })
}

describe("bun core bench env --json", () => {
  test("reports every figure, step_ratio is ours ÷ raw, and no Chromium is left running", async () => {
    const [name, value] = TAG.split("=") as [string, string]
    const { stdout, stderr, code } = await core(["bench", "env", "--episodes", "2", "--json"], { [name]: value })
    expect(stderr).not.toContain("error:")
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as Report
    expect(Object.keys(report).sort()).toEqual([...KEYS].sort())
    expect(report.episodes).toBe(2)
    expect(report.steps_per_episode).toBe(10)
    for (const k of KEYS.filter((k) => k.endsWith("_p50") || k.endsWith("_per_s") || k === "step_ratio" || k === "episodes_per_hour")) {
      if (k === "settle_ms_p50" || k === "steps_per_s") continue
      expect(num(report, k)).toBeGreaterThan(0)
    }
    // Settling may honestly take no time at all when a step caused no network activity.
    expect(num(report, "settle_ms_p50")).toBeGreaterThanOrEqual(0)
    const perP = report.steps_per_s as Record<string, unknown>
    expect(Object.keys(perP).sort()).toEqual(["1", "2", "4"])
    for (const v of Object.values(perP)) expect(v as number).toBeGreaterThan(0)
    // The ratio is rounded to three decimals from the printed rates.
    expect(Math.abs(num(report, "step_ratio") - (perP["1"] as number) / num(report, "raw_steps_per_s"))).toBeLessThanOrEqual(0.0005 + 1e-9)
    expect(report.targets_met).toBe(num(report, "reset_ms_p50") < 150 && num(report, "step_ratio") >= 0.7)

    // Progress on stderr, one line per phase; stdout holds only the JSON.
    expect(stderr.split("\n").filter((l) => /^\[\d\/4\]/.test(l))).toHaveLength(4)
    expect(liveChromium()).toEqual([])
  }, 180_000)

  test("a bad --episodes is a usage error", async () => {
    const bad = await core(["bench", "env", "--episodes", "0"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--episodes")
  })
})
