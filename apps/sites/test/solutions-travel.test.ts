/**
 * Every travel train instance's scripted solutions, every path
 * family, through the real web environment (Chromium, sites server, temp blob store),
 * each checked by its ground-truth checker. The city-deal family belongs to a held-out
 * template whose instances' flights are not deals, so it is run here on one that is.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { runSolutions, travelSolutions } from "../solutions/mod.ts"
import { loadSuite } from "../suites/Suite.ts"
import { TRAVEL_SUITE_FILE } from "../suites/travel.ts"
import { travel } from "../travel/mod.ts"
import { dealsTo } from "../travel/pages/home.ts"
import { describeSolutions } from "./solutionsHarness.ts"

const suite = await Effect.runPromise(loadSuite(TRAVEL_SUITE_FILE))
// Every family applies to every train instance: routes, hotels and rooms come from the instance's own seed.
describeSolutions({ suite, scripts: travelSolutions })

describe("travel scripted solutions: the city-deal family", () => {
  test("opens a flight from its destination's deals when it is one, and is n/a when it is not", async () => {
    const task = suite.tasks.find((t) => t.id === "travel-open-flight-1")!
    const base = travel.base(task.siteSeed)
    const deal = dealsTo(base, base.cities[3]!.id)[0]!.flight.id
    const r = await Effect.runPromise(runSolutions({ suite: "travel", instances: () => [{ ...task, parameters: { flight: deal } }, task] }))
    expect(r.map((x) => [x.family, x.outcome, x.reason.replace(/ on \/.*/, "")])).toEqual([
      ["search-results", "pass", `ended on flight ${deal}`],
      ["city-deal", "pass", `ended on flight ${deal}`],
      ["search-results", "pass", `ended on flight ${task.parameters.flight}`],
      ["city-deal", "n/a", `step 2: no link named /^Details of flight ${task.parameters.flight}$/`]
    ])
  }, 60_000)
})
