/**
 * Every shop train instance's scripted solutions, every path
 * family, through the real web environment (Chromium, sites server, temp blob store),
 * each checked by its ground-truth checker. The primary runs are written as demo folders:
 * they load with `loadDemo` and ingest with `bun core ingest` (embedded store, temp dir).
 */
import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { join } from "node:path"
import { loadDemo } from "@core/demos"
import { core } from "../../../tests/support/cli.ts"
import { DirectoryBlobStore } from "@core/blobstore"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import { episodeSource, startSites } from "../mod.ts"
import { replayDemo, shopSolutions } from "../solutions/mod.ts"
import { SHOP_SUITE_FILE } from "../suites/shop.ts"
import { loadSuite } from "../suites/Suite.ts"
import { describeSolutions } from "./solutionsHarness.ts"

const suite = await Effect.runPromise(loadSuite(SHOP_SUITE_FILE))
// Train products of the top-rated family's templates are in the Top rated list, so every family applies.
const { results, out, tmp } = describeSolutions({ suite, scripts: shopSolutions })

describe("shop scripted solutions: the written demos", () => {
  test("the written demos load with loadDemo and ingest with bun core ingest", async () => {
    const tasks = new Set(suite.tasks.map((t) => t.id))
    const demos = results().filter((r) => r.demo !== null)
    expect(demos.length).toBe(suite.tasks.filter((t) => t.split === "train").length)
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
    expect(JSON.parse(ingest.stdout)).toEqual({ ingested: demos.length, skipped: 0, rejected: [], failed: [] })
    const rows = (await core(["tasks", "list", "--json", "--suite", "shop", ...flags])).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(rows.find((r: { id: string }) => r.id === buy.instance)).toMatchObject({ demo: true, demoIds: [`${buy.instance}-script`] })
  }, 60_000)

  test("a demo that no longer matches the site does not replay, and the failure names the step", async () => {
    const buy = results().find((r) => r.template === "shop-buy" && r.demo !== null)!
    const task = suite.tasks.find((t) => t.id === buy.instance)!
    const demo = await Effect.runPromise(loadDemo(buy.demo!, { tasks: new Set([task.id]) }))
    const click = demo.steps.findIndex((s) => s.action.kind === "click")
    const renamed = demo.steps.map((s, i) =>
      i === click && s.action.kind === "click"
        ? { ...s, action: { ...s.action, target: { ...s.action.target!, name: "Some other product" } } }
        : s
    )
    const sites = startSites()
    const dir = mkdtempSync(join(tmp, "replay-"))
    try {
      const replay = (steps: typeof demo.steps) =>
        Effect.runPromise(
          Effect.scoped(
            Effect.gen(function* () {
              const env = yield* WebEnvironment.make({ screenshots: "none" })
              const { startUrl } = yield* Effect.promise(() => episodeSource(sites).open(task.site, task.siteSeed))
              return yield* replayDemo(env, { taskId: task.id, startUrl, siteSeed: task.siteSeed }, steps).pipe(Effect.flip)
            })
          ).pipe(Effect.provide(Layer.merge(BrowserPool.layer(), DirectoryBlobStore.layer({ dir }))))
        )
      const error = await replay(renamed)
      const original = demo.steps[click]!.action as { target: { name: string; elementId: string } }
      expect(error.message).toBe(
        `step ${click + 1} (click): recorded link "Some other product" as ${original.target.elementId}, found link "${original.target.name}" on ${demo.steps[click]!.urlBefore}`
      )
    } finally {
      await sites.stop()
    }
  }, 60_000)
})
