/**
 * Self-training on CPU, closing the loop of rounds (docs/method.md): with `run.policy` "embedded",
 * each sealed round's dataset — with every earlier round's, round 0 being the demos —
 * trains the retrieval policy (libs/policy) the next round's rollouts use. PolicyTrained
 * names what it was trained on (the digest of the seals' digests) and the model it made.
 *
 * Training is a pure function of the sft records in the log, so replay and the rollouts
 * rebuild the same model; `retrievalModelOf` memoises it by that digest.
 *
 * @example
 * const [trained] = yield* policyTraining.decide(state, datasetSealed) // PolicyTrained
 */
import { Effect } from "effect"
import { digest, PolicyTrained, runStream, sha256 } from "@core/events"
import type { CoreEvent } from "@core/events"
import { modelDigestInput, trainRetrieval } from "@core/policy"
import type { RetrievalModel } from "@core/policy"
import { decision, defineDecider } from "@core/engine"
import { evolveRun, initialRunState } from "../RunState.ts"
import type { RunState } from "../RunState.ts"

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

export const policyTraining = defineDecider({
  name: "policy-training",
  version: "1",
  handles: ["DatasetSealed"],
  emits: ["PolicyTrained"],
  initial: initialRunState,
  evolve: evolveRun,
  decide: (s: RunState, e: CoreEvent) =>
    Effect.sync(() => {
      if (e.type !== "DatasetSealed" || s.config === null || e.runId === null || s.config.policy.kind !== "embedded") return []
      const round = e.data.round
      const model = retrievalModelOf(s, round)
      return [
        decision(PolicyTrained, {
          stream: runStream(e.runId, "round", String(round)),
          causationId: e.id,
          ordinal: 0,
          data: {
            round,
            trainer: TRAINER,
            datasetDigest: trainingDigest(s, round),
            checkpoint: `sha256:${sha256(modelDigestInput(model))}`,
            metrics: { examples: s.examples.filter((x) => x.round <= round).length, distinct_examples: model.examples.length }
          }
        })
      ]
    })
})
