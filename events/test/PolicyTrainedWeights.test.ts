/**
 * PolicyTrained's `weights`, `seed` and `records` are additive: events written before them
 * decode, encode and digest byte for byte as before (pinned digests below, computed at the
 * commit before the keys), a learned model's event round-trips with them, and a weights
 * blob that is not a sha256 is refused.
 */
import { describe, expect, test } from "bun:test"
import { Result, Schema } from "effect"
import { canonicalJson, catalog, digest, examples, makeEvent, PolicyTrained, sha256 } from "../mod.ts"

const decode = Schema.decodeUnknownSync(PolicyTrained.data)
const encode = Schema.encodeSync(PolicyTrained.data)

/** PolicyTrained data as logs held them before the keys, with their digests then. */
const old: ReadonlyArray<readonly [string, unknown, string]> = [
  ["an outside trainer's", examples.PolicyTrained, "9352986f7d4f04bc1cf0bcb2397c18a5bcb1d13ba52421d1e1b24d4123a08954"],
  [
    "the retrieval policy's",
    {
      round: 0,
      trainer: "retrieval-v1",
      datasetDigest: sha256("seals 0"),
      checkpoint: `sha256:${sha256("model 0")}`,
      metrics: { examples: 2, distinct_examples: 2 }
    },
    "73e29c9541b4d8bfc749592d7dda1cf4837a683922377d37324587436aa4b758"
  ]
]

const weights = sha256("learned model json")
const learned = {
  round: 1,
  trainer: "learner-v1",
  datasetDigest: sha256("seals 0 1"),
  checkpoint: `sha256:${weights}`,
  metrics: { examples: 5, records: 7, accuracy: 0.8 },
  weights,
  seed: sha256("run seed and round"),
  records: { count: 7, rounds: [0, 1] }
}

describe("PolicyTrained's weights, seed and records", () => {
  test.each(old)("%s event from before the keys decodes, encodes and digests as before", (_, data, pinned) => {
    const decoded = decode(data)
    expect(decoded).toEqual(data as typeof decoded)
    expect(canonicalJson(encode(decoded))).toBe(canonicalJson(data))
    expect(digest(decoded)).toBe(pinned)
  })

  test("a learned model's event round-trips through the catalog with its weights, seed and records", () => {
    const event = makeEvent(PolicyTrained, {
      stream: "run.r-1.round.1",
      runId: "r-1",
      causationId: sha256("sealed"),
      ordinal: 0,
      recordedAt: "2026-03-01T12:00:00.000Z",
      data: learned
    })
    const encoded = Result.getOrThrow(catalog.encode(event))
    const decoded = Result.getOrThrow(catalog.decodeJson(encoded.json))
    expect(decoded.data).toEqual(learned)
  })

  test.each([
    ["a weights name that is not a sha256", { ...learned, weights: "ckpt/iter1" }],
    ["a negative record count", { ...learned, records: { count: -1, rounds: [0] } }],
    ["a round that is not a count", { ...learned, records: { count: 7, rounds: [-1] } }]
  ])("%s is refused", (_, data) => {
    expect(() => decode(data)).toThrow()
  })

  test("a follower's version may name stream sequences and no rounds (its first versions did not name them)", () => {
    expect(decode({ ...learned, records: { count: 7, first: 3, last: 9 } }).records).toEqual({ count: 7, first: 3, last: 9 })
  })

  test("a run's round that took a follower's version names it; version 0 (nothing published) has no event id; a negative version is refused", () => {
    const published = { trainer: "nightly", stream: "trainer.follow.nightly", version: 2, eventId: sha256("version 2") }
    expect(decode({ ...learned, published }).published).toEqual(published)
    const none = { trainer: "nightly", stream: "trainer.follow.nightly", version: 0 }
    expect(decode({ ...learned, published: none }).published).toEqual(none)
    expect(() => decode({ ...learned, published: { ...none, version: -1 } })).toThrow()
    // Without the key, the event digests as before it existed.
    expect(digest(decode(learned))).toBe(digest(learned))
  })
})
