/**
 * Shared specification of a suite's scripted solutions: every train instance, every path
 * family, run through the real web environment and checked by its ground-truth checker; each
 * instance's primary run is written as its expert demo, which is then loaded back and
 * replayed action by action on a fresh episode and checked again.
 * Every family must pass: none may report n/a (not applicable) on a train instance.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runSolutions } from "../solutions/mod.ts"
import type { SolutionResult } from "../solutions/mod.ts"
import type { Suite } from "../suites/Suite.ts"

export interface SolutionsSpec {
  readonly suite: Suite
  readonly scripts: Readonly<Record<string, Readonly<Record<string, unknown>>>>
}

/** Declares the tests; returns accessors for the results and the demo folder, for extra tests. */
export const describeSolutions = (spec: SolutionsSpec) => {
  const name = spec.suite.suite
  const trainTemplates = spec.suite.templates.filter((t) => t.split === "train")
  const tmp = mkdtempSync(join(tmpdir(), `core-solutions-${name}-`))
  const out = join(tmp, "demos")
  let results: ReadonlyArray<SolutionResult> = []
  beforeAll(async () => {
    results = await Effect.runPromise(runSolutions({ suite: name, out }))
  }, 1_200_000)
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))

  describe(`${name} scripted solutions in the real environment`, () => {
    test("every template and every path family has a script", () => {
      for (const t of spec.suite.templates)
        expect([t.id, Object.keys(spec.scripts[t.id] ?? {}).sort()]).toEqual([t.id, t.pathFamilies.map((f) => f.id).sort()])
    })
    for (const template of trainTemplates) {
      test(`${template.id}: every path family passes its checker`, () => {
        const instances = spec.suite.tasks.filter((t) => t.templateId === template.id && t.split === "train").map((t) => t.id)
        expect(instances.length).toBeGreaterThan(0)
        for (const instance of instances) {
          const mine = results.filter((r) => r.instance === instance)
          expect([instance, mine.map((r) => r.family)]).toEqual([instance, template.pathFamilies.map((f) => f.id)])
          for (const r of mine) {
            expect(`${instance} ${r.family}: ${r.outcome} ${r.reason}`).toMatch(new RegExp(`^${instance} ${r.family}: pass `))
          }
          // The primary run is written as the expert demo, loaded back and replayed step for step to success.
          expect([mine[0]!.primary, mine[0]!.outcome, mine[0]!.demo !== null, mine[0]!.replayed]).toEqual([true, "pass", true, true])
        }
      })
    }
  })
  return { results: () => results, out, tmp, trainTemplates }
}
