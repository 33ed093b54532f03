/**
 * The report's paired statistic: CORE's last round minus another arm, task by task, with a
 * bootstrap interval that resamples tasks (both arms' values of a drawn task together).
 */
import { describe, expect, test } from "bun:test"
import { meanOver, pairedDifference, summarise } from "../ReportStats.ts"

const tasks = (n: number, value: (i: number) => number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, value(i)]))

describe("pairedDifference", () => {
  const cases: ReadonlyArray<
    readonly [
      string,
      ReadonlyArray<Record<string, number>>,
      ReadonlyArray<Record<string, number>>,
      (p: ReturnType<typeof pairedDifference>) => void
    ]
  > = [
    [
      "identical arms: no difference, no spread",
      [tasks(11, (i) => (i < 8 ? 1 : 0))],
      [tasks(11, (i) => (i < 8 ? 1 : 0))],
      (p) => expect(p).toEqual({ mean_diff: 0, ci_low: 0, ci_high: 0, tasks: 11 })
    ],
    [
      "one arm solves every task the other does and 10 of 30 more: the lower bound is above 0",
      [tasks(30, (i) => (i < 25 ? 1 : 0))],
      [tasks(30, (i) => (i < 15 ? 1 : 0))],
      (p) => {
        expect(p.mean_diff).toBe(0.333)
        expect(p.ci_low).toBeGreaterThan(0)
        expect(p.ci_high).toBeLessThanOrEqual(1)
      }
    ],
    [
      "gains on some tasks, losses on as many: the interval straddles 0",
      [tasks(20, (i) => (i % 2 === 0 ? 1 : 0))],
      [tasks(20, (i) => (i % 2 === 0 ? 0 : 1))],
      (p) => {
        expect(p.mean_diff).toBe(0)
        expect(p.ci_low).toBeLessThan(0)
        expect(p.ci_high).toBeGreaterThan(0)
      }
    ],
    [
      "seeds are averaged per task before the difference",
      [
        { a: 1, b: 1 },
        { a: 0, b: 1 }
      ],
      [
        { a: 0, b: 1 },
        { a: 0, b: 1 }
      ],
      (p) => expect([p.mean_diff, p.tasks]).toEqual([0.25, 2])
    ]
  ]
  for (const [name, a, b, check] of cases) test(name, () => check(pairedDifference(a, b)))

  test("pairing is what narrows it: the same rates unpaired would not exclude 0", () => {
    // Both arms vary a lot across tasks, but one is always the other plus one task in four.
    const b = [tasks(25, (i) => (i % 2 === 0 ? 1 : 0))]
    const a = [tasks(25, (i) => (i % 2 === 0 || i % 4 === 1 ? 1 : 0))]
    const paired = pairedDifference(a, b)
    expect(paired.ci_low).toBeGreaterThan(0)
    // the unpaired intervals overlap
    expect(summarise(a).ci_low).toBeLessThan(summarise(b).ci_high)
  })

  test("is deterministic: the resampling seed is fixed", () => {
    const a = [tasks(13, (i) => (i % 3 === 0 ? 0 : 1))]
    const b = [tasks(13, (i) => (i % 4 === 0 ? 0 : 1))]
    expect(pairedDifference(a, b)).toEqual(pairedDifference(a, b))
  })
})

test("meanOver: an arm's success over a subset of tasks, averaged over seeds", () => {
  const perSeed = [
    { a: 1, b: 0, c: 1 },
    { a: 0, b: 0, c: 1 }
  ]
  expect(meanOver(perSeed, ["a", "c"])).toBe(0.75)
  expect(meanOver(perSeed, [])).toBeNull()
})
