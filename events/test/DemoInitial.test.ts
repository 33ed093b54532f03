/**
 * `DemoIngested`'s `platform` and `initial` are additive (optional keys of version 1): events
 * written before them decode, encode and digest as they did — nothing is filled in on the
 * way — and events with them round-trip and are checked like the steps' observations.
 */
import { describe, expect, test } from "bun:test"
import { Result } from "effect"
import { catalog } from "../Catalog.ts"
import { canonicalJson, digest, sha256 } from "../Canonical.ts"
import { makeEvent } from "../Event.ts"
import { DemoIngested } from "../Workspace.ts"
import { samples } from "./samples.ts"

const old = samples.DemoIngested
const initial = { screenshot: sha256("home.png"), elements: sha256("home.json"), aria: sha256("home.xml") }
const withInitial = makeEvent(DemoIngested, {
  stream: old.stream,
  runId: null,
  causationId: null,
  ordinal: 0,
  recordedAt: old.recordedAt,
  data: { ...old.data, platform: "android", initial }
})

describe("DemoIngested: platform and initial", () => {
  test("given an event written before them, when decoded and encoded again, then it is the same bytes with neither key", () => {
    const json = JSON.stringify(old)
    const decoded = Result.getOrThrow(catalog.decodeJson(json))
    expect(decoded.version).toBe(1)
    expect(Object.keys(decoded.data)).not.toContain("initial")
    expect(Object.keys(decoded.data)).not.toContain("platform")
    expect(canonicalJson(Result.getOrThrow(catalog.encode(decoded)).event)).toBe(canonicalJson(JSON.parse(json)))
    expect(digest(decoded.data)).toBe(digest(JSON.parse(json).data))
  })

  test("given an event with both, when it goes through JSON, then both come back", () => {
    const encoded = Result.getOrThrow(catalog.encode(withInitial))
    const decoded = Result.getOrThrow(catalog.decodeJson(encoded.json))
    expect(decoded.type === "DemoIngested" && decoded.data.initial).toEqual(initial)
    expect(decoded.type === "DemoIngested" && decoded.data.platform).toBe("android")
  })

  test("given a non-hash initial blob or an unknown platform, when encoded, then it is refused", () => {
    const badHash = { ...withInitial, data: { ...withInitial.data, initial: { ...initial, aria: "NOT-A-HASH" } } }
    const badPlatform = { ...withInitial, data: { ...withInitial.data, platform: "desktop" } }
    expect(Result.isFailure(catalog.encode(badHash as never))).toBe(true)
    expect(Result.isFailure(catalog.encode(badPlatform as never))).toBe(true)
  })
})
