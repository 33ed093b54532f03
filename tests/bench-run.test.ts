/**
 * `bun core bench run` as a user runs it: the real CLI in a child process, which starts its
 * own nats-server, worker subprocesses and `bun core run` drivers. One task and one sample
 * keep it short. Only the report's shape, its counts and its arithmetic are checked — never
 * how fast anything was (timings belong in benchmarks, not tests) — and that nothing the
 * bench started outlives it.
 */
import { describe, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { core, expectOneLineError } from "./support/cli.ts"
import type { ModeFigures } from "../apps/cli/bench/RunBench.ts"

const MODES = ["in_process", "workers_1", "workers_2"] as const

const KEYS = [
  "tasks",
  "samples",
  "seed",
  "episodes_asked",
  "timing",
  "modes",
  "workers_2_shares",
  "queue_overhead_ratio",
  "queue_overhead_target",
  "queue_overhead_ok",
  "parallel_speedup_2_workers",
  "worker_seconds_per_episode",
  "handoff_seconds_per_episode",
  "workers_2_in_flight_max",
  "cpu_samples",
  "driver_cpu_ms_per_episode",
  "driver_cpu_ms_fixed",
  "driver_cpu_includes",
  "nats_cpu_ms_per_episode",
  "worker_cpu_ms_per_episode",
  "cores",
  "load_avg_1m",
  "nats_server_version",
  "bun_version",
  "bench_seconds"
]

/** Tags the bench's process: what it starts inherits the tag, so another test's or user's processes never count. */
const TAG = `CORE_BENCH_RUN_TAG=${process.pid}-${Date.now()}`

const running = (pid: string): boolean => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "latin1"))
  } catch {
    return false // gone
  }
}

/** Live processes carrying the tag (zombies waiting for their parent are not running). */
const tagged = (): Array<string> =>
  readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid) || !running(pid)) return false
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(TAG)
    } catch {
      return false // gone since, or not ours to read
    }
  })

describe("bun core bench run", () => {
  test("--json reports the three modes over the same episodes, and nothing it started is left running", async () => {
    const [name, value] = TAG.split("=") as [string, string]
    const { stdout, stderr, code } = await core(["bench", "run", "--tasks", "shop-open-category-1", "--samples", "1", "--json"], {
      [name]: value
    })
    expect(stderr).not.toContain("error:")
    expect(code).toBe(0)
    const report = JSON.parse(stdout) as Record<string, unknown>
    expect(Object.keys(report).sort()).toEqual([...KEYS].sort())
    expect(report.tasks).toBe(1)
    expect(report.samples).toBe(1)
    expect(report.episodes_asked).toBe(1)
    const modes = report.modes as Record<string, ModeFigures>
    expect(Object.keys(modes).sort()).toEqual([...MODES].sort())
    for (const k of MODES) {
      const m = modes[k]!
      expect(m.episodes).toBe(1)
      for (const v of [m.seconds, m.seconds_per_episode, m.episodes_per_hour]) {
        expect(Number.isFinite(v)).toBe(true)
        expect(v).toBeGreaterThan(0)
      }
      expect(m.infra_errors).toBeGreaterThanOrEqual(0)
    }
    expect([modes.in_process!.workers, modes.workers_1!.workers, modes.workers_2!.workers]).toEqual([0, 1, 2])
    expect([modes.in_process!.parallel, modes.workers_1!.parallel, modes.workers_2!.parallel]).toEqual([1, 1, 2])
    // Four different runs: each mode's own, and the baseline of the CPU figures.
    expect(new Set(MODES.map((k) => modes[k]!.run_id)).size).toBe(3)

    // The arithmetic, from the per-episode figures (rounded to three decimals).
    const spe = (k: (typeof MODES)[number]) => modes[k]!.seconds / modes[k]!.episodes
    const overhead = report.queue_overhead_ratio as number
    expect(Number.isFinite(overhead)).toBe(true)
    expect(Math.abs(overhead - (spe("workers_1") - spe("in_process")) / spe("in_process"))).toBeLessThanOrEqual(0.0005 + 1e-9)
    expect(report.queue_overhead_target).toBe(0.05)
    expect(report.queue_overhead_ok).toBe(overhead <= 0.05)
    const speedup = report.parallel_speedup_2_workers as number
    expect(Math.abs(speedup - modes.workers_2!.episodes_per_hour / modes.workers_1!.episodes_per_hour)).toBeLessThanOrEqual(0.0005 + 1e-9)
    expect(speedup).toBeGreaterThan(0)
    // Each worker stamped the episode it played; the rest of the 1-worker mode's time per episode is the handoff.
    const inWorker = report.worker_seconds_per_episode as Record<string, number>
    expect(Object.keys(inWorker).sort()).toEqual(["workers_1", "workers_2"])
    for (const v of Object.values(inWorker)) expect(v).toBeGreaterThan(0)
    expect(
      Math.abs((report.handoff_seconds_per_episode as number) - (modes.workers_1!.seconds_per_episode - inWorker.workers_1!))
    ).toBeLessThanOrEqual(0.00005 + 1e-9)
    // One episode in the mode: one played at a time.
    expect(report.workers_2_in_flight_max).toBe(1)
    // One sample in the modes: the baseline run plays two, so the difference is one episode.
    expect(report.cpu_samples).toEqual([2, 1])
    for (const k of ["driver_cpu_ms_per_episode", "driver_cpu_ms_fixed", "nats_cpu_ms_per_episode", "worker_cpu_ms_per_episode"])
      expect(Number.isFinite(report[k])).toBe(true)
    const shares = report.workers_2_shares as Record<string, number>
    expect(Object.values(shares).reduce((a, b) => a + b, 0)).toBe(1)

    // Progress on stderr, one line per phase; stdout holds only the JSON.
    expect(stderr.split("\n").filter((l) => /^bench run: \[\d\/5\]/.test(l))).toHaveLength(5)
    const pids = [...stderr.matchAll(/pid (\d+)/g)].map((m) => m[1]!)
    // The nats-server, two workers and four drivers.
    expect(pids).toHaveLength(7)
    expect(stderr).toMatch(/nats-server \S+ pid \d+ at nats:\/\/127\.0\.0\.1:\d+/)
    expect(stderr).not.toContain(":4222")
    expect(pids.filter(running)).toEqual([])
    expect(tagged()).toEqual([])
    const dir = stderr.match(/JetStream in (\S*core-bench-run-[^/\s]+)/)?.[1]
    expect(dir).toBeDefined()
    expect(existsSync(dir!)).toBe(false)
  }, 240_000)

  test("a bad flag is a one-line usage error", async () => {
    for (const args of [
      ["--samples", "0"],
      ["--tasks", "no-such-task"],
      ["--nats-url", "nats://127.0.0.1:4222"]
    ]) {
      const r = await core(["bench", "run", ...args])
      expectOneLineError(r, expect)
      expect(r.code).toBe(2)
      expect(r.stderr.trim().split("\n")).toHaveLength(1)
      expect(r.stderr).toContain(`--${args[0]!.slice(2)}`)
    }
  })
})
