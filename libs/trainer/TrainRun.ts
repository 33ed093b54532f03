/**
 * `train --run R [--round N]`: the learned policy trained once, offline, on a sealed round —
 * the run's dataset records of rounds ≤ N in log order, with the seed the run's own rounds
 * train with (`learnerSeed(run seed, N)`) — so it is the model a learned run trains after
 * round N (libs/pipeline PolicyTraining.ts), whatever policy the run itself acted with. The
 * weights go to the blob store and a PolicyTrained on `trainer.run.<R>` names them; training
 * again on the same data finds that event and adds none.
 *
 * @example
 * const summary = yield* trainRun({ run: "run-1", round: undefined }) // needs EventStore, BlobStore
 */
import { Effect } from "effect"
import { readRunDataset } from "@core/datasets"
import { UnknownRun } from "@core/engine"
import { canonicalJson, digest, runStream } from "@core/events"
import { EventStore } from "@core/eventstore"
import { examplesOfRecord, learnedModelJson, learnerSeed, nextActionAccuracy, trainOnRecords } from "@core/learner"
import { learnerOf, runConfigOf } from "@core/pipeline"
import type { TrainingRecord } from "@core/learner"
import type { LearnerVersion } from "@core/domain"
import { holdApart } from "./HeldApart.ts"
import { NothingToTrain } from "./TrainerError.ts"
import { appendTrained, putWeights, readTrained, trainedStream } from "./TrainerStream.ts"
import type { TrainedData } from "./TrainerStream.ts"

export interface TrainRunOptions {
  readonly run: string
  /** A sealed round; undefined = the last sealed one. */
  readonly round: number | undefined
}

export interface HeldApartScore {
  /** The trajectories held apart, whole. */
  readonly trajectories: number
  readonly examples: number
  /** Share of the held-apart examples whose chosen action a model trained without them ranks first; null when none is held apart. */
  readonly accuracy: number | null
}

export interface TrainRunSummary {
  readonly run: string
  readonly round: number
  readonly seed: string
  /** The dataset records it read: every one of rounds ≤ `round`. */
  readonly records: number
  readonly examples: number
  /** Share of the examples it trained on whose chosen action it ranks first; null without examples. */
  readonly accuracy: number | null
  readonly heldApart: HeldApartScore
  readonly weights: string
  readonly bytes: number
  readonly stream: string
  /** False when the stream already held this very PolicyTrained. */
  readonly appended: boolean
}

const list = (ns: Iterable<number>) => [...ns].join(", ")

/** A model trained without the held-apart records, scored on them. */
export const heldApartScore = (
  records: ReadonlyArray<TrainingRecord & { readonly trajectoryIds: ReadonlyArray<string> }>,
  seed: string,
  learner?: LearnerVersion
): HeldApartScore => {
  const { train, held } = holdApart(records.map((r) => ({ ...r, examples: examplesOfRecord(r).length })))
  const examples = held.flatMap(examplesOfRecord)
  if (examples.length === 0) return { trajectories: 0, examples: 0, accuracy: null }
  const trajectories = new Set(held.map((r) => r.trajectoryIds[0])).size
  return { trajectories, examples: examples.length, accuracy: nextActionAccuracy(trainOnRecords(train, seed, learner), examples) }
}

/** The run's seed, from its RunStarted. */
const runSeed = (run: string) =>
  Effect.gen(function* () {
    const read = yield* (yield* EventStore).readStream(runStream(run, "run", run))
    const started = read.find((r) => r.event.type === "RunStarted")?.event
    if (started?.type !== "RunStarted") return yield* new UnknownRun({ runId: run })
    // A CORE run's learned models train at its learner version; a run of another command records no run config.
    const learner = started.data.command === "run" ? learnerOf(runConfigOf(started.data.config)) : undefined
    return { seed: started.data.seed, learner }
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
    const { seed: seedOfRun, learner } = yield* runSeed(o.run)
    const dataset = yield* readRunDataset(o.run)
    const sealed = [...dataset.seals.keys()].sort((a, b) => a - b)
    const round = yield* chooseRound(o.run, sealed, dataset.rounds, o.round)
    const seed = learnerSeed(seedOfRun, round)
    // As the run's own rounds train: every record of rounds ≤ N, in log order.
    const taught = dataset.records.filter((r) => r.data.round <= round).map((r) => r.data)
    const model = trainOnRecords(taught, seed, learner)
    const examples = taught.flatMap(examplesOfRecord)
    const accuracy = examples.length === 0 ? null : nextActionAccuracy(model, examples)
    const heldApart = heldApartScore(taught, seed, learner)
    const stream = trainedStream(o.run)
    const { weights, bytes } = yield* putWeights(learnedModelJson(model))
    const rounds = sealed.filter((r) => r <= round)
    const trained: TrainedData = {
      round,
      trainer: model.version,
      // As the run's own rounds name what they trained on: the digest of the seals of rounds ≤ N.
      datasetDigest: digest(rounds.map((r) => dataset.seals.get(r)!.contentDigest)),
      checkpoint: `sha256:${weights}`,
      metrics: {
        examples: examples.length,
        records: taught.length,
        ...(accuracy === null ? {} : { accuracy }),
        ...(heldApart.accuracy === null ? {} : { held_apart_examples: heldApart.examples, held_apart_accuracy: heldApart.accuracy })
      },
      weights,
      seed,
      records: { count: taught.length, rounds }
    }
    const { versions, revision } = yield* readTrained(stream)
    const already = versions.some((v) => canonicalJson(v) === canonicalJson(trained))
    if (!already) yield* appendTrained(stream, revision, trained)
    return {
      run: o.run,
      round,
      seed,
      records: taught.length,
      examples: examples.length,
      accuracy,
      heldApart,
      weights,
      bytes,
      stream,
      appended: !already
    } satisfies TrainRunSummary
  })
