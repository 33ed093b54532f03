/**
 * Given a URL or a message from an episode on an instance, when it is recorded, then the
 * instance is gone from it: pages on it as path and query (and fragment for a hash-routed
 * app), its origin in a message as `{base}`; whatever is not on the instance is kept whole,
 * and a URL already recorded (relative) reads back unchanged, as decisions read it.
 */
import { describe, expect, test } from "bun:test"
import { instanceOrigin, recordedUrl, sitePath, withBase } from "../mod.ts"

const base = "http://127.0.0.1:4312"

describe("recordedUrl", () => {
  const cases: ReadonlyArray<readonly [string | null, boolean, string | null]> = [
    [`${base}/cart?x=1#top`, false, "/cart?x=1"],
    [`${base}/#/notes/groceries`, true, "/#/notes/groceries"],
    [`${base}/`, false, "/"],
    ["about:blank", false, "about:blank"],
    ["http://127.0.0.1:5000/other", false, "http://127.0.0.1:5000/other"],
    ["/already/relative", true, "/already/relative"],
    [null, false, null]
  ]
  for (const [url, hashRouting, expected] of cases) {
    test(`given ${url} (hashRouting ${hashRouting}), then it is recorded as ${expected}`, () => {
      expect(recordedUrl(url, base, hashRouting)).toBe(expected)
    })
  }

  test("given no instance (a reset that never reached the app), then the URL is kept", () => {
    expect(recordedUrl(`${base}/x`, null, false)).toBe(`${base}/x`)
  })

  test("given a recorded URL, then sitePath reads it as it read the absolute one", () => {
    for (const [url, hashRouting] of [[`${base}/cart?x=1#top`, false] as const, [`${base}/#/notes`, true] as const]) {
      expect(sitePath(recordedUrl(url, base, hashRouting), hashRouting)).toBe(sitePath(url, hashRouting))
    }
  })
})

describe("withBase", () => {
  test("given a refusal naming the instance, then the instance is {base} and the other origin stays", () => {
    expect(withBase(`navigate refused: http://a.test/x is outside this app's origins (${base})`, base)).toBe(
      "navigate refused: http://a.test/x is outside this app's origins ({base})"
    )
  })

  test("given a longer port that starts with the instance's, then it is not mistaken for it", () => {
    expect(withBase(`${base}/a and http://127.0.0.1:43120/b`, base)).toBe("{base}/a and http://127.0.0.1:43120/b")
  })

  test("given no message or no instance, then nothing changes", () => {
    expect(withBase(null, base)).toBeNull()
    expect(withBase(`at ${base}`, null)).toBe(`at ${base}`)
  })

  test("instanceOrigin: only http(s) pages have one", () => {
    expect(instanceOrigin(`${base}/x?y`)).toBe(base)
    expect(instanceOrigin("about:blank")).toBeNull()
    expect(instanceOrigin("/relative")).toBeNull()
  })
})
