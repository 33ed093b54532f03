import { describe, expect, test } from "bun:test"
import { Result, Schema } from "effect"
import { sha256 } from "../Canonical.ts"
import { catalog } from "../Catalog.ts"
import type { EventDecodeError } from "../Errors.ts"
import { defineEvent, makeEvent } from "../Event.ts"
import { makeRegistry, upcaster } from "../Registry.ts"
import { TaskRegisteredV1 } from "../Workspace.ts"
import { samples } from "./samples.ts"

/** A TaskRegistered v1 exactly as an early build stored it. */
const storedV1 = JSON.stringify({
  id: sha256("v1-task"),
  type: "TaskRegistered",
  version: 1,
  stream: "ws.task.shop-wishlist-7",
  runId: null,
  causationId: null,
  recordedAt: "2025-11-02T09:30:00.000Z",
  data: {
    taskId: "shop-wishlist-7",
    site: "shop",
    suite: "shopping-basic",
    template: null,
    instruction: "Add black garlic to my wish list",
    siteSeed: 7,
    checker: "wishlistContains",
    url: "http://shop.local/"
  }
})

const failureOf = <A>(r: Result.Result<A, EventDecodeError>): EventDecodeError => {
  if (Result.isSuccess(r)) throw new Error(`expected a failure, got ${JSON.stringify(r.success)}`)
  expect(r.failure.message).not.toContain("\n")
  return r.failure
}

const withData = (data: unknown, version = 2) => JSON.stringify({ ...samples.TaskRegistered, version, data })

describe("upcasting TaskRegistered v1 → v2", () => {
  test("a stored v1 decodes as v2: web platform, url become startUrl", () => {
    const event = Result.getOrThrow(catalog.decodeJson(storedV1))
    expect(event.type).toBe("TaskRegistered")
    expect(event.version).toBe(2)
    if (event.type !== "TaskRegistered") throw new Error("unreachable")
    expect(event.id).toBe(sha256("v1-task"))
    expect(event.recordedAt).toBe("2025-11-02T09:30:00.000Z")
    expect(event.data).toEqual({
      taskId: "shop-wishlist-7",
      site: "shop",
      suite: "shopping-basic",
      template: null,
      instruction: "Add black garlic to my wish list",
      siteSeed: 7,
      checker: "wishlistContains",
      platform: "web",
      startUrl: "http://shop.local/",
      app: null
    })
    expect("url" in event.data).toBe(false)
  })

  test("a v1 built with makeEvent decodes the same way, and cannot be written any more", () => {
    const v1 = makeEvent(TaskRegisteredV1, {
      stream: "ws.task.t1",
      runId: null,
      causationId: null,
      ordinal: 0,
      recordedAt: "2025-11-02T09:30:00.000Z",
      data: { taskId: "t1", site: "shop", suite: "s", template: null, instruction: "i", siteSeed: null, checker: null, url: "http://x/" }
    })
    const decoded = Result.getOrThrow(catalog.decode(JSON.parse(JSON.stringify(v1))))
    expect(decoded.version).toBe(2)
    expect(decoded.data).toMatchObject({ platform: "web", startUrl: "http://x/", app: null })
    const written = catalog.encode(v1 as never)
    expect(Result.isFailure(written) && written.failure._tag).toBe("InvalidEvent")
  })

  test("a malformed v1 is InvalidEvent naming version 1", () => {
    const bad = JSON.parse(storedV1)
    delete bad.data.url
    const f = failureOf(catalog.decode(bad))
    expect(f._tag).toBe("InvalidEvent")
    expect(f.message).toContain("v1")
  })

  test("an upcaster that throws, or returns the wrong shape, is InvalidEvent, not a crash", () => {
    const V1 = defineEvent("Probe", 1, Schema.Struct({ a: Schema.String }))
    const V2 = defineEvent("Probe", 2, Schema.Struct({ a: Schema.String, b: Schema.Int }))
    const raw = { ...JSON.parse(storedV1), type: "Probe", data: { a: "x" } }
    const throwing = makeRegistry(
      [V2],
      [
        upcaster(V1, V2, () => {
          throw new Error("boom\nsecond line")
        })
      ]
    )
    const thrown = failureOf(throwing.decode(raw))
    expect(thrown._tag).toBe("InvalidEvent")
    expect(thrown.message).toContain("boom; second line")
    const wrong = makeRegistry([V2], [upcaster(V1, V2, (d) => ({ ...d, b: "not an int" }) as never)])
    expect(failureOf(wrong.decode(raw)).message).toContain("upcast")
  })
})

describe("decode failures are values, never throws", () => {
  test("an unknown type is UnknownEventType", () => {
    const f = failureOf(catalog.decodeJson(JSON.stringify({ ...samples.JobQueued, type: "JobTeleported" })))
    expect(f._tag).toBe("UnknownEventType")
    expect(f.message).toContain("JobTeleported")
  })

  test("an unknown version is UnknownEventVersion, listing the known ones", () => {
    for (const version of [99, 3, 0]) {
      const f = failureOf(catalog.decodeJson(withData(samples.TaskRegistered.data, version)))
      expect(f._tag).toBe("UnknownEventVersion")
      if (f._tag === "UnknownEventVersion") expect(f.known).toEqual([1, 2])
      expect(f.message).toContain(String(version))
    }
  })

  test("malformed data is InvalidEvent with a one-line reason", () => {
    const { taskId: _dropped, ...rest } = samples.TaskRegistered.data
    for (const data of [rest, { ...rest, taskId: 7 }, { ...samples.TaskRegistered.data, platform: "desktop" }, null, "text"]) {
      const f = failureOf(catalog.decodeJson(withData(data)))
      expect(f._tag).toBe("InvalidEvent")
    }
    const missing = failureOf(catalog.decodeJson(withData(rest)))
    expect(missing.message).toContain("taskId")
  })

  test("a broken envelope is InvalidEvent", () => {
    for (const raw of [null, 42, [], {}, { ...samples.JobQueued, id: "short" }, { ...samples.JobQueued, stream: "no spaces allowed" }]) {
      expect(failureOf(catalog.decode(raw))._tag).toBe("InvalidEvent")
    }
  })

  test("non-JSON is InvalidEvent", () => {
    for (const text of ["", "{", "not json", '{"type":"JobQueued",}']) {
      const f = failureOf(catalog.decodeJson(text))
      expect(f._tag).toBe("InvalidEvent")
      expect(f.message).toContain("not JSON")
    }
  })
})
