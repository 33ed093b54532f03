/**
 * `bun core bench replay` as a user runs it: the real CLI in a child process against the
 * real nats-server on 127.0.0.1:4222. Only the report's shape and arithmetic are checked
 * — never how fast anything was: timings belong in benchmarks, not tests.
 */
import { describe, expect, test } from "bun:test"
import { connect } from "@nats-io/transport-node"
import { jetstreamManager } from "@nats-io/jetstream"
import { core } from "./support/cli.ts"

const NATS_URL = "nats://127.0.0.1:4222"

const bench = (args: ReadonlyArray<string>) => core(["bench", "replay", ...args])

const KEYS = [
  "events",
  "commits",
  "rebuild_per_s",
  "raw_read_per_s",
  "ratio",
  "peak_rss_mb",
  "nats_server_version",
  "bun_version",
  "targets_met"
]

type Report = Record<string, unknown>
const num = (r: Report, k: string): number => {
  const v = r[k]
  if (typeof v !== "number") throw new Error(`${k} is ${JSON.stringify(v)}, not a number`)
  return v
}

describe("bun core bench replay", () => {
  test("--json reports every figure, ratio is rebuild ÷ raw, and the bench stream is gone afterwards", async () => {
    const { stdout, stderr, code } = await bench(["--events", "2000", "--json"])
    expect(stderr).not.toContain("error:")
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as Report
    expect(Object.keys(report).sort()).toEqual([...KEYS].sort())
    expect(report.events).toBe(2000)
    // Some commits hold two events (a trajectory's recording and its verdict).
    expect(num(report, "commits")).toBeGreaterThan(0)
    expect(num(report, "commits")).toBeLessThan(2000)
    for (const k of ["rebuild_per_s", "raw_read_per_s", "ratio", "peak_rss_mb"]) expect(num(report, k)).toBeGreaterThan(0)
    // Printed to three decimals, from the printed rates.
    expect(Math.abs(num(report, "ratio") - num(report, "rebuild_per_s") / num(report, "raw_read_per_s"))).toBeLessThanOrEqual(0.0005 + 1e-9)
    expect(report.targets_met).toBe(num(report, "rebuild_per_s") >= 50_000 && num(report, "ratio") >= 0.3)
    expect(report.nats_server_version).toMatch(/^\d+\.\d+\.\d+/)

    // Progress on stderr, one line per phase; stdout holds only the JSON.
    expect(stderr.split("\n").filter((l) => /\[\d\/4\]/.test(l))).toHaveLength(4)
    const streamName = stderr.match(/stream (CORE_BENCH_[A-Za-z0-9]+)/)?.[1]
    expect(streamName).toBeDefined()
    const nc = await connect({ servers: NATS_URL })
    try {
      const jsm = await jetstreamManager(nc)
      expect(
        await jsm.streams.info(streamName!).then(
          () => "still there",
          () => "deleted"
        )
      ).toBe("deleted")
    } finally {
      await nc.close()
    }
  })

  test("the human table shows both targets with a mark", async () => {
    const { stdout, code } = await bench(["--events", "500"])
    expect(code).toBe(0)
    expect(stdout).toMatch(/≥ 50,000 [✓✗]/)
    expect(stdout).toMatch(/≥ 0\.3 [✓✗]/)
    expect(stdout).toMatch(/targets (met|NOT met)/)
  })

  test("without NATS it is a one-line error, and a bad --events is a usage error", async () => {
    const down = await bench(["--events", "500", "--nats-url", "nats://127.0.0.1:1"])
    expect(down.code).toBe(1)
    expect(down.stderr).toContain("needs NATS with JetStream")
    const bad = await bench(["--events", "2.5"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--events")
  })
})
