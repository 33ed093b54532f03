/**
 * The report's pure parts: which tasks it trains and evaluates on by default, and the
 * interval it prints for an arm.
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { loadSuites } from "@core/sites/suites"
import { otherRouteTasks, reportTasks } from "../ReportArms.ts"
import { perTaskMean, summarise } from "../ReportStats.ts"

const shop = (await Effect.runPromise(loadSuites())).flatMap((s) => s.tasks).filter((t) => t.site === "shop")

test("by default, the first instance of each template: 9 shop train templates, 11 held-out ones", () => {
  const train = reportTasks(shop, "train", null)
  const heldOut = reportTasks(shop, "held-out", null)
  if (typeof train === "string" || typeof heldOut === "string") throw new Error("expected tasks")
  expect(train.map((t) => t.id)).toContain("shop-buy-1")
  expect(train.some((t) => t.id === "shop-buy-2")).toBe(false)
  expect(new Set(train.map((t) => t.templateId)).size).toBe(train.length)
  expect(train.length).toBe(9)
  // held-out templates give their first instance; train templates their held-out one
  expect(heldOut.map((t) => t.id)).toEqual(expect.arrayContaining(["shop-change-name-1", "shop-review-count-1", "shop-buy-3"]))
  expect(heldOut.some((t) => t.id === "shop-change-name-2")).toBe(false)
  expect(heldOut.length).toBe(11)
  expect(heldOut.every((t) => t.split === "held-out")).toBe(true)
})

test("named tasks are taken as named, and a name from the other split is refused by name", () => {
  const named = reportTasks(shop, "held-out", ["shop-review-count-2", "shop-price-of-3"])
  expect(typeof named === "string" ? named : named.map((t) => t.id).sort()).toEqual(["shop-price-of-3", "shop-review-count-2"])
  expect(reportTasks(shop, "train", ["shop-buy-1", "shop-buy-3", "nope"])).toBe("shop-buy-3, nope")
})

test("an arm's mean is over seeds; its interval is a bootstrap over tasks averaged over seeds", () => {
  const perSeed = [
    { a: 1, b: 0, c: 1, d: 1 },
    { a: 1, b: 0, c: 0, d: 1 }
  ]
  const s = summarise(perSeed)
  expect(s.mean).toBe(0.625)
  expect(s.ci_low).toBeLessThan(s.mean)
  expect(s.ci_high).toBeGreaterThan(s.mean)
  expect(s.ci_high).toBeLessThanOrEqual(1)
  // all tasks alike: no spread at all
  expect(
    summarise([
      { a: 1, b: 1 },
      { a: 1, b: 1 }
    ])
  ).toEqual({ mean: 1, ci_low: 1, ci_high: 1 })
  // the same input gives the same interval (a fixed resampling seed)
  expect(summarise(perSeed)).toEqual(s)
  expect(perTaskMean(perSeed)).toEqual({ a: 1, b: 0, c: 0.5, d: 1 })
})

test("the other-routes split: every held-out instance with another start or route, and none of them in the default split", () => {
  const other = otherRouteTasks(shop)
  expect(other.length).toBeGreaterThanOrEqual(30)
  expect(other.every((t) => t.split === "held-out" && (t.variant === "other-start" || t.variant === "route-off"))).toBe(true)
  expect(other.map((t) => t.id)).toEqual(expect.arrayContaining(["shop-buy-from-category", "shop-price-of-no-search"]))
  const heldOut = reportTasks(shop, "held-out", null)
  if (typeof heldOut === "string") throw new Error("expected tasks")
  expect(heldOut.some((t) => t.variant !== undefined)).toBe(false)
})
