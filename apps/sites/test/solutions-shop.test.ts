/**
 * Every shop train template's scripted solutions, one train instance per template, all path
 * families, through the real web environment (Chromium, sites server, temp blob store),
 * each checked by its ground-truth checker. The primary runs are written as demo folders:
 * they load with `loadDemo` and ingest with `bun core ingest` (embedded store, temp dir).
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { join } from "node:path"
import { loadDemo } from "@core/demos"
import { core } from "../../../tests/support/cli.ts"
import { runSolutions, shopSolutions } from "../solutions/mod.ts"
import { SHOP_SUITE_FILE } from "../suites/shop.ts"
import { loadSuite } from "../suites/Suite.ts"
import { describeSolutions } from "./solutionsHarness.ts"
import type { SuiteTask } from "../suites/Suite.ts"

const suite = await Effect.runPromise(loadSuite(SHOP_SUITE_FILE))
// Top rated holds four products per seed; no train instance's product is among them (checked below on one that is).
const { results, out, tmp, trainTemplates } = describeSolutions({ suite, scripts: shopSolutions, mayNotApply: ["top-rated"] })

describe("shop scripted solutions: the top-rated family and the written demos", () => {
  test("the top-rated family passes on a product that is in the Top rated list", async () => {
    const topRated = (tasks: ReadonlyArray<SuiteTask>) =>
      tasks.filter((t) => t.id === "shop-wishlist-add-1" || t.id === "shop-open-product-1").map((t) => ({ ...t, parameters: { product: "Harbor Smart Toaster" } }))
    const r = await Effect.runPromise(runSolutions({ suite: "shop", instances: topRated }))
    expect(r.filter((x) => x.family === "top-rated").map((x) => [x.instance, x.outcome, x.reason])).toEqual([
      ["shop-open-product-1", "pass", "ended on Harbor Smart Toaster"],
      ["shop-wishlist-add-1", "pass", "Harbor Smart Toaster is in the wish list"]
    ])
  }, 60_000)

  test("the written demos load with loadDemo and ingest with bun core ingest", async () => {
    const tasks = new Set(suite.tasks.map((t) => t.id))
    const demos = results().filter((r) => r.demo !== null)
    expect(demos.length).toBe(trainTemplates.length)
    const buy = demos.find((r) => r.template === "shop-buy")!
    const loaded = await Effect.runPromise(loadDemo(buy.demo!, { tasks }))
    expect(loaded).toMatchObject({ demoId: `${buy.instance}-script`, taskId: buy.instance, recordedWith: "script" })
    expect(loaded.steps.length).toBe(buy.steps)
    expect(loaded.steps.at(-1)!.action).toEqual({ kind: "status", status: "complete" })
    expect(loaded.steps[0]!.action).toMatchObject({ kind: "type", target: { role: "searchbox", name: "Search products" } })
    expect(loaded.steps[0]!.observation.elements).toMatch(/^[0-9a-f]{64}$/)
    const flags = ["--store", "embedded", "--data-dir", join(tmp, "data")]
    const ingest = await core(["ingest", out, "--json", ...flags])
    expect(ingest.stderr).not.toContain("error:")
    expect(JSON.parse(ingest.stdout)).toEqual({ ingested: demos.length, skipped: 0, rejected: [] })
    const rows = (await core(["tasks", "list", "--json", "--suite", "shop", ...flags])).stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(rows.find((r: { id: string }) => r.id === buy.instance)).toMatchObject({ demo: true, demoIds: [`${buy.instance}-script`] })
  }, 60_000)
})
