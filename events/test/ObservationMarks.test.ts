/**
 * An observation's optional `marks` (the set-of-marks image) is additive: observations
 * written before it decode, encode and digest byte for byte as before (pinned digest below),
 * and a trajectory whose observations carry marks round-trips through the catalog.
 */
import { describe, expect, test } from "bun:test"
import { Result, Schema } from "effect"
import { catalog } from "../Catalog.ts"
import { canonicalJson, digest, sha256 } from "../Canonical.ts"
import { Observation } from "../Trajectory.ts"
import { samples } from "./samples.ts"

const decode = Schema.decodeUnknownSync(Observation)
const encode = Schema.encodeSync(Observation)

/** An observation as logs held it before `marks`, and its digest then (computed at the commit before it). */
const old = {
  url: "/search?q=kettle",
  app: null,
  title: "Shop",
  screenshot: sha256("s.png"),
  elements: sha256("s.json"),
  aria: sha256("s.txt"),
  truncated: false,
  error: null
}
const pinned = "63a08898b64362ddd5a56847205787172eeb4cbf5ee1da58a38b308324c8f082"

describe("observation marks", () => {
  test("an observation without marks decodes, encodes and digests as before, and gains no key", () => {
    const decoded = decode(old)
    expect("marks" in decoded).toBe(false)
    expect(canonicalJson(encode(decoded))).toBe(canonicalJson(old))
    expect(digest(decoded)).toBe(pinned)
  })

  test.each([
    ["a marked image", sha256("s-marks.png"), true],
    ["null (asked for, no screenshot)", null, true],
    ["not a hash", "NOT-A-HASH", false]
  ] as const)("marks as %s: decodes and round-trips when valid, else is refused", (_, marks, ok) => {
    const observation = { ...old, marks }
    if (!ok) return void expect(() => decode(observation)).toThrow()
    expect(encode(decode(observation))).toEqual(observation)
    expect(digest(decode(observation))).not.toBe(pinned)
  })

  test("a trajectory with marked observations round-trips through the catalog", () => {
    const event = samples.TrajectoryRecorded
    const marked = {
      ...event,
      data: {
        ...event.data,
        initial: { ...event.data.initial, marks: sha256("initial-marks.png") },
        steps: event.data.steps.map((s, i) => ({ ...s, observation: { ...s.observation, marks: i === 0 ? null : sha256(`marks-${i}`) } }))
      }
    }
    const encoded = Result.getOrThrow(catalog.encode(marked))
    expect(Result.getOrThrow(catalog.decodeJson(encoded.json))).toEqual(marked)
    // The sample itself, recorded without marks, still encodes without the key.
    expect(Result.getOrThrow(catalog.encode(event)).json).not.toContain('"marks"')
  })
})
