/**
 * `bun core bench sandbox` as a user runs it: the real CLI in a child process, one real
 * sandbox worker. Only the report's shape and arithmetic are checked — never how fast
 * anything was: timings belong in benchmarks, not tests.
 */
import { describe, expect, test } from "bun:test"
import { core } from "./support/cli.ts"

const bench = (args: ReadonlyArray<string>) => core(["bench", "sandbox", ...args])

const KEYS = ["evals_per_s", "native_evals_per_s", "ratio", "target_evals_per_s", "ok", "trajectory_steps", "trajectory_elements"]

type Report = Record<string, unknown>
const num = (r: Report, k: string): number => {
  const v = r[k]
  if (typeof v !== "number") throw new Error(`${k} is ${JSON.stringify(v)}, not a number`)
  return v
}

describe("bun core bench sandbox", () => {
  test("--json prints one object with every figure; ratio is sandbox ÷ native", async () => {
    const { stdout, stderr, code } = await bench(["--evaluations", "1000", "--json"])
    expect(stderr).not.toContain("error:")
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as Report
    expect(Object.keys(report).sort()).toEqual([...KEYS].sort())
    for (const k of ["evals_per_s", "native_evals_per_s", "ratio"]) expect(num(report, k)).toBeGreaterThan(0)
    expect(Math.abs(num(report, "ratio") - num(report, "evals_per_s") / num(report, "native_evals_per_s"))).toBeLessThanOrEqual(
      0.0005 + 1e-9
    )
    expect(report.target_evals_per_s).toBe(5000)
    expect(report.ok).toBe(num(report, "evals_per_s") >= 5000)
    // The committed fixture: the median shop demo.
    expect(report.trajectory_steps).toBe(5)
    expect(report.trajectory_elements).toBe(79)
    expect(stderr.split("\n").filter((l) => /\[\d\/3\]/.test(l))).toHaveLength(3)
  })

  test("the table shows the target with a mark; a bad --evaluations is a usage error", async () => {
    const { stdout, code } = await bench(["--evaluations", "500"])
    expect(code).toBe(0)
    expect(stdout).toMatch(/≥ 5,000 [✓✗]/)
    expect(stdout).toMatch(/target (met|NOT met)/)
    const bad = await bench(["--evaluations", "12.5"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--evaluations")
  })
})
