/**
 * The live PublishedPolicies over a real store (SQLite events, a blob folder): the latest
 * version of `trainer.follow.<name>`, or none; and every version it cannot vouch for refused
 * in one line — another trainer's, one without weights, weights missing from the store,
 * bytes that are not the learner's model, a name that is not a trainer's.
 */
import { afterAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { type BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { PublishedPolicies } from "@core/engine"
import { sha256 } from "@core/events"
import { EmbeddedStore } from "@core/eventstore"
import type { EventStore } from "@core/eventstore"
import { learnedModelJson, TRAINER_VERSION, trainOnRecords } from "@core/learner"
import { publishedPolicies } from "../Published.ts"
import { appendTrained, putWeights, readTrained, trainerStream } from "../TrainerStream.ts"
import type { TrainedData } from "../TrainerStream.ts"

const tmp = mkdtempSync(join(tmpdir(), "core-published-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const stores = Layer.mergeAll(EmbeddedStore.layer({ path: join(tmp, "events.db") }), DirectoryBlobStore.layer({ dir: join(tmp, "blobs") }))
const using = <A, E>(effect: Effect.Effect<A, E, EventStore | BlobStore>) => Effect.runPromise(Effect.provide(effect, stores))

const version = (weights: string, over: Partial<TrainedData> = {}): TrainedData => ({
  round: 1,
  trainer: TRAINER_VERSION,
  datasetDigest: sha256("records"),
  checkpoint: `sha256:${weights}`,
  metrics: { records: 3 },
  weights,
  seed: "nightly",
  records: { count: 3, first: 1, last: 3 },
  ...over
})

/** Appends a version to a trainer's stream, its weights put first. */
const publish = (trainer: string, data: (weights: string) => TrainedData, json = learnedModelJson(trainOnRecords([], trainer))) =>
  using(
    Effect.gen(function* () {
      const { weights } = yield* putWeights(json)
      const { revision } = yield* readTrained(trainerStream(trainer))
      yield* appendTrained(trainerStream(trainer), revision, data(weights))
    })
  )

/** What the live layer answers for a trainer: its answer, or the refusal's line. */
const latest = (trainer: string) =>
  using(
    Effect.gen(function* () {
      return yield* (yield* PublishedPolicies).latest({ causationId: "c", trainer })
    }).pipe(
      Effect.provide(publishedPolicies),
      Effect.catch((e) => Effect.succeed(e.message))
    )
  )

test("nothing published: no version; two published: the second, by its position and event id", async () => {
  expect(await latest("fresh")).toEqual({ stream: "trainer.follow.fresh", latest: null })
  await publish("two", (w) => version(w))
  await publish(
    "two",
    (w) => version(w, { round: 2, records: { count: 5, first: 1, last: 5 } }),
    learnedModelJson(trainOnRecords([], "again"))
  )
  const answer = await latest("two")
  if (typeof answer === "string") throw new Error(answer)
  const { versions } = await using(readTrained("trainer.follow.two"))
  expect(answer.latest).toMatchObject({ version: 2, data: versions[1] })
  expect(answer.latest?.eventId).toMatch(/^[0-9a-f]{64}$/)
})

test("a version it cannot vouch for is refused in one line", async () => {
  await publish("other", (w) => version(w, { trainer: "learner-v0" }))
  expect(await latest("other")).toBe(
    'trainer other: version 1 was trained by "learner-v0", not a learner this code knows (learner-v1, learner-v2)'
  )
  // A version whose event and weights disagree on the learner that made them.
  await publish("mixed", (w) => version(w, { trainer: "learner-v1" }))
  expect(await latest("mixed")).toBe(`trainer mixed: version 1 says learner-v1 but its weights are a ${TRAINER_VERSION} model`)
  await publish("bare", (w) => {
    const { weights: _, ...rest } = version(w)
    return rest
  })
  expect(await latest("bare")).toBe("trainer bare: version 1 names no weights")
  await publish("junk", (w) => version(w), JSON.stringify({ version: TRAINER_VERSION, weights: "all of them" }))
  expect(await latest("junk")).toBe(
    `trainer junk: version 1's weights are refused: ${TRAINER_VERSION} model without its dim, seed, epochs or examples`
  )
  await publish("gone", () => version(sha256("never stored")))
  expect(await latest("gone")).toMatch(/^trainer gone: version 1's weights [0-9a-f]{12} cannot be read: .+$/)
  expect(await latest("../etc")).toBe("trainer ../etc: a trainer's name may only hold letters, digits, '-' and '_'")
})
