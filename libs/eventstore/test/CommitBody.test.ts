/**
 * The stored commit and the headers it is published with are written on the hot path
 * without the general helpers; both must stay byte for byte what those helpers produce,
 * because stored logs and deduplication depend on them.
 */
import { describe, expect, test } from "bun:test"
import { headers } from "@nats-io/transport-node"
import { Result } from "effect"
import { catalog, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { samples } from "../../../events/test/samples.ts"
import { encodeCommit, MAX_COMMIT_BYTES, prepareCommit } from "../Commit.ts"
import { commitId } from "../EventStore.ts"
import { conditionalHeaders } from "../Publisher.ts"
import { job } from "./conformance.ts"

/** The commit body as it has always been spelled, from `catalog.encode`. */
const reference = (stream: string, events: ReadonlyArray<CoreEvent>): string =>
  `{"commitId":${JSON.stringify(commitId(stream, events))},"events":[${events
    .map((e) => Result.getOrThrow(catalog.encode(e)).json)
    .join(",")}]}`

describe("commit body", () => {
  test("is the reference spelling for every example event", () => {
    for (const event of Object.values(samples) as Array<CoreEvent>) {
      const prepared = Result.getOrThrow(prepareCommit(event.stream, [event], { expectedRevision: 0 }))
      expect(prepared.id).toBe(commitId(event.stream, [event]))
      expect(prepared.body).toBe(reference(event.stream, [event]))
    }
  })

  test("is the reference spelling for a commit of several events", () => {
    const s = runStream("r1", "job", "a")
    const events = [job("r1", s, 0), job("r1", s, 1, { note: "ünïcödé ✓ 𝄞" }), job("r1", s, 2)]
    expect(Result.getOrThrow(prepareCommit(s, events, { expectedRevision: 4 })).body).toBe(reference(s, events))
  })

  test("a commit over the message limit is refused with the events' byte count", () => {
    const s = runStream("r1", "job", "big")
    // Each event under the event limit, together over the commit limit; "é" is two bytes.
    const events = Array.from({ length: 5 }, (_, i) => job("r1", s, i, { blob: "é".repeat(110 * 1024) }))
    const bytes = events.reduce((n, e) => n + Result.getOrThrow(catalog.encode(e)).bytes, 0)
    expect(bytes).toBeGreaterThan(MAX_COMMIT_BYTES)
    const r = encodeCommit(s, "id", events)
    if (Result.isSuccess(r)) throw new Error("expected InvalidAppend")
    expect(r.failure._tag).toBe("InvalidAppend")
    expect(r.failure.message).toBe(
      `cannot append to ${s}: commit of 5 events is ${bytes} bytes, over the ${MAX_COMMIT_BYTES}-byte message limit: split it into several commits`
    )
  })

  test("a commit just under the message limit in bytes is accepted", () => {
    const s = runStream("r1", "job", "fits")
    const events = Array.from({ length: 4 }, (_, i) => job("r1", s, i, { blob: "x".repeat(250 * 1024) }))
    expect(Result.getOrThrow(encodeCommit(s, "id", events))).toBe(
      `{"commitId":"id","events":[${events.map((e) => Result.getOrThrow(catalog.encode(e)).json).join(",")}]}`
    )
  })

  test("an oversize event is named the same way in a commit of several", () => {
    const s = runStream("r1", "job", "one-big")
    const events = [job("r1", s, 0), job("r1", s, 1, { blob: "x".repeat(300 * 1024) })]
    const r = prepareCommit(s, events, { expectedRevision: 0 })
    const expected = catalog.encode(events[1]!)
    if (Result.isSuccess(r) || Result.isSuccess(expected)) throw new Error("expected EventTooLarge")
    expect(r.failure).toEqual(expected.failure)
  })
})

describe("conditional publish headers", () => {
  const decoder = new TextDecoder()
  const viaClient = (id: string, seq: number) => {
    const h = headers()
    h.set("Nats-Msg-Id", id)
    h.set("Nats-Expected-Last-Subject-Sequence", String(seq))
    return decoder.decode((h as unknown as { encode(): Uint8Array }).encode())
  }
  const ours = (id: string, seq: number) => decoder.decode((conditionalHeaders(id, seq) as unknown as { encode(): Uint8Array }).encode())

  test("are the bytes the client's headers() writes", () => {
    const id = commitId(runStream("r1", "job", "a"), [job("r1", runStream("r1", "job", "a"), 0)])
    for (const seq of [0, 1, 42, 2 ** 40]) expect(ours(id, seq)).toBe(viaClient(id, seq))
  })

  test("fall back to the client for values it would rewrite or refuse", () => {
    expect(ours("  padded id ", 3)).toBe(viaClient("  padded id ", 3))
    expect(() => conditionalHeaders("bad\r\nid", 3)).toThrow()
  })
})
