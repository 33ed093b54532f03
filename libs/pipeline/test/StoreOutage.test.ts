/**
 * A blob store that stays unavailable past the outage limit fails the rollout instead of
 * becoming an infra-error trajectory: a recorded infra-error is kept by `--resume` and stays
 * in the training data's log for good, while an episode never recorded is run again.
 * No browser: the environment stores its observation through the real `storeObservation`.
 */
import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { BlobStore, BlobStoreError } from "@core/blobstore"
import { sha256 } from "@core/events"
import { InfraError, storeObservation } from "@core/environment"
import type { EnvironmentShape } from "@core/environment"
import { Randomness } from "@core/engine"
import { liveObservations } from "../LiveObservations.ts"
import { rollout, trajectoryIdOf } from "../Rollout.ts"
import { noModels } from "@core/engine"

const OUTAGE = 'cannot write blob in bucket "core-blobs" at nats://127.0.0.1:4222: TIMEOUT'

/** A blob store whose server did not come back; `reads` says whether reads still work. */
const downStore = (reads: boolean) => {
  const kept = new Map<string, Uint8Array>()
  const down = () => Effect.fail(new BlobStoreError({ reason: OUTAGE }))
  return Layer.succeed(
    BlobStore,
    BlobStore.of({
      kind: "nats",
      put: (bytes) => (reads ? Effect.sync(() => (kept.set(sha256(bytes), bytes), sha256(bytes))) : down()),
      get: (hash) => (reads ? Effect.succeed(kept.get(hash) ?? new Uint8Array()) : down()),
      has: () => Effect.succeed(false)
    })
  )
}

const environment = (fail: InfraError | null): Effect.Effect<EnvironmentShape, never, BlobStore> =>
  Effect.map(Effect.service(BlobStore), (blobs): EnvironmentShape => {
    const observe = () =>
      fail !== null
        ? Effect.fail(fail)
        : storeObservation(blobs, {
            url: "http://127.0.0.1/",
            app: null,
            title: "t",
            elements: [],
            elementsBytes: new TextEncoder().encode("{}"),
            aria: "",
            screenshot: null,
            error: null,
            limit: 50,
            timing: { actionMs: 0, settleMs: 0 },
            startedAt: performance.now(),
            done: false,
            episode: null
          })
    return { reset: observe, step: observe, close: () => Effect.void }
  })

const run = (store: Layer.Layer<BlobStore>, fail: InfraError | null = null) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const env = yield* environment(fail)
      const observations = liveObservations({ environments: [env], taskOf: (taskId) => ({ taskId, startUrl: "http://127.0.0.1/" }) })
      return yield* Effect.result(
        rollout({
          causationId: "cause",
          trajectoryId: trajectoryIdOf(1, "t1", 0),
          taskId: "t1",
          instruction: "do it",
          round: 1,
          sample: 0,
          stepBudget: 2,
          policy: { kind: "exploration" }
        }).pipe(Effect.provide(Layer.mergeAll(observations, Randomness.layer("seed"), noModels)))
      )
    }).pipe(Effect.provide(store))
  )

describe("a store outage is never an infra-error trajectory", () => {
  test("given blob writes that fail past the outage limit, the rollout fails with the store error and records nothing", async () => {
    const result = await run(downStore(false))
    expect(result._tag).toBe("Failure")
    if (result._tag === "Failure") expect(result.failure).toBeInstanceOf(BlobStoreError)
  })

  test("given blob reads that fail, the rollout fails with the store error too", async () => {
    // Writes land, reads do not: the observation cannot be handed to the policy.
    const reads = Layer.succeed(
      BlobStore,
      BlobStore.of({
        kind: "nats",
        put: (bytes) => Effect.succeed(sha256(bytes)),
        get: () => Effect.fail(new BlobStoreError({ reason: OUTAGE })),
        has: () => Effect.succeed(false)
      })
    )
    const result = await run(reads)
    expect(result._tag).toBe("Failure")
    if (result._tag === "Failure") expect(result.failure).toBeInstanceOf(BlobStoreError)
  })

  test("given a platform failure on every attempt, the trajectory is still an infra-error", async () => {
    const result = await run(downStore(true), new InfraError({ reason: "browser crashed" }))
    expect(result._tag).toBe("Success")
    if (result._tag === "Success")
      expect(result.success).toMatchObject({ outcome: "infra-error", infraError: "browser crashed", attempts: 3 })
  })
})
