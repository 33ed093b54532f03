/**
 * `bench run`: rollout throughput to plan with. One fixed set of episodes — the tasks ×
 * `samples` rollouts of one round, exploration policy, no explorer, expansion or
 * extrapolation, a fixed seed — played three ways by the real CLI: in-process with
 * `--parallel 1`, through 1 worker (`--workers queue --parallel 1`), and through 2 workers
 * (`--parallel 2`), each worker a `bun core worker --concurrency 1` subprocess.
 *
 * Everything runs against a nats-server the bench starts on a free loopback port with its
 * store in a temp dir, and one data dir: the first run records and ingests the demos, the
 * later runs find them. A mode's `seconds` is its round 1 as the run's own events date it:
 * the first rollout JobQueued to the last TrajectoryRecorded, by their `recordedAt` (so the
 * process start, demos, label inference and the round's verification and dataset fall
 * outside it).
 *
 * The driver's cost per episode in queue mode is CPU time: two runs through the 2 workers
 * that differ only in `--samples`, the driver subprocess's user + system CPU after it
 * exited (Bun's resourceUsage: the process and every descendant it reaped — the label
 * functions' sandbox processes), the difference divided by the difference in episodes. What
 * a run costs regardless of its size (start-up, inference, sealing) cancels out. The
 * nats-server's and the workers' CPU over the same two runs are read from /proc the same way.
 *
 * Order: in-process (recording the demos first), the smaller 2-worker run (which also warms
 * both workers' browsers), 2 workers, then 1 worker once the second has been stopped.
 */
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { runCore, startNats, startWorker, treeCpuMs } from "./RunBenchProcs.ts"
import type { Worker } from "./RunBenchProcs.ts"
import { BenchError } from "./StoreBench.ts"

export const RUN_SEED = "bench-run"
/** Target for queue_overhead_ratio: a worker may cost at most 5% more time per episode than playing in-process. */
export const OVERHEAD_TARGET = 0.05

export const TIMING = "round 1 of each run: first rollout JobQueued → last TrajectoryRecorded, by their recordedAt"
export const DRIVER_CPU_INCLUDES =
  "the driver process's user+system CPU and its reaped children's (sandbox workers): decide and append (JobQueued, TrajectoryRecorded, verdicts, dataset records), publish the job, take the result, replay it against its observations, run its label functions in the sandbox"

export interface ModeFigures {
  readonly run_id: string
  readonly parallel: number
  readonly workers: number
  readonly episodes: number
  readonly infra_errors: number
  /** The rollout phase only (TIMING). */
  readonly seconds: number
  readonly seconds_per_episode: number
  readonly episodes_per_hour: number
}

export interface RunBenchResult {
  readonly tasks: number
  readonly samples: number
  readonly seed: string
  /** tasks × samples: what each mode was asked to play. */
  readonly episodes_asked: number
  readonly timing: string
  readonly modes: {
    readonly in_process: ModeFigures
    readonly workers_1: ModeFigures
    readonly workers_2: ModeFigures
  }
  /** Episodes each worker played in the 2-worker mode, as the driver counted them. */
  readonly workers_2_shares: Readonly<Record<string, number>>
  /** (s/episode through 1 worker − s/episode in-process) ÷ s/episode in-process. */
  readonly queue_overhead_ratio: number
  readonly queue_overhead_target: number
  readonly queue_overhead_ok: boolean
  /** episodes_per_hour(2 workers) ÷ episodes_per_hour(1 worker). */
  readonly parallel_speedup_2_workers: number
  /** Mean seconds a worker spent on an episode, from its `playing` line to its outcome line (RunBenchProcs.ts). */
  readonly worker_seconds_per_episode: { readonly workers_1: number; readonly workers_2: number }
  /** 1 worker: seconds per episode in the window less the worker's own: the job's way there and the record's way back, checked and appended. */
  readonly handoff_seconds_per_episode: number
  /** The most episodes the 2 workers played at the same time (their spans overlapping): 2 when both were kept busy. */
  readonly workers_2_in_flight_max: number
  /** The two `--samples` of the runs the CPU figures come from (through 2 workers). */
  readonly cpu_samples: readonly [number, number]
  readonly driver_cpu_ms_per_episode: number
  /** What the driver spends on a run whatever its size: start-up, inference, sealing (the line's intercept). */
  readonly driver_cpu_ms_fixed: number
  readonly driver_cpu_includes: string
  readonly nats_cpu_ms_per_episode: number
  /** Both workers together, their browsers included: the CPU an episode costs where it is played. */
  readonly worker_cpu_ms_per_episode: number
  readonly cores: number
  readonly load_avg_1m: { readonly start: number; readonly end: number }
  readonly nats_server_version: string
  readonly bun_version: string
  readonly bench_seconds: number
}

export interface RunBenchOptions {
  readonly taskIds: ReadonlyArray<string>
  readonly samples: number
  readonly progress?: (line: string) => void
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits

interface Window {
  readonly episodes: number
  readonly infraErrors: number
  readonly seconds: number
}

/** Round 1's window from the run's events, as `bun core events tail --json` prints them. */
export const windowOf = (jsonl: string): Window => {
  let start = Number.POSITIVE_INFINITY
  let end = Number.NEGATIVE_INFINITY
  let episodes = 0
  let infraErrors = 0
  for (const line of jsonl.split("\n")) {
    if (line.trim() === "") continue
    const e = JSON.parse(line) as { type: string; recordedAt: string; data: { round?: number; kind?: string; outcome?: string } }
    if (e.data.round !== 1) continue
    const at = Date.parse(e.recordedAt)
    if (e.type === "JobQueued" && (e.data.kind === "rollout" || e.data.kind === "explore")) start = Math.min(start, at)
    if (e.type === "TrajectoryRecorded") {
      end = Math.max(end, at)
      episodes++
      if (e.data.outcome === "infra-error") infraErrors++
    }
  }
  return { episodes, infraErrors, seconds: Number.isFinite(start) && end > start ? (end - start) / 1000 : 0 }
}

const figures = (runId: string, parallel: number, workers: number, w: Window): ModeFigures => ({
  run_id: runId,
  parallel,
  workers,
  episodes: w.episodes,
  infra_errors: w.infraErrors,
  seconds: round(w.seconds, 3),
  seconds_per_episode: w.episodes > 0 ? round(w.seconds / w.episodes, 4) : 0,
  episodes_per_hour: w.seconds > 0 ? Math.round((w.episodes * 3600) / w.seconds) : 0
})

/** The driver's last `workers: w1 45, w2 45 episodes` line. */
const sharesOf = (stderr: string): Record<string, number> => {
  const line = [...stderr.matchAll(/workers: ((?:[\w-]+ \d+(?:, )?)+) episodes/g)].at(-1)?.[1] ?? ""
  return Object.fromEntries([...line.matchAll(/([\w-]+) (\d+)/g)].map((m) => [m[1]!, Number(m[2])]))
}

type Span = { readonly start: number; readonly end: number }

const meanSeconds = (spans: ReadonlyArray<Span>): number =>
  spans.length === 0 ? Number.NaN : round(spans.reduce((a, x) => a + x.end - x.start, 0) / spans.length / 1000, 4)

/** The most spans open at one moment. */
export const inFlightMax = (spans: ReadonlyArray<Span>): number => {
  const edges = spans.flatMap((x) => [[x.start, 1] as const, [x.end, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let open = 0
  let most = 0
  for (const [, d] of edges) most = Math.max(most, (open += d))
  return most
}

export const runRunBench = (options: RunBenchOptions) =>
  Effect.gen(function* () {
    const log = options.progress ?? (() => undefined)
    const began = performance.now()
    const loadStart = loadavg()[0]!
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "core-bench-run-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    const dataDir = join(dir, "data")
    mkdirSync(join(dir, "nats"))
    const { taskIds, samples } = options
    const asked = taskIds.length * samples

    log(`bench run: [1/5] a nats-server of its own on 127.0.0.1 (JetStream in ${dir}/nats, data dir ${dataDir})`)
    const nats = yield* startNats(join(dir, "nats"), (attempt) => join(dir, `nats-${attempt}.log`))
    log(`bench run: nats-server ${nats.version} pid ${nats.pid} at ${nats.url}`)
    const common = ["--store", "nats", "--nats-url", nats.url, "--data-dir", dataDir]

    let runs = 0
    /** One `bun core run` of the fixed episodes; its window from its events. */
    const play = (label: string, runSamples: number, parallel: number, workers: ReadonlyArray<Worker>) =>
      Effect.gen(function* () {
        const name = `run-${++runs}`
        const args = [
          "run",
          ...["--tasks", taskIds.join(","), "--rounds", "1", "--samples", String(runSamples), "--parallel", String(parallel)],
          ...(workers.length > 0 ? ["--workers", "queue"] : []),
          ...["--policy", "exploration", "--explore-per-task", "0", "--expand-per-task", "0", "--extrapolate-per-task", "0"],
          ...["--seed", RUN_SEED, ...common, "--json"]
        ]
        const driven = runCore(args, join(dir, `${name}.log`), (pid) => log(`bench run: ${label}: driver pid ${pid}`))
        // A worker that dies would leave the run waiting for episodes nobody plays.
        const r = yield* workers.length === 0 ? driven : Effect.raceFirst(driven, Effect.raceAllFirst(workers.map((w) => w.died)))
        const runId = (JSON.parse(r.stdout) as { run_id?: unknown }).run_id
        if (typeof runId !== "string") return yield* new BenchError({ message: `bench run: ${label}: the run printed no run_id` })
        const tail = yield* runCore(
          ["events", "tail", "--no-follow", "--filter", `run.${runId}.>`, "--type", "JobQueued,TrajectoryRecorded", ...common],
          join(dir, `${name}-events.log`)
        )
        const w = windowOf(tail.stdout)
        if (w.episodes === 0 || w.seconds <= 0)
          return yield* new BenchError({ message: `bench run: ${label}: run ${runId} logged no round-1 episodes` })
        const stderr = yield* Effect.promise(() => Bun.file(join(dir, `${name}.log`)).text())
        const shares = sharesOf(stderr)
        const by = Object.entries(shares).map(([k, n]) => `${k} ${n}`)
        log(
          `bench run: ${label}: ${w.episodes} episodes in ${w.seconds.toFixed(1)} s (run ${runId}${by.length > 0 ? `; ${by.join(", ")}` : ""})`
        )
        return { mode: figures(runId, parallel, workers.length, w), cpuMs: r.cpuMs, shares }
      })

    log(`bench run: [2/5] in-process, --parallel 1: ${asked} episodes (the first run records and ingests the demos, outside the window)`)
    const inProcess = yield* play("in-process", samples, 1, [])

    const low = samples === 1 ? 2 : 1
    log(`bench run: [3/5] workers w1 and w2; --samples ${low} through both (untimed: the driver-CPU baseline, and warms their browsers)`)
    const workers: Array<Worker> = []
    for (const name of ["w1", "w2"]) {
      workers.push(yield* startWorker(name, common, join(dir, `${name}.log`), (pid) => log(`bench run: worker ${name} pid ${pid}`)))
    }
    /** A run with the CPU of the nats-server and of both workers' process trees read around it. */
    const measured = (label: string, runSamples: number) =>
      Effect.gen(function* () {
        const before = { nats: treeCpuMs([nats.pid]), workers: treeCpuMs(workers.map((w) => w.pid)) }
        const r = yield* play(label, runSamples, 2, workers)
        const after = { nats: treeCpuMs([nats.pid]), workers: treeCpuMs(workers.map((w) => w.pid)) }
        return { ...r, natsMs: after.nats - before.nats, workersMs: after.workers - before.workers }
      })
    const small = yield* measured("baseline", low)

    log(`bench run: [4/5] 2 workers, --parallel 2: ${asked} episodes`)
    const two = yield* measured("2 workers", samples)
    const [w1, w2] = workers as [Worker, Worker]
    yield* w2.stop

    log(`bench run: [5/5] 1 worker (w2 stopped), --parallel 1: ${asked} episodes`)
    const one = yield* play("1 worker", samples, 1, [w1])
    yield* w1.stop

    const spans1 = w1.played(one.mode.run_id)
    const spans2 = workers.flatMap((w) => w.played(two.mode.run_id))
    const inWorker = { workers_1: meanSeconds(spans1), workers_2: meanSeconds(spans2) }
    const extra = two.mode.episodes - small.mode.episodes
    const perEpisode = (hi: number, lo: number) => round((hi - lo) / extra, 1)
    const driverPerEpisode = perEpisode(two.cpuMs, small.cpuMs)
    const spe = (m: ModeFigures) => m.seconds / m.episodes
    const overhead = round((spe(one.mode) - spe(inProcess.mode)) / spe(inProcess.mode), 3)
    return {
      tasks: taskIds.length,
      samples,
      seed: RUN_SEED,
      episodes_asked: asked,
      timing: TIMING,
      modes: { in_process: inProcess.mode, workers_1: one.mode, workers_2: two.mode },
      workers_2_shares: two.shares,
      queue_overhead_ratio: overhead,
      queue_overhead_target: OVERHEAD_TARGET,
      queue_overhead_ok: overhead <= OVERHEAD_TARGET,
      parallel_speedup_2_workers: round(two.mode.episodes_per_hour / one.mode.episodes_per_hour, 3),
      worker_seconds_per_episode: inWorker,
      handoff_seconds_per_episode: round(one.mode.seconds_per_episode - inWorker.workers_1, 4),
      workers_2_in_flight_max: inFlightMax(spans2),
      cpu_samples: [low, samples] as const,
      driver_cpu_ms_per_episode: driverPerEpisode,
      driver_cpu_ms_fixed: Math.round(small.cpuMs - driverPerEpisode * small.mode.episodes),
      driver_cpu_includes: DRIVER_CPU_INCLUDES,
      nats_cpu_ms_per_episode: perEpisode(two.natsMs, small.natsMs),
      worker_cpu_ms_per_episode: perEpisode(two.workersMs, small.workersMs),
      cores: availableParallelism(),
      load_avg_1m: { start: round(loadStart, 2), end: round(loadavg()[0]!, 2) },
      nats_server_version: nats.version,
      bun_version: Bun.version,
      bench_seconds: Math.round((performance.now() - began) / 1000)
    } satisfies RunBenchResult
  }).pipe(Effect.scoped)
