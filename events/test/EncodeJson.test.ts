/**
 * `encodeJson` is the append's cheaper spelling of `encode`: it must store the very same
 * bytes and refuse the very same events, with the same errors, or a log written by one
 * build would not match a log written by the other.
 */
import { describe, expect, test } from "bun:test"
import { Result } from "effect"
import { catalog } from "../Catalog.ts"
import type { CoreEvent } from "../Catalog.ts"
import { MAX_EVENT_BYTES } from "../Envelope.ts"
import { samples } from "./samples.ts"

const same = (event: CoreEvent) => {
  const full = catalog.encode(event)
  const json = catalog.encodeJson(event)
  if (Result.isSuccess(full)) {
    expect(Result.getOrThrow(json)).toBe(full.success.json)
    return full.success.json
  }
  if (Result.isSuccess(json)) throw new Error(`encodeJson accepted what encode refused: ${full.failure.message}`)
  expect(json.failure).toEqual(full.failure)
  expect(json.failure.message).toBe(full.failure.message)
  return full.failure
}

const withText = (text: string): CoreEvent => {
  const base = samples.ModelCalled
  return { ...base, data: { ...base.data, response: { ...base.data.response!, text } } }
}

describe("encodeJson agrees with encode", () => {
  test("byte for byte on every example event", () => {
    for (const event of Object.values(samples) as Array<CoreEvent>) {
      const json = same(event)
      expect(typeof json).toBe("string")
    }
  })

  test("on events whose keys are in another order or carry extra keys", () => {
    for (const event of Object.values(samples) as Array<CoreEvent>) {
      const { id, ...rest } = event
      same({ ...rest, extra: 1, id } as unknown as CoreEvent)
    }
  })

  test("on events the schema refuses, with the same InvalidEvent", () => {
    const base = samples.TrajectoryVerified
    const bad = [
      { ...base, id: "not-a-sha" },
      { ...base, data: { ...base.data, verdict: "maybe" } },
      { ...base, version: 99 },
      { ...base, type: "NoSuchEvent" }
    ] as unknown as Array<CoreEvent>
    for (const event of bad) expect((same(event) as { _tag: string })._tag).toBe("InvalidEvent")
  })

  test("at, just over and far over the size limit, counting UTF-8 bytes", () => {
    const overhead = Buffer.byteLength(Result.getOrThrow(catalog.encodeJson(withText(""))))
    expect(typeof same(withText("x".repeat(MAX_EVENT_BYTES - overhead)))).toBe("string")
    expect((same(withText("x".repeat(MAX_EVENT_BYTES - overhead + 1))) as { _tag: string })._tag).toBe("EventTooLarge")
    // Two bytes per character: short in characters, over in bytes.
    expect((same(withText("é".repeat(Math.ceil((MAX_EVENT_BYTES - overhead) / 2) + 1))) as { _tag: string })._tag).toBe("EventTooLarge")
    // Four bytes per surrogate pair, the most a character can take.
    expect((same(withText("𝄞".repeat(Math.ceil((MAX_EVENT_BYTES - overhead) / 4) + 1))) as { _tag: string })._tag).toBe("EventTooLarge")
    expect(typeof same(withText("𝄞".repeat(Math.floor((MAX_EVENT_BYTES - overhead) / 4))))).toBe("string")
  })
})
