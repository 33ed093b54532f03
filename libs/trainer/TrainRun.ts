/**
 * `train --run R [--round N]`: the learned policy trained once, offline, on a sealed round —
 * the run's dataset records of rounds ≤ N in log order, each record once, with the seed the
 * run's own rounds train with (`learnerSeed(run seed, N)`) — so it is the model the run would
 * have trained after round N. The weights go to the blob store and a PolicyTrained on
 * `ws.trained.<R>` names them; training again on the same data finds that event and adds none.
 *
 * @example
 * const summary = yield* trainRun({ run: "run-1", round: undefined }) // needs EventStore, BlobStore
 */
import { Effect } from "effect"
import { readRunDataset } from "@core/datasets"
import { UnknownRun } from "@core/engine"
import { canonicalJson, digest, runStream } from "@core/events"
import { EventStore } from "@core/eventstore"
import { examplesOfRecord, learnedModelJson, learnerSeed, nextActionAccuracy, TRAINER_VERSION, trainOnRecords } from "@core/learner"
import { holdApart } from "./HeldApart.ts"
import type { Countable } from "./HeldApart.ts"
import { NothingToTrain } from "./TrainerError.ts"
import { appendTrained, putWeights, readTrained, trainedStream } from "./TrainerStream.ts"
import type { TrainedData } from "./TrainerStream.ts"

export interface TrainRunOptions {
  readonly run: string
  /** A sealed round; undefined = the last sealed one. */
  readonly round: number | undefined
}

export interface HeldApartScore {
  readonly records: number
  readonly examples: number
  /** Share of the held-apart examples whose chosen action a model trained without them ranks first; null when none is held apart. */
  readonly accuracy: number | null
}

export interface TrainRunSummary {
  readonly run: string
  readonly round: number
  readonly seed: string
  /** The records that taught it (those holding at least one example), each once. */
  readonly records: number
  readonly examples: number
  readonly heldApart: HeldApartScore
  readonly weights: string
  readonly bytes: number
  readonly stream: string
  /** False when the stream already held this very PolicyTrained. */
  readonly appended: boolean
}

/** A dataset record as the learner reads it. */
export type LearnerRecord = { readonly recordId: string; readonly format: string; readonly body: unknown }

const list = (ns: Iterable<number>) => [...ns].join(", ")

/** The records a model learns from, in the order given: each record id once (its first), and only records holding an example. */
export const learnableRecords = <R extends LearnerRecord>(records: ReadonlyArray<R>): Array<R & { readonly examples: number }> => {
  const seen = new Set<string>()
  const out: Array<R & { readonly examples: number }> = []
  for (const r of records) {
    if (seen.has(r.recordId)) continue
    seen.add(r.recordId)
    const examples = examplesOfRecord(r).length
    if (examples > 0) out.push({ ...r, examples })
  }
  return out
}

/** A model trained without the held-apart records, scored on them. */
export const heldApartScore = (records: ReadonlyArray<LearnerRecord & Countable>, seed: string): HeldApartScore => {
  const { train, held } = holdApart(records)
  const examples = held.flatMap(examplesOfRecord)
  if (examples.length === 0) return { records: 0, examples: 0, accuracy: null }
  return { records: held.length, examples: examples.length, accuracy: nextActionAccuracy(trainOnRecords(train, seed), examples) }
}

/** The run's seed, from its RunStarted. */
const runSeed = (run: string) =>
  Effect.gen(function* () {
    const read = yield* (yield* EventStore).readStream(runStream(run, "run", run))
    const started = read.find((r) => r.event.type === "RunStarted")?.event
    if (started?.type !== "RunStarted") return yield* new UnknownRun({ runId: run })
    return started.data.seed
  })

const chooseRound = (run: string, sealed: ReadonlyArray<number>, rounds: ReadonlyArray<number>, asked: number | undefined) => {
  if (rounds.length === 0)
    return Effect.fail(new NothingToTrain({ runId: run, reason: `no dataset records (no events under run.${run}.dataset.*)` }))
  if (sealed.length === 0)
    return Effect.fail(new NothingToTrain({ runId: run, reason: `no dataset round is sealed yet (rounds: ${list(rounds)})` }))
  if (asked === undefined) return Effect.succeed(sealed.at(-1)!)
  if (!sealed.includes(asked))
    return Effect.fail(
      new NothingToTrain({
        runId: run,
        reason: `${rounds.includes(asked) ? `round ${asked} is not sealed yet` : `there is no dataset round ${asked}`} (sealed rounds: ${list(sealed)})`
      })
    )
  return Effect.succeed(asked)
}

export const trainRun = (o: TrainRunOptions) =>
  Effect.gen(function* () {
    const seedOfRun = yield* runSeed(o.run)
    const dataset = yield* readRunDataset(o.run)
    const sealed = [...dataset.seals.keys()].sort((a, b) => a - b)
    const round = yield* chooseRound(o.run, sealed, dataset.rounds, o.round)
    const seed = learnerSeed(seedOfRun, round)
    const taught = learnableRecords(dataset.records.filter((r) => r.data.round <= round).map((r) => ({ ...r.data, position: r.position })))
    const model = trainOnRecords(taught, seed)
    const examples = taught.reduce((n, r) => n + r.examples, 0)
    const heldApart = heldApartScore(taught, seed)
    const stream = trainedStream(o.run)
    const { weights, bytes } = yield* putWeights(learnedModelJson(model))
    const trained: TrainedData = {
      round,
      trainer: TRAINER_VERSION,
      // As the run's own rounds name what they trained on: the digest of the seals of rounds ≤ N.
      datasetDigest: digest(sealed.filter((r) => r <= round).map((r) => dataset.seals.get(r)!.contentDigest)),
      checkpoint: `sha256:${weights}`,
      metrics: {
        records: taught.length,
        examples,
        ...(heldApart.accuracy === null ? {} : { held_apart_examples: heldApart.examples, held_apart_accuracy: heldApart.accuracy })
      },
      weights,
      seed,
      records: {
        run: o.run,
        round,
        count: taught.length,
        first: taught[0]?.position ?? 0,
        last: taught.at(-1)?.position ?? 0
      }
    }
    const { versions, revision } = yield* readTrained(stream)
    const already = versions.some((v) => canonicalJson(v) === canonicalJson(trained))
    if (!already) yield* appendTrained(stream, revision, trained)
    return {
      run: o.run,
      round,
      seed,
      records: taught.length,
      examples,
      heldApart,
      weights,
      bytes,
      stream,
      appended: !already
    } satisfies TrainRunSummary
  })
