import { describe, expect, test } from "bun:test"
import { canonicalJson, digest, sha256 } from "../Canonical.ts"
import { eventId } from "../Envelope.ts"

/** The IEEE-754 double with the given bit pattern (RFC 8785 Appendix B lists numbers this way). */
const fromBits = (hex: string): number => {
  const view = new DataView(new ArrayBuffer(8))
  view.setBigUint64(0, BigInt(`0x${hex}`))
  return view.getFloat64(0)
}

describe("canonicalJson (RFC 8785)", () => {
  test("the §3.2.2 example: whitespace, literals, numbers and string escapes", () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}'
    )
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
    )
  })

  test("the §3.2.3 example: keys sorted by UTF-16 code units", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }
    // Read the order off the text: JSON.parse would move the integer-like key "1" first.
    const order = [...canonicalJson(input).matchAll(/"([^"]*)":/g)].map((m) => JSON.parse(`"${m[1]}"`) as string)
    expect(order).toEqual(["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"])
  })

  test("nested objects are sorted at every level; arrays keep their order", () => {
    const value = { z: { b: [3, { y: 1, x: [2, 1] }], a: null }, a: { d: true, c: "s" } }
    expect(canonicalJson(value)).toBe('{"a":{"c":"s","d":true},"z":{"a":null,"b":[3,{"x":[2,1],"y":1}]}}')
    expect(canonicalJson({ b: 1, a: 2 })).toBe(canonicalJson({ a: 2, b: 1 }))
  })

  test("undefined object members are left out; undefined array items are null", () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}')
  })

  test("numbers are spelled as in Appendix B", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["0000000000000000", "0"],
      ["8000000000000000", "0"],
      ["0000000000000001", "5e-324"],
      ["8000000000000001", "-5e-324"],
      ["7fefffffffffffff", "1.7976931348623157e+308"],
      ["ffefffffffffffff", "-1.7976931348623157e+308"],
      ["4340000000000000", "9007199254740992"],
      ["c340000000000000", "-9007199254740992"],
      ["4430000000000000", "295147905179352830000"],
      ["44b52d02c7e14af5", "9.999999999999997e+22"],
      ["44b52d02c7e14af6", "1e+23"],
      ["44b52d02c7e14af7", "1.0000000000000001e+23"],
      ["444b1ae4d6e2ef4e", "999999999999999700000"],
      ["444b1ae4d6e2ef4f", "999999999999999900000"],
      ["444b1ae4d6e2ef50", "1e+21"],
      ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
      ["3eb0c6f7a0b5ed8d", "0.000001"],
      ["41b3de4355555553", "333333333.3333332"],
      ["41b3de4355555554", "333333333.33333325"],
      ["41b3de4355555555", "333333333.3333333"],
      ["41b3de4355555556", "333333333.3333334"],
      ["41b3de4355555557", "333333333.33333343"],
      ["becbf647612f3696", "-0.0000033333333333333333"],
      ["43143ff3c1cb0959", "1424953923781206.2"]
    ]
    for (const [bits, spelling] of cases) expect([bits, canonicalJson(fromBits(bits))]).toEqual([bits, spelling])
  })

  test("NaN and the infinities have no spelling", () => {
    for (const bits of ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"]) {
      expect(() => canonicalJson(fromBits(bits))).toThrow(TypeError)
    }
  })

  test("digest is the sha256 of the canonical text", () => {
    expect(sha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(digest({ b: 1, a: 2 })).toBe(sha256('{"a":2,"b":1}'))
  })
})

describe("eventId", () => {
  const base = { runId: "r1", causationId: sha256("cause"), type: "TrajectoryRecorded", ordinal: 0 } as const

  test("is deterministic and a sha256", () => {
    expect(eventId(base)).toBe(eventId({ ...base }))
    expect(eventId({ ordinal: 0, type: "TrajectoryRecorded", causationId: sha256("cause"), runId: "r1" })).toBe(eventId(base))
    expect(eventId(base)).toMatch(/^[0-9a-f]{64}$/)
  })

  test("any differing input gives a different id", () => {
    const variants = [
      base,
      { ...base, runId: "r2" },
      { ...base, runId: null },
      { ...base, runId: "null" },
      { ...base, causationId: null },
      { ...base, causationId: sha256("other") },
      { ...base, type: "TrajectoryVerified" },
      { ...base, ordinal: 1 },
      // Swapping fields must not collide either: the inputs are positional, not concatenated.
      { ...base, runId: base.causationId, causationId: base.runId }
    ]
    const ids = variants.map(eventId)
    expect(new Set(ids).size).toBe(variants.length)
  })
})
