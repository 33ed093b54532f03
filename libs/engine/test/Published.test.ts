/**
 * PublishedPolicies' recorded and resumed layers: the recorded one answers a round's
 * question from the PolicyTrained that round's seal caused (its `published` key), and
 * knows nothing else; a resumed run takes what its log recorded and asks the live layer
 * only for rounds it has not decided; with no layer at all, the question is refused.
 */
import { expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { makeEvent, PolicyTrained, sha256 } from "@core/events"
import type { CoreEvent, DataOf } from "@core/events"
import { PublishedPolicies, recordedPublished, resumePublished } from "../Published.ts"
import type { PublishedAnswer } from "../Published.ts"

const SEALED = sha256("round 0 sealed")
const LATER = sha256("round 1 sealed")
const EVENT_ID = sha256("version 2")
const weights = sha256("weights")

const version: DataOf<typeof PolicyTrained> = {
  round: 0,
  trainer: "learner-v1",
  datasetDigest: sha256("records"),
  checkpoint: `sha256:${weights}`,
  metrics: { records: 4 },
  weights,
  seed: "nightly",
  records: { count: 4, first: 1, last: 4 },
  published: { trainer: "nightly", stream: "trainer.follow.nightly", version: 2, eventId: EVENT_ID }
}

const trained = (causationId: string, data: DataOf<typeof PolicyTrained>): CoreEvent =>
  makeEvent(PolicyTrained, {
    stream: "run.r-1.round.0",
    runId: "r-1",
    causationId,
    ordinal: 0,
    recordedAt: "2026-12-07T00:00:00.000Z",
    data
  }) as CoreEvent

const ask = (layer: Layer.Layer<never>, causationId: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* (yield* PublishedPolicies).latest({ causationId, trainer: "nightly" })
    }).pipe(
      Effect.provide(layer),
      Effect.catch((e) => Effect.succeed(e._tag))
    )
  )

test("the recorded layer answers from the round's PolicyTrained: the version it took, or none; any other question is not recorded", async () => {
  const log = [trained(SEALED, version), trained(LATER, { ...version, round: 1, published: { ...version.published!, version: 0 } })]
  const { published: _, round: __, ...own } = version
  expect(await ask(recordedPublished(log), SEALED)).toEqual({
    stream: "trainer.follow.nightly",
    latest: { version: 2, eventId: EVENT_ID, data: { ...own, round: 2 } }
  })
  expect(await ask(recordedPublished(log), LATER)).toEqual({ stream: "trainer.follow.nightly", latest: null })
  expect(await ask(recordedPublished(log), sha256("another seal"))).toBe("PublishedPolicyNotRecorded")
  // A run's own training (no `published`) records no answer.
  const { published: ___, ...inRun } = version
  expect(await ask(recordedPublished([trained(SEALED, inRun)]), SEALED)).toBe("PublishedPolicyNotRecorded")
})

test("a resumed run takes what its log recorded, and asks the live layer only for rounds it has not decided", async () => {
  const live: PublishedAnswer = { stream: "trainer.follow.nightly", latest: null }
  const asked: Array<string> = []
  const liveLayer = Layer.succeed(PublishedPolicies, {
    latest: ({ causationId }) => Effect.sync(() => (asked.push(causationId), live))
  })
  const resumed = resumePublished([trained(SEALED, version)], liveLayer)
  expect(((await ask(resumed, SEALED)) as PublishedAnswer).latest?.version).toBe(2)
  expect(await ask(resumed, LATER)).toEqual(live)
  expect(asked).toEqual([LATER])
})

test("with no layer, the question is refused in one line rather than answered", async () => {
  expect(await ask(Layer.empty, SEALED)).toBe("PublishedPolicyRefused")
})
