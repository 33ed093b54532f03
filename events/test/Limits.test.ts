import { describe, expect, test } from "bun:test"
import { Result } from "effect"
import { catalog } from "../Catalog.ts"
import type { CoreEvent } from "../Catalog.ts"
import { MAX_EVENT_BYTES } from "../Envelope.ts"
import { samples } from "./samples.ts"

/** A ModelCalled whose response text is `n` ASCII characters: its size is exact to the byte. */
const withResponse = (n: number): CoreEvent => {
  const base = samples.ModelCalled
  return { ...base, data: { ...base.data, response: { ...base.data.response!, text: "x".repeat(n) } } }
}

const sizeOf = (event: CoreEvent): number => Buffer.byteLength(JSON.stringify(event))

describe("event size limit", () => {
  const overhead = sizeOf(withResponse(0))

  test("an event of exactly the limit is accepted", () => {
    const event = withResponse(MAX_EVENT_BYTES - overhead)
    const r = Result.getOrThrow(catalog.encode(event))
    expect(r.bytes).toBe(MAX_EVENT_BYTES)
  })

  test("one byte over the limit is EventTooLarge, in one line that names the limit", () => {
    const r = catalog.encode(withResponse(MAX_EVENT_BYTES - overhead + 1))
    if (Result.isSuccess(r)) throw new Error("expected EventTooLarge")
    expect(r.failure._tag).toBe("EventTooLarge")
    if (r.failure._tag !== "EventTooLarge") return
    expect(r.failure.bytes).toBe(MAX_EVENT_BYTES + 1)
    expect(r.failure.limit).toBe(MAX_EVENT_BYTES)
    expect(r.failure.message).not.toContain("\n")
    expect(r.failure.message).toContain(String(MAX_EVENT_BYTES))
    expect(r.failure.message).toContain("ModelCalled")
  })

  test("size is counted in UTF-8 bytes, not characters", () => {
    // "é" is one UTF-16 unit but two bytes: half the characters already fill the budget.
    const base = samples.ModelCalled
    const n = Math.ceil((MAX_EVENT_BYTES - overhead) / 2) + 1
    const event: CoreEvent = { ...base, data: { ...base.data, response: { ...base.data.response!, text: "é".repeat(n) } } }
    const r = catalog.encode(event)
    expect(Result.isFailure(r) && r.failure._tag).toBe("EventTooLarge")
  })

  test("a large trajectory is refused the same way", () => {
    const base = samples.TrajectoryRecorded
    const steps = Array.from({ length: 2000 }, () => base.data.steps[0]!)
    const r = catalog.encode({ ...base, data: { ...base.data, steps } })
    expect(Result.isFailure(r) && r.failure._tag).toBe("EventTooLarge")
  })
})
