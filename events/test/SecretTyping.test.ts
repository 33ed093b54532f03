/**
 * A password typed is recorded by reference or masked, never in clear: the `type` action's
 * optional `secretEnv` decodes, old actions decode and digest as before, and a sealed record
 * stands for the clear action a replayed decider asks for.
 */
import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { Action, canonicalJson, digest, hideSecrets, matchesSealed, sealTyped } from "../mod.ts"

const target = { role: "textbox", name: "Password", elementId: "e4", text: null }
const decode = Schema.decodeUnknownSync(Action)

describe("typing a secret", () => {
  test("a type by reference decodes; a name that is not a variable's is refused; old actions digest as before", () => {
    expect(decode({ kind: "type", target, text: "", secretEnv: "SHOP_PASSWORD" })).toEqual({
      kind: "type",
      target,
      text: "",
      secretEnv: "SHOP_PASSWORD"
    })
    expect(() => decode({ kind: "type", target, text: "", secretEnv: "1; rm -rf" })).toThrow()
    const old = { kind: "type", target, text: "red kettle", submit: true }
    expect(canonicalJson(decode(old))).toBe(canonicalJson(old))
    expect(digest(decode(old))).toBe(digest(old))
  })

  test("a password a known secret holds is recorded as its variable; any other is masked", () => {
    const typed = { kind: "type" as const, target, text: "hunter2", submit: true }
    expect(sealTyped(typed, [["SHOP_PASSWORD", "hunter2"]])).toEqual({
      kind: "type",
      target,
      text: "",
      submit: true,
      secretEnv: "SHOP_PASSWORD"
    })
    expect(sealTyped(typed, [["SHOP_PASSWORD", "other"]])).toEqual({ kind: "type", target, text: "•••••••", submit: true })
    expect(JSON.stringify(sealTyped(typed, []))).not.toContain("hunter2")
  })

  test("a secret's value is masked wherever it occurs, one containing another whole, a mask of the caller's own if given", () => {
    expect(hideSecrets("user alice, key alice-key-1, alice again", ["alice", "alice-key-1"])).toBe(
      "user •••••, key •••••••••••, ••••• again"
    )
    expect(hideSecrets("no secret here", ["", "hunter2"])).toBe("no secret here")
    expect(hideSecrets("token abcd", ["abcd"], () => "***")).toBe("token ***")
  })

  test("replay takes the clear action for its sealed record, on the same field with the same Enter only", () => {
    const recorded = sealTyped({ kind: "type", target, text: "hunter2" }, [["SHOP_PASSWORD", "hunter2"]])
    expect(matchesSealed(recorded, { kind: "type", target, text: "hunter2" })).toBe(true)
    expect(matchesSealed(recorded, { kind: "type", target, text: "hunter2", submit: true })).toBe(false)
    expect(matchesSealed(recorded, { kind: "type", target: { ...target, elementId: "e5" }, text: "hunter2" })).toBe(false)
    expect(matchesSealed({ kind: "type", target, text: "hunter2" }, { kind: "type", target, text: "other" })).toBe(false)
  })
})
