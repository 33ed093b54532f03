/**
 * `type`'s optional `mode` is additive: actions written before it decode, encode and digest
 * byte for byte as before (pinned digests below), an insert round-trips, and a sealed insert
 * replays only for an insert.
 */
import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { Action, canonicalJson, digest, matchesSealed, sealTyped } from "../mod.ts"

const target = { role: "textbox", name: "Body", elementId: "e4", text: null }
const decode = Schema.decodeUnknownSync(Action)
const encode = Schema.encodeSync(Action)

/** Actions as logs held them before `mode`, with their digests then (computed at the commit before it). */
const old: ReadonlyArray<readonly [string, unknown, string]> = [
  ["type", { kind: "type", target, text: "red kettle" }, "44a1d1a7c226f17aeae22bb5ccddac35cd95084a6d515beb3bb32ffd18ff91ed"],
  [
    "type + Enter",
    { kind: "type", target, text: "red kettle", submit: true },
    "fdeac219a98b9496b93b1cf036388463ecfb51c9613006a36fb0808a1f98bed1"
  ],
  [
    "type by reference",
    { kind: "type", target, text: "", secretEnv: "SHOP_PASSWORD" },
    "285135267473f44014f8b188224d4119f828ac0d1351ae453b24eb69163d1be0"
  ],
  ["key", { kind: "key", key: "Control+End" }, "e600f7b2e952e8455612e3b78ed04a42e305a6d2edabadde553b152cbb75d033"]
]

describe("type mode", () => {
  test.each(old)("an old %s action decodes, encodes and digests as before", (_, action, pinned) => {
    const decoded = decode(action)
    expect(decoded).toEqual(action as Action)
    expect(canonicalJson(encode(decoded))).toBe(canonicalJson(action))
    expect(digest(decoded)).toBe(pinned)
  })

  const modes: ReadonlyArray<readonly [string, unknown, boolean]> = [
    ["insert", { kind: "type", target, text: "\nnew line", mode: "insert" }, true],
    ["insert + Enter", { kind: "type", target, text: " kettle", submit: true, mode: "insert" }, true],
    ["explicit fill", { kind: "type", target, text: "all of it", mode: "fill" }, true],
    ["unknown mode", { kind: "type", target, text: "x", mode: "append" }, false]
  ]
  test.each(modes)("%s: decodes when valid, and round-trips", (_, action, ok) => {
    if (!ok) return void expect(() => decode(action)).toThrow()
    const decoded = decode(action)
    expect(encode(decoded)).toEqual(action as Action)
    expect(digest(decoded)).toBe(digest(action))
  })

  test("a sealed insert keeps its mode and replays only for an insert on the same field", () => {
    const typed = { kind: "type" as const, target, text: "hunter2", mode: "insert" as const }
    const sealed = sealTyped(typed, [["SHOP_PASSWORD", "hunter2"]])
    expect(sealed).toEqual({ kind: "type", target, text: "", mode: "insert", secretEnv: "SHOP_PASSWORD" })
    expect(matchesSealed(sealed, typed)).toBe(true)
    expect(matchesSealed(sealed, { kind: "type", target, text: "hunter2" })).toBe(false)
    expect(
      matchesSealed(sealTyped({ kind: "type", target, text: "hunter2" }, []), { kind: "type", target, text: "hunter2", mode: "fill" })
    ).toBe(true)
  })
})
