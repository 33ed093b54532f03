/**
 * `bench train`: how fast the learner trains and how well each model family ranks the next
 * action on states it never saw, over a real run's dataset (default: the store's latest
 * run with a sealed round). Per round, interleaved with its floor — reading the records'
 * states alone, which any trainer must do — one epoch end to end: states read, features
 * hashed, one pass of AdaGrad; then one epoch over the features already hashed (what each
 * further epoch costs). The process is single-threaded, so records/s is per core.
 *
 * Accuracy: the records of every fifth task (task ids sorted; the last of fewer) are held apart; each family
 * trains on the rest with its defaults and ranks the held-apart states.
 */
import { Effect } from "effect"
import { digest } from "@core/events"
import type { CoreEvent } from "@core/events"
import { examplesOfRecord, nextActionAccuracy, prepare, trainLearner, trainPrepared } from "@core/learner"
import type { TrainingRecord } from "@core/learner"
import { interleaved, perSecond, ratio } from "./Measure.ts"

export const TRAIN_TARGET_RECORDS_PER_S = 20_000
/** Training may add this share to a round's time at most. */
export const TRAIN_TARGET_ROUND_SHARE = 0.1

export interface TrainBenchResult {
  readonly run: string
  readonly records: number
  /** States the learner could learn from (the rest propose an action it never does). */
  readonly states: number
  readonly rounds: ReadonlyArray<{ readonly records_per_s: number; readonly read_per_s: number; readonly epoch_per_s: number }>
  /** Medians over the rounds, and the spread (min, max). */
  readonly records_per_s: number
  readonly records_per_s_spread: readonly [number, number]
  readonly read_per_s: number
  readonly ratio: number | null
  /** One epoch over states whose features are hashed already, records/s: median and spread. */
  readonly epoch_per_s: number
  readonly epoch_per_s_spread: readonly [number, number]
  /** One full training at the defaults (every epoch) on the whole dataset, in seconds. */
  readonly train_s: number
  /** The run's rounds' wall time (RoundStarted to RoundCompleted), median; null without both events. */
  readonly round_s: number | null
  readonly round_share: number | null
  readonly held_apart: { readonly tasks: number; readonly states: number }
  readonly families: Readonly<Record<"listwise" | "pairwise", { readonly accuracy: number; readonly train_s: number }>>
  readonly targets_met: boolean
}

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? 0 : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const seconds = <A>(f: () => A): readonly [A, number] => {
  const start = performance.now()
  const a = f()
  return [a, (performance.now() - start) / 1000] as const
}

/** The median RoundStarted → RoundCompleted time of the run, in seconds. */
const roundSeconds = (events: ReadonlyArray<CoreEvent>): number | null => {
  const started = new Map<number, number>()
  const took: Array<number> = []
  for (const e of events) {
    // Round 0 plays nothing (the demos' round): it would make training look like most of a round.
    if (e.type === "RoundStarted" && e.data.round > 0) started.set(e.data.round, Date.parse(e.recordedAt))
    if (e.type === "RoundCompleted" && started.has(e.data.round)) took.push((Date.parse(e.recordedAt) - started.get(e.data.round)!) / 1000)
  }
  return took.length === 0 ? null : median(took)
}

export const runTrainBench = (input: {
  readonly run: string
  readonly records: ReadonlyArray<TrainingRecord & { readonly taskId: string }>
  readonly roundEvents: ReadonlyArray<CoreEvent>
  readonly rounds: number
  readonly progress: (line: string) => void
}) =>
  Effect.gen(function* () {
    const { records } = input
    const seed = digest(["bench-train", input.run])
    const perRound: Array<{ records_per_s: number; read_per_s: number; epoch_per_s: number }> = []
    const prepared = prepare(records.flatMap(examplesOfRecord))
    for (let r = 0; r < input.rounds; r++) {
      const t = yield* interleaved(
        1,
        () => Effect.sync(() => (trainPrepared(prepare(records.flatMap(examplesOfRecord)), { seed, epochs: 1 }), records.length)),
        () => Effect.sync(() => (records.flatMap(examplesOfRecord), records.length))
      )
      const [, epochS] = seconds(() => trainPrepared(prepared, { seed, epochs: 1 }))
      perRound.push({ records_per_s: perSecond(t.ours), read_per_s: perSecond(t.raw), epoch_per_s: Math.round(records.length / epochS) })
      const at = perRound.at(-1)!
      input.progress(
        `bench train: round ${r + 1}/${input.rounds}: ${at.records_per_s} records/s end to end (reading alone ${at.read_per_s}/s), ${at.epoch_per_s}/s per further epoch`
      )
    }
    const all = records.flatMap(examplesOfRecord)
    const [, trainS] = seconds(() => trainLearner(all, { seed }))
    const tasks = [...new Set(records.map((r) => r.taskId))].sort()
    // Every fifth task, from the fifth; a run of fewer tasks holds its last apart.
    const heldTasks = new Set(tasks.filter((_, i) => i % 5 === Math.min(4, tasks.length - 1)))
    const train = records.filter((r) => !heldTasks.has(r.taskId)).flatMap(examplesOfRecord)
    const held = records.filter((r) => heldTasks.has(r.taskId)).flatMap(examplesOfRecord)
    const family = (loss: "listwise" | "pairwise") => {
      const [model, s] = seconds(() => trainLearner(train, { seed, loss }))
      return { accuracy: Math.round(nextActionAccuracy(model, held) * 1000) / 1000, train_s: Math.round(s * 1000) / 1000 }
    }
    const roundS = roundSeconds(input.roundEvents)
    const rate = median(perRound.map((x) => x.records_per_s))
    const epochs = perRound.map((x) => x.epoch_per_s)
    const read = median(perRound.map((x) => x.read_per_s))
    const share = roundS === null || roundS === 0 ? null : Math.round((trainS / roundS) * 1000) / 1000
    return {
      run: input.run,
      records: records.length,
      states: prepare(all).length,
      rounds: perRound,
      records_per_s: rate,
      records_per_s_spread: [Math.min(...perRound.map((x) => x.records_per_s)), Math.max(...perRound.map((x) => x.records_per_s))],
      read_per_s: read,
      ratio: ratio(rate, read),
      epoch_per_s: median(epochs),
      epoch_per_s_spread: [Math.min(...epochs), Math.max(...epochs)],
      train_s: Math.round(trainS * 1000) / 1000,
      round_s: roundS,
      round_share: share,
      held_apart: { tasks: heldTasks.size, states: held.length },
      families: { listwise: family("listwise"), pairwise: family("pairwise") },
      targets_met: median(epochs) >= TRAIN_TARGET_RECORDS_PER_S && (share === null || share < TRAIN_TARGET_ROUND_SHARE)
    } satisfies TrainBenchResult
  })

const pct = (x: number) => `${(x * 100).toFixed(1)}%`

export const trainTable = (r: TrainBenchResult): string => {
  const ok = (b: boolean) => (b ? "✓" : "✗")
  const lines = [
    `bench train over run ${r.run}: ${r.records} records, ${r.states} states the learner can learn from`,
    `one epoch end to end: ${r.records_per_s.toLocaleString("en-US")} records/s per core (median of ${r.rounds.length}, spread ${r.records_per_s_spread.join("–")}); reading the states alone ${r.read_per_s.toLocaleString("en-US")}/s; ratio ${r.ratio ?? "—"}`,
    `one epoch over hashed features: ${r.epoch_per_s.toLocaleString("en-US")} records/s per core (spread ${r.epoch_per_s_spread.join("–")}) · target ≥ ${TRAIN_TARGET_RECORDS_PER_S.toLocaleString("en-US")} ${ok(r.epoch_per_s >= TRAIN_TARGET_RECORDS_PER_S)}`,
    `full training (every epoch): ${r.train_s} s${r.round_s === null ? "" : `; a round of the run took ${r.round_s} s, so training adds ${pct(r.round_share ?? 0)} · target < ${pct(TRAIN_TARGET_ROUND_SHARE)} ${ok((r.round_share ?? 0) < TRAIN_TARGET_ROUND_SHARE)}`}`,
    `next action on ${r.held_apart.states} held-apart states of ${r.held_apart.tasks} tasks never trained on:`,
    ...Object.entries(r.families).map(([name, f]) => `  ${name.padEnd(9)} ${pct(f.accuracy).padStart(6)}  (trains in ${f.train_s} s)`),
    `targets ${r.targets_met ? "met" : "NOT met"}`
  ]
  return lines.join("\n")
}
