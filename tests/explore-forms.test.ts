/**
 * Form-aware exploration (policy version 2) in real Chromium on the bundled travel site:
 * given a travel task's instruction, the explorer fills the home page's flight or hotel
 * search form with the instruction's values and submits it, landing on the results page.
 * The episode is driven as an explorer detour would be: the policy sees links, search boxes
 * and look-up forms only, each select with its options from the observation's aria snapshot.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { explorationRulesAt } from "@core/domain"
import { explorationAction, lookupFormIds, withSelectOptions } from "@core/policy"
import type { PolicyElement, PolicyHistoryStep } from "@core/policy"
import { BrowserPool, WebEnvironment } from "@core/env-web"
import type { Action } from "@core/events"
import { prng } from "@core/engine"
import { episodeSource, startSites } from "@core/sites"
import { loadSuites } from "@core/sites/suites"

const sites = startSites()
const dir = mkdtempSync(join(tmpdir(), "core-explore-forms-"))
// One browser for both episodes, as a worker shares it.
const runtime = ManagedRuntime.make(Layer.merge(BrowserPool.layer(), DirectoryBlobStore.layer({ dir })))
afterAll(async () => {
  await runtime.dispose()
  await sites.stop()
  rmSync(dir, { recursive: true, force: true })
})

let instructions: ReadonlyMap<string, string> = new Map()
beforeAll(async () => {
  const suites = await Effect.runPromise(loadSuites())
  instructions = new Map(suites.flatMap((s) => s.tasks).map((t) => [t.id, t.instruction]))
})

/** What the explorer may use on a detour: links and search boxes move; look-up forms move too. */
const MOVES = new Set(["link", "searchbox"])

const seed = (taskId: string): string => new Bun.CryptoHasher("sha256").update(`explore-forms-${taskId}`).digest("hex")

/** Explores the travel site from its home page until the policy clicks a button; the actions and where they led. */
const explore = (taskId: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const env = yield* WebEnvironment.make({ screenshots: "none", episodes: episodeSource(sites) })
      const instruction = instructions.get(taskId)!
      let current = yield* env.reset({ taskId, site: "travel", siteSeed: 301 })
      const rng = prng(seed(taskId))
      const history: Array<PolicyHistoryStep> = []
      for (let k = 0; k < 8; k++) {
        const forms = lookupFormIds(current.elements)
        const elements: ReadonlyArray<PolicyElement> = withSelectOptions(
          current.elements.filter((e) => MOVES.has(e.role) || forms.has(e.id)),
          current.aria
        )
        const action: Action = explorationAction(
          { instruction, url: current.observation.url, elements, history, stepBudget: 12 },
          rng,
          // Certain to take a fitting form: how often it does is the unit tests' business.
          { rules: explorationRulesAt("2"), stopBias: 0.2, formBias: 1 }
        )
        current = yield* env.step(action)
        history.push({ action, url: current.observation.url, error: current.observation.error })
        if (action.kind !== "select" && action.kind !== "type") break
      }
      return { history, title: current.observation.title, url: new URL(current.observation.url!) }
    })
  )

const filled = (history: ReadonlyArray<PolicyHistoryStep>) =>
  history.map(({ action: a, error }) => [
    a.kind,
    "target" in a && a.target !== null ? a.target.name : null,
    a.kind === "select" ? a.value : null,
    error
  ])

test("given a flight task, then the explorer selects From, To and the date from its instruction and lands on the flight results", async () => {
  expect(instructions.get("travel-cheapest-direct-1")).toContain("from Prague to Barcelona on 2029-07-25")
  const { history, title, url } = await runtime.runPromise(explore("travel-cheapest-direct-1"))
  expect(filled(history)).toEqual([
    ["select", "From", "Prague (PRG)", null],
    ["select", "To", "Barcelona (BCN)", null],
    // As the site's own demo selects it: by the value the select already shows in that shape.
    ["select", "Departure date", "2029-07-25", null],
    ["click", "Search flights", null, null]
  ])
  expect(title).toBe("Flights: Prague to Barcelona | CORE Travel")
  expect([url.pathname, url.searchParams.get("from"), url.searchParams.get("to"), url.searchParams.get("date")]).toEqual([
    "/travel/flights",
    "prague",
    "barcelona",
    "2029-07-25"
  ])
}, 30_000)

test("given a hotel task, then the explorer picks the hotel form, fills city, dates, nights and guests, and lands on the hotel results", async () => {
  const { history, title, url } = await runtime.runPromise(explore("travel-book-hotel-1"))
  expect(filled(history)).toEqual([
    ["select", "City", "Brussels (BRU)", null],
    ["select", "Check-in date", "2029-07-28", null],
    ["select", "Nights", "5", null],
    ["select", "Guests", "2", null],
    ["click", "Search hotels", null, null]
  ])
  expect(title).toBe("Hotels in Brussels | CORE Travel")
  expect(Object.fromEntries(url.searchParams)).toEqual({ city: "brussels", checkIn: "2029-07-28", nights: "5", guests: "2" })
}, 30_000)
