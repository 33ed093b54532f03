/**
 * A select is recorded by its option's value, with the label a policy named it by: the
 * `label` decodes and old selects digest as before, and replay takes the label a decider
 * asks for again as the same select, but no other option and no other field.
 */
import { expect, test } from "bun:test"
import { Schema } from "effect"
import { Action, canonicalJson, digest, matchesResolvedSelect, resolvedSelect } from "../mod.ts"

const target = { role: "combobox", name: "Sort by", elementId: "e7", text: "Newest" }
const decode = Schema.decodeUnknownSync(Action)

test("a select named by its label is recorded by its option's value with the label kept; one named by value as it was", () => {
  const byLabel = { kind: "select" as const, target, value: "Top score" }
  expect(resolvedSelect(byLabel, "top")).toEqual({ kind: "select", target, value: "top", label: "Top score" })
  const byValue = { kind: "select" as const, target, value: "top" }
  expect(resolvedSelect(byValue, "top")).toBe(byValue)
  expect(decode(resolvedSelect(byLabel, "top"))).toEqual({ kind: "select", target, value: "top", label: "Top score" })
  expect(digest(decode(byValue))).toBe(digest(byValue))
  expect(canonicalJson(decode(byValue))).toBe(canonicalJson(byValue))
})

test.each([
  ["the same label on the same select", { kind: "select", target, value: "Top score" }, true],
  ["another option's label", { kind: "select", target, value: "Newest" }, false],
  ["the label on another select", { kind: "select", target: { ...target, elementId: "e8" }, value: "Top score" }, false],
  ["the value itself, with a label of its own", { kind: "select", target, value: "Top score", label: "Top score" }, false],
  ["a type of the label", { kind: "type", target, text: "Top score" }, false]
] as const)("replay, given the recorded resolved select and %s asked for, matches: %p", (_, requested, matches) => {
  const recorded = resolvedSelect({ kind: "select", target, value: "Top score" }, "top")
  expect(matchesResolvedSelect(recorded, requested as Action)).toBe(matches)
})

test("a select recorded as asked has nothing for replay to take another way", () => {
  const recorded = { kind: "select" as const, target, value: "top" }
  expect(matchesResolvedSelect(recorded, { kind: "select", target, value: "Top score" })).toBe(false)
})
