/**
 * A trainer outside any run (`core train`) publishes on `trainer.<kind>.<id>` streams: the
 * envelope takes them beside `ws.` and `run.` ones, they belong to no run, and a follow
 * trainer's PolicyTrained — its records named by the stream sequences they cover — round-trips.
 */
import { expect, test } from "bun:test"
import { Result } from "effect"
import { catalog, makeEvent, PolicyTrained, runOfStream, sha256 } from "../mod.ts"

const weights = sha256("learned model json")
const version = {
  round: 3,
  trainer: "learner-v1",
  datasetDigest: sha256("record ids in stream order"),
  checkpoint: `sha256:${weights}`,
  metrics: { records: 40, examples: 31 },
  weights,
  seed: "nightly",
  records: { count: 40, rounds: [0, 1], first: 12, last: 97 }
}
const at = (stream: string) =>
  makeEvent(PolicyTrained, {
    stream,
    runId: null,
    causationId: sha256("a version"),
    ordinal: 0,
    recordedAt: "2026-03-01T12:00:00.000Z",
    data: version
  })

test("a follow trainer's version on trainer.follow.<consumer> round-trips, and names no run", () => {
  const encoded = Result.getOrThrow(catalog.encode(at("trainer.follow.nightly")))
  const decoded = Result.getOrThrow(catalog.decodeJson(encoded.json))
  expect(decoded.data).toEqual(version)
  expect(runOfStream("trainer.follow.nightly")).toBeNull()
  expect(Result.isSuccess(catalog.encode(at("trainer.run.run-1")))).toBe(true)
})

test.each(["trainer.nightly", "trainer.follow.night.ly", "trainers.follow.nightly", "trainer.follow.*"])(
  "%s is not a stream name",
  (stream) => {
    expect(Result.isFailure(catalog.encode(at(stream)))).toBe(true)
  }
)
