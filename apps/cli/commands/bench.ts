/**
 * `bun core bench store|replay|env|sandbox|ui [--json]`: each measures one part of CORE
 * against the raw tool underneath, in the same run (docs/benchmarks.md): the event store
 * against JetStream, the projection rebuild against an ordered consumer, the web
 * environment against a Playwright loop, the sandbox against native JavaScript, the console
 * against static files. `bench run` measures rollouts in-process against the same rollouts
 * through workers (docs/scaling.md). Missing a target is reported, not an error: a benchmark
 * informs, and a loaded machine must not fail a script that only wanted the figures.
 */
import { Effect } from "effect"
import { loadConfig } from "@core/config"
import type { Command } from "../Cli.ts"
import type { Failure } from "../Failures.ts"
import { UsageError } from "../Cli.ts"
import { REPLAY_TARGETS, runReplayBench } from "../bench/ReplayBench.ts"
import type { ReplayBenchResult } from "../bench/ReplayBench.ts"
import { runStoreBench, TARGETS } from "../bench/StoreBench.ts"
import type { StoreBenchResult, TargetKey } from "../bench/StoreBench.ts"
import { ENV_TARGETS, runEnvBench } from "../bench/EnvBench.ts"
import type { EnvBenchResult } from "../bench/EnvBench.ts"
import { runSandboxBench, SANDBOX_TARGET_EVALS_PER_S } from "../bench/SandboxBench.ts"
import type { SandboxBenchResult } from "../bench/SandboxBench.ts"
import { runUiBench, UI_RUNS, UI_STEPS, UI_TARGET_MS, UI_WARMUP } from "../bench/UiBench.ts"
import type { UiBenchResult } from "../bench/UiBench.ts"
import { DRIVER_CPU_INCLUDES, OVERHEAD_TARGET, runRunBench } from "../bench/RunBench.ts"
import type { ModeFigures, RunBenchResult } from "../bench/RunBench.ts"
import { countFlag, interruptOnSignal, mark, num, textTable } from "../bench/Report.ts"
import { configFlags } from "../ConfigFlags.ts"
import { chooseTasks } from "@core/sites/run"
import { readRunDataset } from "@core/datasets"
import { runLog, runsWith, unknownRun } from "@core/engine"
import { openStore } from "@core/run"
import { runTrainBench, TRAIN_TARGET_RECORDS_PER_S, trainTable } from "../bench/TrainBench.ts"

/**
 * Per phase, side and round: large enough to get past per-round noise, small enough that
 * all three rounds take well under a minute on 2 cores.
 */
const DEFAULT_EVENTS = 10_000

const table = (r: StoreBenchResult): string => {
  const rows: Array<[string, number | null, number | null, TargetKey | null]> = [
    ["append, 128 streams concurrently", r.append_per_s, r.raw_publish_per_s, "append_ratio"],
    ["  against raw publishes without headers", r.append_per_s, r.raw_plain_publish_per_s, "append_ratio_plain"],
    ["append, one stream, serial", r.append_serial_per_s, r.raw_serial_per_s, "append_serial_ratio"],
    ["readAll (decoded)", r.read_per_s, r.raw_read_per_s, "read_ratio"],
    ["embedded append, serial", r.embedded_append_per_s, null, null],
    ["embedded readAll", r.embedded_read_per_s, null, null]
  ]
  const head = ["events/s", "ours", "raw JetStream", "ratio", "target"]
  const body = rows.map(([label, ours, raw, key]) => {
    const value = key === null ? null : r[key]
    const target = key === null ? "" : `≥ ${TARGETS[key]} ${mark(value !== null && value >= TARGETS[key])}`
    return [label, num(ours), key === null ? "" : num(raw), key === null ? "" : value === null ? "—" : value.toFixed(3), target]
  })
  const perRound = r.rounds.map(
    (x, i) =>
      `round ${i + 1}: append ${x.append_ratio.toFixed(3)} (plain ${x.append_ratio_plain.toFixed(3)}) · serial ${x.append_serial_ratio.toFixed(3)} · read ${x.read_ratio.toFixed(3)}`
  )
  return textTable(
    [head, ...body],
    [
      `${r.events} events per phase, side and round · nats-server ${r.nats_server_version ?? "not reachable (NATS figures skipped)"} · Bun ${r.bun_version} · peak RSS ${r.peak_rss_mb} MB`,
      ...(r.rounds.length > 0
        ? [
            `each NATS figure is the median of ${r.rounds.length} rounds (ratios too: the median ratio, not the ratio of medians)`,
            ...perRound
          ]
        : []),
      `targets ${r.targets_met ? "met" : "NOT met"}`
    ]
  )
}

export const benchStore: Command<Failure> = {
  name: "bench store",
  summary: "event store append/read rates against raw JetStream in the same run",
  flags: {
    events: { kind: "number", description: `events per phase, side and round (default ${DEFAULT_EVENTS})` },
    json: { kind: "boolean", description: "print the figures as one JSON object" },
    ...configFlags(["nats.url"])
  },
  run: (args) =>
    Effect.gen(function* () {
      const events = yield* countFlag(args, "events", DEFAULT_EVENTS, 10)
      const config = yield* loadConfig({ flags: args.flags })
      const result = yield* interruptOnSignal(
        runStoreBench({ events, natsUrl: config.values["nats.url"], progress: (l) => console.error(l) })
      )
      console.log(args.flags.json === true ? JSON.stringify(result) : table(result))
    })
}

/** About half a minute on 2 cores, mostly writing the log; docs/benchmarks.md also gives --events 1000000. */
const DEFAULT_REPLAY_EVENTS = 200_000

const replayTable = (r: ReplayBenchResult): string => {
  const t = REPLAY_TARGETS
  const rows = [
    ["events/s", "measured", "target"],
    [
      "rebuild: readAll → every projection → SQLite",
      num(r.rebuild_per_s),
      `≥ ${num(t.rebuild_per_s)} ${mark(r.rebuild_per_s >= t.rebuild_per_s)}`
    ],
    ["raw ordered consumer, same messages", num(r.raw_read_per_s), ""],
    ["ratio rebuild ÷ raw", r.ratio.toFixed(3), `≥ ${t.ratio} ${mark(r.ratio >= t.ratio)}`]
  ]
  return textTable(rows, [
    `${num(r.events)} events in ${num(r.commits)} commits · peak RSS ${r.peak_rss_mb} MB · nats-server ${r.nats_server_version ?? "?"} · Bun ${r.bun_version}`,
    `targets ${r.targets_met ? "met" : "NOT met"}`
  ])
}

export const benchReplay: Command<Failure> = {
  name: "bench replay",
  summary: "projection rebuild rate from JetStream into SQLite against a raw ordered consumer",
  flags: {
    events: { kind: "number", description: `events in the generated log (default ${DEFAULT_REPLAY_EVENTS})` },
    json: { kind: "boolean", description: "print the figures as one JSON object" },
    ...configFlags(["nats.url"])
  },
  run: (args) =>
    Effect.gen(function* () {
      const events = yield* countFlag(args, "events", DEFAULT_REPLAY_EVENTS, 100)
      const config = yield* loadConfig({ flags: args.flags })
      const result = yield* interruptOnSignal(
        runReplayBench({ events, natsUrl: config.values["nats.url"], progress: (l) => console.error(l) })
      )
      console.log(args.flags.json === true ? JSON.stringify(result) : replayTable(result))
    })
}

/** About a minute on 2 cores: this many episodes per side at parallelism 1, and per parallel phase. */
const DEFAULT_ENV_EPISODES = 8

const envTable = (r: EnvBenchResult): string => {
  const t = ENV_TARGETS
  const rows = [
    ["web environment", "ours", "raw Playwright", "target"],
    [
      "reset p50 (ms, call → first observation)",
      r.reset_ms_p50.toFixed(1),
      r.raw_reset_ms_p50.toFixed(1),
      `< ${t.reset_ms_p50} ${mark(r.reset_ms_p50 < t.reset_ms_p50)}`
    ],
    ["  of which the first observation (ms)", "", r.raw_first_observe_ms_p50.toFixed(1), ""],
    ["step p50 (ms, click + type)", r.step_ms_p50.toFixed(1), r.raw_step_ms_p50.toFixed(1), ""],
    ["  click / type p50 (ms)", `${r.click_ms_p50.toFixed(1)} / ${r.type_ms_p50.toFixed(1)}`, "", ""],
    ["  action / settle / observe p50 (ms)", `${r.action_ms_p50} / ${r.settle_ms_p50} / ${r.observe_ms_p50}`, "", ""],
    ...Object.entries(r.steps_per_s).map(([p, v]) => [`steps/s, ${p} parallel`, String(v), p === "1" ? String(r.raw_steps_per_s) : "", ""]),
    ["step ratio ours ÷ raw (parallelism 1)", r.step_ratio.toFixed(3), "", `≥ ${t.step_ratio} ${mark(r.step_ratio >= t.step_ratio)}`],
    ["episodes/hour (10 steps + reset, best parallelism)", num(r.episodes_per_hour), "", ""]
  ]
  return textTable(rows, [
    `${r.episodes} episodes of ${r.steps_per_episode} steps per phase on the bundled shop · ${r.episodes_retried} retried · peak RSS ${r.peak_rss_mb} MB · Bun ${r.bun_version}`,
    `targets ${r.targets_met ? "met" : "NOT met"}`
  ])
}

export const benchEnv: Command<Failure> = {
  name: "bench env",
  summary: "web environment reset/step latency and steps/s against a raw Playwright loop",
  flags: {
    episodes: { kind: "number", description: `episodes per phase (default ${DEFAULT_ENV_EPISODES})` },
    json: { kind: "boolean", description: "print the figures as one JSON object" }
  },
  run: (args) =>
    Effect.gen(function* () {
      const episodes = yield* countFlag(args, "episodes", DEFAULT_ENV_EPISODES, 1)
      const result = yield* interruptOnSignal(runEnvBench({ episodes, progress: (l) => console.error(l) }))
      console.log(args.flags.json === true ? JSON.stringify(result) : envTable(result))
    })
}

/** Ten interleaved rounds each side; a few seconds on 2 cores. */
const DEFAULT_SANDBOX_EVALUATIONS = 50_000

const sandboxTable = (r: SandboxBenchResult): string => {
  const rows = [
    ["evaluations/s", "measured", "target"],
    ["sandbox: one worker process, batched", num(r.evals_per_s), `≥ ${num(r.target_evals_per_s)} ${mark(r.ok)}`],
    ["native: new Function, same LF API", num(r.native_evals_per_s), ""],
    ["ratio sandbox ÷ native", r.ratio.toFixed(3), ""]
  ]
  return textTable(rows, [
    `one LF (6 validate calls) over a real shop demo: ${r.trajectory_steps} steps, ${r.trajectory_elements} elements · Bun ${Bun.version}`,
    `target ${r.ok ? "met" : "NOT met"}`
  ])
}

export const benchSandbox: Command<Failure> = {
  name: "bench sandbox",
  summary: `label-function evaluations/s in one sandbox worker against native (target ${SANDBOX_TARGET_EVALS_PER_S}/s)`,
  flags: {
    evaluations: { kind: "number", description: `evaluations per side (default ${DEFAULT_SANDBOX_EVALUATIONS})` },
    json: { kind: "boolean", description: "print the figures as one JSON object" }
  },
  run: (args) =>
    Effect.gen(function* () {
      const evaluations = yield* countFlag(args, "evaluations", DEFAULT_SANDBOX_EVALUATIONS, 100)
      const result = yield* interruptOnSignal(runSandboxBench({ evaluations, progress: (l) => console.error(l) }))
      console.log(args.flags.json === true ? JSON.stringify(result) : sandboxTable(result))
    })
}

/** Timed rounds per side after the warm-up: a p95 over fewer than 20 is one outlier. About 20 s on 2 cores in all. */
const DEFAULT_UI_SAMPLES = 30

const uiTable = (r: UiBenchResult): string => {
  const ms = (n: number) => n.toFixed(2)
  const target = (p95: number) => `p95 < ${UI_TARGET_MS} ${mark(p95 < UI_TARGET_MS)}`
  const rows = [
    ["server time (ms)", "p50", "p95", "static p50", "ratio", "target"],
    [
      `trajectory page, ${r.trajectory_steps} steps`,
      ms(r.trajectory_page_ms_p50),
      ms(r.trajectory_page_ms_p95),
      "",
      "",
      target(r.trajectory_page_ms_p95)
    ],
    [
      `  and its ${r.screenshots} screenshots`,
      ms(r.trajectory_load_ms_p50),
      ms(r.trajectory_load_ms_p95),
      ms(r.static_load_ms_p50),
      r.ratio.toFixed(3),
      ""
    ],
    [
      `runs page, ${r.runs} runs`,
      ms(r.runs_page_ms_p50),
      ms(r.runs_page_ms_p95),
      ms(r.static_runs_ms_p50),
      r.runs_ratio.toFixed(3),
      target(r.runs_page_ms_p95)
    ]
  ]
  return textTable(rows, [
    `${num(r.events)} events · pages ${r.trajectory_page_kb} KB and ${r.runs_page_kb} KB · screenshots 1280×800, ${r.screenshot_kb_mean} KB mean · ${r.samples} samples after ${UI_WARMUP} warm-up · peak RSS ${r.peak_rss_mb} MB · Bun ${r.bun_version}`,
    `targets ${r.targets_met ? "met" : "NOT met"}`
  ])
}

export const benchUi: Command<Failure> = {
  name: "bench ui",
  summary: `console server time for a ${UI_STEPS}-step trajectory page and the runs page over ${UI_RUNS} runs, against static files`,
  flags: {
    samples: { kind: "number", description: `timed requests per page and side (default ${DEFAULT_UI_SAMPLES}, at least 20)` },
    json: { kind: "boolean", description: "print the figures as one JSON object" }
  },
  run: (args) =>
    Effect.gen(function* () {
      const samples = yield* countFlag(args, "samples", DEFAULT_UI_SAMPLES, 20)
      const result = yield* interruptOnSignal(runUiBench({ samples, progress: (l) => console.error(l) }))
      console.log(args.flags.json === true ? JSON.stringify(result) : uiTable(result))
    })
}

/** 18 shop tasks × 5 rollouts = 90 episodes per mode: about a quarter of an hour on 2 cores, all four runs included. */
const DEFAULT_RUN_SAMPLES = 5

const runTable = (r: RunBenchResult): string => {
  const row = (label: string, m: ModeFigures) => [
    label,
    String(m.episodes),
    m.seconds.toFixed(1),
    m.seconds_per_episode.toFixed(3),
    num(m.episodes_per_hour),
    String(m.infra_errors)
  ]
  const shares = Object.entries(r.workers_2_shares)
    .map(([w, n]) => `${w} ${n}`)
    .join(", ")
  return textTable(
    [
      ["rollout phase (round 1)", "episodes", "seconds", "s/episode", "episodes/hour", "infra-errors"],
      row("in-process, --parallel 1", r.modes.in_process),
      row("1 worker, --parallel 1", r.modes.workers_1),
      row(`2 workers, --parallel 2 (${shares})`, r.modes.workers_2)
    ],
    [
      `queue overhead ratio ${r.queue_overhead_ratio.toFixed(3)} (1 worker against in-process, per episode) · target ≤ ${OVERHEAD_TARGET} ${mark(r.queue_overhead_ok)}`,
      `  an episode took ${r.worker_seconds_per_episode.workers_1.toFixed(3)} s in its worker; the other ${r.handoff_seconds_per_episode.toFixed(3)} s per episode is the job's way there and the record's way back (checked, appended)`,
      `parallel speedup, 2 workers ÷ 1 worker: ${r.parallel_speedup_2_workers.toFixed(3)} (an episode took ${r.worker_seconds_per_episode.workers_2.toFixed(3)} s in its worker; at most ${r.workers_2_in_flight_max} played at once)`,
      `driver CPU per episode in queue mode: ${r.driver_cpu_ms_per_episode} ms (+ ${num(r.driver_cpu_ms_fixed)} ms per run) · nats-server ${r.nats_cpu_ms_per_episode} ms · where it was played (worker and browser) ${r.worker_cpu_ms_per_episode} ms`,
      `  from runs of --samples ${r.cpu_samples[0]} and ${r.cpu_samples[1]} through 2 workers: CPU difference ÷ episode difference`,
      `  the driver's figure is ${DRIVER_CPU_INCLUDES}`,
      `seconds: ${r.timing}`,
      `${r.tasks} tasks × ${r.samples} samples, exploration policy, seed ${r.seed} · ${r.cores} cores, load average ${r.load_avg_1m.start} → ${r.load_avg_1m.end} · nats-server ${r.nats_server_version} · Bun ${r.bun_version} · ${r.bench_seconds} s in all`,
      `target ${r.queue_overhead_ok ? "met" : "NOT met"}`
    ]
  )
}

export const benchRun: Command<Failure> = {
  name: "bench run",
  summary: "rollout throughput in-process, through 1 worker and through 2 workers, on a nats-server of its own",
  flags: {
    samples: { kind: "number", description: `rollouts per task (default ${DEFAULT_RUN_SAMPLES})` },
    tasks: { kind: "string", description: "these train task ids (comma-separated) instead of the shop site's train tasks" },
    json: { kind: "boolean", description: "print the figures as one JSON object" }
  },
  run: (args) =>
    Effect.gen(function* () {
      const samples = yield* countFlag(args, "samples", DEFAULT_RUN_SAMPLES, 1)
      const tasks = args.flags.tasks
      const chosen = yield* chooseTasks(tasks === undefined ? { site: "shop" } : { tasks: String(tasks) }).pipe(
        Effect.mapError((e) => (e._tag === "UnknownBundledTask" ? new UsageError({ message: `--tasks: ${e.message}` }) : e))
      )
      if (chosen.length === 0) return yield* new UsageError({ message: "--tasks chose no task" })
      const result = yield* interruptOnSignal(runRunBench({ taskIds: chosen.map((t) => t.id), samples, progress: (l) => console.error(l) }))
      console.log(args.flags.json === true ? JSON.stringify(result) : runTable(result))
    })
}

export const benchTrain: Command<Failure> = {
  name: "bench train",
  summary: `the learner's records/s per core over a run's dataset (target ${TRAIN_TARGET_RECORDS_PER_S}), and each model family's held-apart accuracy`,
  flags: {
    run: { kind: "string", description: "the run whose dataset to train on (default: the store's latest run with dataset records)" },
    rounds: { kind: "number", description: "timed rounds, each interleaved with reading alone (default 3)" },
    json: { kind: "boolean", description: "print the figures as one JSON object" },
    ...configFlags(["store", "nats.url", "dataDir"])
  },
  run: (args) =>
    Effect.gen(function* () {
      const rounds = yield* countFlag(args, "rounds", 3, 1)
      const opened = yield* openStore(args)
      const result = yield* Effect.gen(function* () {
        const named = args.flags.run as string | undefined
        const run = named ?? (yield* runsWith("run.*.dataset.*")).at(-1)
        if (run === undefined)
          return yield* new UsageError({ message: "no run with dataset records in this store: bun core run makes one, or pass --run" })
        const dataset = yield* readRunDataset(run)
        if (dataset.records.length === 0) return yield* unknownRun(run)
        const records = dataset.records.map((r) => ({
          recordId: r.data.recordId,
          format: r.data.format,
          body: r.data.body,
          taskId: r.data.taskId
        }))
        return yield* runTrainBench({ run, records, roundEvents: yield* runLog(run), rounds, progress: (l) => console.error(l) })
      }).pipe(Effect.provide(opened.layer))
      console.log(args.flags.json === true ? JSON.stringify(result) : trainTable(result))
    })
}
