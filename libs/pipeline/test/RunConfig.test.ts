/**
 * Where a run played, as its RunStarted config is read back (by a resume, a replay, an
 * evaluation): the platform it recorded, and the web for runs logged before the key existed.
 */
import { describe, expect, test } from "bun:test"
import { runConfigOf } from "../RunState.ts"

describe("run.platform read back from RunStarted", () => {
  test("given each platform a run records, when its config is read, then the same platform comes back", () => {
    for (const platform of ["web", "mobile-web", "android"] as const) expect(runConfigOf({ "run.platform": platform }).platform).toBe(platform)
  })

  test("given a run logged without the key, or with a value no platform has, when its config is read, then it played on the web", () => {
    expect(runConfigOf({}).platform).toBe("web")
    expect(runConfigOf({ "run.platform": "ios" }).platform).toBe("web")
  })
})
