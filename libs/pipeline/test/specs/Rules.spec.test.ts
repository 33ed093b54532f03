/**
 * The behaviour versions' specs, driven from the registries (@core/domain AXES): for every
 * rule of every axis, resolution holds at the rule's version and not at the one before; and
 * a table, rule by rule, of a case that runs the real code (a domain function, a policy, or
 * a decider through Spec.ts) at both versions and shows the outcome the rule changes. A
 * rule added to a registry without an entry here fails (and does not typecheck); a rule
 * whose case is still to come says so, with the reason, and is listed by the last test.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { AXES, rulesAt } from "@core/domain"
import type { Axis } from "@core/domain"
import type { Entry, Table } from "./rules/Cases.ts"
import { dispose } from "./rules/Cases.ts"
import { data } from "./rules/Data.cases.ts"
import { exploration } from "./rules/Exploration.cases.ts"
import { lfGuide, retrieval, synthesis } from "./rules/Synthesis.cases.ts"
import { learner } from "./rules/Learner.cases.ts"

afterAll(dispose)

const TABLE: Table = { data, exploration, synthesis, retrieval, lfGuide, learner }

/** Every rule of every axis, with the version that brought it and the one before. */
const rules = Object.entries(AXES).flatMap(([axisName, a]: [string, Axis]) =>
  Object.entries(a.since).map(([rule, version]) => ({
    axis: axisName as keyof typeof AXES,
    a,
    rule,
    version,
    before: a.versions[a.versions.indexOf(version) - 1]!
  }))
)

describe("each rule resolves from its version on, and not before", () => {
  test.each(rules.map((r) => [`${r.axis}.${r.rule}`, r] as const))("%s", (_, r) => {
    expect(r.a.versions.indexOf(r.version)).toBeGreaterThan(0)
    expect((rulesAt(r.a, r.version) as Record<string, boolean>)[r.rule]).toBe(true)
    expect((rulesAt(r.a, r.before) as Record<string, boolean>)[r.rule]).toBe(false)
    expect((rulesAt(r.a, r.a.current) as Record<string, boolean>)[r.rule]).toBe(true)
    // A run that recorded no version reads as the first.
    expect((rulesAt(r.a, undefined) as Record<string, boolean>)[r.rule]).toBe(false)
  })
})

describe("each rule changes what the code does, as it says", () => {
  test("every rule of every registry has an entry, and every entry is a rule of its registry", () => {
    const missing = rules.filter((r) => !(r.rule in (TABLE[r.axis] as Record<string, Entry>))).map((r) => `${r.axis}.${r.rule}`)
    expect(missing).toEqual([])
    const known = new Set(rules.map((r) => `${r.axis}.${r.rule}`))
    const extra = Object.entries(TABLE).flatMap(([axis, entries]) => Object.keys(entries).map((rule) => `${axis}.${rule}`))
    expect(extra.filter((name) => !known.has(name))).toEqual([])
  })
  for (const r of rules) {
    const entry = (TABLE[r.axis] as Record<string, Entry>)[r.rule]
    if (entry === undefined || "pending" in entry) continue
    test(`${r.axis}.${r.rule}: version ${r.before} ${JSON.stringify(entry.before)}, version ${r.version} ${JSON.stringify(entry.after)}`, async () => {
      expect(entry.before).not.toEqual(entry.after)
      expect(await entry.run(r.before)).toEqual(entry.before)
      expect(await entry.run(r.version)).toEqual(entry.after)
    })
  }
  // A rule may wait for its case (`{ pending: reason }`) only while it is listed here, so a pending one is never silent.
  test("no rule is pending a behavioural case but those listed", () => {
    const pending = rules.flatMap((r) => {
      const entry = (TABLE[r.axis] as Record<string, Entry>)[r.rule]
      return entry !== undefined && "pending" in entry ? [`${r.axis}.${r.rule}`] : []
    })
    expect(pending).toEqual([])
  })
})
