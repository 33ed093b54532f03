/**
 * Self-training on CPU, closing the loop of rounds (docs/method.md): with `run.policy` "embedded",
 * each sealed round's dataset — with every earlier round's, round 0 being the demos —
 * trains the retrieval policy (libs/policy) the next round's rollouts use. PolicyTrained
 * names what it was trained on (the digest of the seals' digests) and the model it made.
 * With "learned", the same seals train the learner's policy (libs/learner) on the dataset
 * records so far, seeded from the run's seed and the round; its PolicyTrained also names the
 * weights blob (put in the BlobStore, where an audit or a worker fetches it), the seed and
 * the records it read.
 *
 * Training is a pure function of the records in the log, so replay and the rollouts
 * rebuild the same model; `retrievalModelOf` and `learnedModelOf` memoise it.
 *
 * @example
 * const [trained] = yield* policyTraining.decide(state, datasetSealed) // PolicyTrained
 */
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { digest, PolicyTrained, runStream, sha256 } from "@core/events"
import type { CoreEvent, DataOf } from "@core/events"
import {
  examplesOfRecord,
  learnedModelFromJson,
  learnedModelJson,
  learnerSeed,
  nextActionAccuracy,
  trainerName,
  trainOnRecords
} from "@core/learner"
import type { LearnedModel } from "@core/learner"
import { modelDigestInput, trainRetrieval } from "@core/policy"
import type { RetrievalModel } from "@core/policy"
import { decision, defineDecider, PublishedPolicies } from "@core/engine"
import { learnerOf } from "../RunConfig.ts"
import { evolveRun, initialRunState } from "../RunState.ts"
import type { LearningRecord, RunState } from "../RunState.ts"

export const TRAINER = "retrieval-v1"

/** What a model trained through `round` is trained on: the digest of rounds 0..round's seals. */
export const trainingDigest = (s: RunState, round: number): string =>
  digest(
    [...s.seals.entries()]
      .filter(([r]) => r <= round)
      .sort(([a], [b]) => a - b)
      .map(([, d]) => d)
  )

const models = new Map<string, RetrievalModel>()

/** The retrieval model trained on the sft records of rounds ≤ `round`, built once per dataset digest. */
export const retrievalModelOf = (s: RunState, round: number): RetrievalModel => {
  const key = trainingDigest(s, round)
  const cached = models.get(key)
  if (cached !== undefined) return cached
  const model = trainRetrieval(s.examples.filter((x) => x.round <= round).map(({ round: _, ...x }) => x))
  // A handful of runs per process at most: keep the last few.
  if (models.size >= 8) models.delete(models.keys().next().value!)
  models.set(key, model)
  return model
}

/** The model the current round's rollouts use: the last one trained, or none yet. */
export const currentModel = (s: RunState): RetrievalModel | null => (s.trained === null ? null : retrievalModelOf(s, s.trained.round))

/** A learned model with what names it: its canonical JSON, that JSON's sha256 (the weights blob), its seed and its records. */
interface Learned {
  readonly model: LearnedModel
  readonly json: string
  readonly weights: string
  readonly seed: string
  readonly records: ReadonlyArray<LearningRecord>
}

const learned = new Map<string, Learned>()

/**
 * The learned model of a learned run through `round`: trained on the dataset records of
 * rounds ≤ `round` in log order, with the learner's seed of the run's seed and that round.
 * Built once per seed and record list (training depends on their order too).
 */
const learnedThrough = (s: RunState, round: number): Learned | null => {
  if (s.learning === null) return null
  const records = s.learning.records.filter((r) => r.round <= round)
  const seed = learnerSeed(s.learning.seed, round)
  const learner = s.config === null ? undefined : learnerOf(s.config)
  const key = digest({ seed, learner, records: records.map((r) => r.recordId) })
  const cached = learned.get(key)
  if (cached !== undefined) return cached
  const model = trainOnRecords(records, seed, learner)
  const json = learnedModelJson(model)
  const made: Learned = { model, json, weights: sha256(json), seed, records }
  // A handful of runs per process at most: keep the last few.
  if (learned.size >= 8) learned.delete(learned.keys().next().value!)
  learned.set(key, made)
  return made
}

/** The learned model trained through `round` of a learned run (policy "learned"); null for any other run, which keeps no records. */
export const learnedModelOf = (s: RunState, round: number): LearnedModel | null => learnedThrough(s, round)?.model ?? null

const publishedModels = new Map<string, LearnedModel>()

/** A published version's model, read from its weights blob (which the live PublishedPolicies checked), once per blob. */
const publishedModel = (weights: string) =>
  Effect.gen(function* () {
    const cached = publishedModels.get(weights)
    if (cached !== undefined) return cached
    const model = learnedModelFromJson(new TextDecoder().decode(yield* (yield* BlobStore).get(weights)))
    if (publishedModels.size >= 8) publishedModels.delete(publishedModels.keys().next().value!)
    publishedModels.set(weights, model)
    return model
  })

/**
 * The learned model the current round's rollouts use: the last one trained in the run, or
 * the version a trainer published that the last PolicyTrained took; none yet, they explore.
 */
export const currentLearnedModel = (s: RunState) =>
  s.trained === null
    ? Effect.succeed(null)
    : s.trained.published
      ? s.trained.weights === null
        ? Effect.succeed(null)
        : publishedModel(s.trained.weights)
      : Effect.succeed(learnedModelOf(s, s.trained.round))

/** A learned run's PolicyTrained through `round`: its weights put in the BlobStore first, so the event never names a missing blob. */
const trainedLearned = (s: RunState, round: number, l: Learned) =>
  Effect.gen(function* () {
    const blobs = yield* BlobStore
    yield* blobs.put(new TextEncoder().encode(l.json))
    const examples = l.records.flatMap((r) => examplesOfRecord(r))
    const rounds = [...s.seals.keys()].filter((r) => r <= round).sort((a, b) => a - b)
    return {
      round,
      trainer: l.model.version,
      datasetDigest: trainingDigest(s, round),
      checkpoint: `sha256:${l.weights}`,
      metrics: {
        examples: examples.length,
        records: l.records.length,
        // Without examples there is nothing to be right about: no accuracy rather than a made-up one.
        ...(examples.length === 0 ? {} : { accuracy: nextActionAccuracy(l.model, examples) })
      },
      weights: l.weights,
      seed: l.seed,
      records: { count: l.records.length, rounds }
    } satisfies DataOf<typeof PolicyTrained>
  })

/**
 * A learned run with a trainer (`run.trainer`): the latest version that trainer published,
 * as PublishedPolicies tells it — the version's own data under the run's round, and in
 * `published` which version it was, so replay is told the same. None published yet: the
 * round's rollouts explore, and the event says so (version 0, no weights).
 */
const takenPublished = (s: RunState, round: number, trainer: string, causationId: string) =>
  Effect.gen(function* () {
    const { stream, latest } = yield* (yield* PublishedPolicies).latest({ causationId, trainer })
    if (latest === null) {
      return {
        round,
        // No model: the learner version the run records names the trainer it would have been.
        trainer: trainerName(learnerOf(s.config!)),
        datasetDigest: trainingDigest(s, round),
        checkpoint: "none",
        metrics: {},
        published: { trainer, stream, version: 0 }
      } satisfies DataOf<typeof PolicyTrained>
    }
    const { round: _, published: __, ...own } = latest.data
    return { ...own, round, published: { trainer, stream, version: latest.version, eventId: latest.eventId } } satisfies DataOf<
      typeof PolicyTrained
    >
  })

/** An embedded run's PolicyTrained through `round`. */
const trainedRetrieval = (s: RunState, round: number): DataOf<typeof PolicyTrained> => {
  const model = retrievalModelOf(s, round)
  return {
    round,
    trainer: TRAINER,
    datasetDigest: trainingDigest(s, round),
    checkpoint: `sha256:${sha256(modelDigestInput(model))}`,
    metrics: { examples: s.examples.filter((x) => x.round <= round).length, distinct_examples: model.examples.length }
  }
}

export const policyTraining = defineDecider({
  name: "policy-training",
  version: "1",
  handles: ["DatasetSealed"],
  emits: ["PolicyTrained"],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.gen(function* () {
      if (e.type !== "DatasetSealed" || s.config === null || e.runId === null) return []
      const round = e.data.round
      const policy = s.config.policy
      const trainer = policy.kind === "learned" ? (policy.trainer ?? null) : null
      const l = policy.kind === "learned" && trainer === null ? learnedThrough(s, round) : null
      const data =
        trainer !== null
          ? yield* takenPublished(s, round, trainer, e.id)
          : l !== null
            ? yield* trainedLearned(s, round, l)
            : policy.kind === "embedded"
              ? trainedRetrieval(s, round)
              : null
      if (data === null) return []
      return [decision(PolicyTrained, { stream: runStream(e.runId, "round", String(round)), causationId: e.id, ordinal: 0, data })]
    })
})
