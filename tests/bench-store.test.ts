/**
 * `bun core bench store` as a user runs it: the real CLI in a child process against the
 * real nats-server on 127.0.0.1:4222. Only the report's shape and arithmetic are checked
 * — never how fast anything was: timings belong in benchmarks, not tests.
 */
import { describe, expect, test } from "bun:test"
import { connect } from "@nats-io/transport-node"
import { jetstreamManager } from "@nats-io/jetstream"
import { core } from "./support/cli.ts"

const NATS_URL = "nats://127.0.0.1:4222"

const bench = (args: ReadonlyArray<string>) => core(["bench", "store", ...args])

/** Every NATS figure: each round reports them all, and the headline is each one's median over the rounds. */
const ROUND_KEYS = [
  "append_per_s",
  "raw_publish_per_s",
  "raw_plain_publish_per_s",
  "append_ratio",
  "append_ratio_plain",
  "append_serial_per_s",
  "raw_serial_per_s",
  "append_serial_ratio",
  "read_per_s",
  "raw_read_per_s",
  "read_ratio"
]

const KEYS = [
  "events",
  ...ROUND_KEYS,
  "rounds",
  "embedded_append_per_s",
  "embedded_read_per_s",
  "nats_server_version",
  "bun_version",
  "peak_rss_mb",
  "targets_met"
]

const PAIRS = [
  ["append_per_s", "raw_publish_per_s", "append_ratio", 0.9],
  ["append_per_s", "raw_plain_publish_per_s", "append_ratio_plain", 0.75],
  ["append_serial_per_s", "raw_serial_per_s", "append_serial_ratio", 0.8],
  ["read_per_s", "raw_read_per_s", "read_ratio", 0.6]
] as const

type Report = Record<string, unknown>
const num = (r: Report, k: string): number => {
  const v = r[k]
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`${k} is ${JSON.stringify(v)}, not a finite number`)
  return v
}

/** Computed here rather than imported, so a wrong median in the bench cannot pass by agreeing with itself. */
const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

describe("bun core bench store --json", () => {
  test("reports every figure per round, each headline is the median of its rounds, and the bench stream is gone afterwards", async () => {
    const { stdout, stderr, code } = await bench(["--events", "300", "--json"])
    expect(stderr).not.toContain("error:")
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as Report
    expect(Object.keys(report).sort()).toEqual([...KEYS].sort())
    expect(report.events).toBe(300)
    expect(report.nats_server_version).toMatch(/^\d+\.\d+\.\d+/)
    expect(report.bun_version).toMatch(/^\d+\.\d+\.\d+/)
    for (const k of KEYS.filter((k) => k.endsWith("_per_s") || k.endsWith("_ratio") || k.endsWith("_plain") || k === "peak_rss_mb")) {
      expect(num(report, k)).toBeGreaterThan(0)
    }
    const rounds = report.rounds as ReadonlyArray<Report>
    expect(Array.isArray(rounds)).toBe(true)
    expect(rounds).toHaveLength(3)
    for (const round of rounds) {
      expect(Object.keys(round).sort()).toEqual([...ROUND_KEYS].sort())
      for (const k of ROUND_KEYS) expect(num(round, k)).toBeGreaterThan(0)
      for (const [ours, raw, ratio] of PAIRS) {
        // Ratios are printed to three decimals, from the printed rates.
        expect(Math.abs(num(round, ratio) - num(round, ours) / num(round, raw))).toBeLessThanOrEqual(0.0005 + 1e-9)
      }
    }
    for (const k of ROUND_KEYS) expect(num(report, k)).toBe(median(rounds.map((r) => num(r, k))))
    expect(report.targets_met).toBe(PAIRS.every(([, , ratio, target]) => num(report, ratio) >= target))

    // Progress goes to stderr, two lines per round (what it runs, then its ratios); stdout holds only the JSON.
    expect(stderr.split("\n").filter((l) => /round [1-3]\/3: append_ratio \d/.test(l))).toHaveLength(3)
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

  test("without a reachable NATS it measures the embedded store only and says so", async () => {
    const { stdout, stderr, code } = await bench(["--events", "100", "--json", "--nats-url", "nats://127.0.0.1:1"])
    expect(code).toBe(0)
    expect(stderr).toContain("embedded store only")
    const report = JSON.parse(stdout) as Report
    expect(Object.keys(report).sort()).toEqual([...KEYS].sort())
    for (const k of ROUND_KEYS) expect(report[k]).toBeNull()
    expect(report.rounds).toEqual([])
    expect(report.nats_server_version).toBeNull()
    expect(num(report, "embedded_append_per_s")).toBeGreaterThan(0)
    expect(num(report, "embedded_read_per_s")).toBeGreaterThan(0)
    expect(report.targets_met).toBe(false)
  })

  test("the human table shows each ratio with its target", async () => {
    const { stdout, code } = await bench(["--events", "100", "--nats-url", "nats://127.0.0.1:1"])
    expect(code).toBe(0)
    for (const [, , , target] of PAIRS) expect(stdout).toMatch(new RegExp(`— +≥ ${target} ✗`))
    expect(stdout).toContain("targets NOT met")
  })

  test("a bad --events is a usage error", async () => {
    const { stderr, code } = await bench(["--events", "2.5"])
    expect(code).toBe(2)
    expect(stderr).toContain("--events")
  })
})
