/**
 * The held-out instances whose start or route is not the demos' (suites/Generator.ts,
 * `variantsOf`): the rule that makes them, the episode option that switches a site's search
 * off, and — in real Chromium — a search-off episode solved by browsing and passed by its
 * checker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { runTaskOf, startPathOf } from "../app/mod.ts"
import { splitEpisodeOptions, withEpisodeOptions } from "../framework/site.ts"
import { episodeSource } from "../framework/episodeSource.ts"
import { EPISODE_TOKEN_HEADER } from "../framework/server.ts"
import { scriptsOf, solutionsRuntime, verdictOf } from "../solutions/mod.ts"
import { runScript } from "../solutions/Runner.ts"
import { demoSearches } from "../suites/Generator.ts"
import { FORUM_SUITE_FILE, forumSuiteJson } from "../suites/forum.ts"
import { SHOP_SUITE_FILE, shopSuiteJson } from "../suites/shop.ts"
import { loadSuite, parseSuite } from "../suites/Suite.ts"
import type { Suite } from "../suites/Suite.ts"
import { startEpisode, withServer } from "./client.ts"

const shop = await Effect.runPromise(loadSuite(SHOP_SUITE_FILE))
const forum = await Effect.runPromise(loadSuite(FORUM_SUITE_FILE))
const variantsOf = (s: Suite) => s.tasks.filter((t) => t.variant !== undefined)

describe("the rule: every train template's held-out instance, from each other start page, and with search off where the demo searches", () => {
  const cases = [
    { suite: shop, file: SHOP_SUITE_FILE, json: shopSuiteJson, starts: ["category", "product", "search"], routeOff: 6 },
    { suite: forum, file: FORUM_SUITE_FILE, json: forumSuiteJson, starts: ["board", "post", "search"], routeOff: 4 }
  ] as const
  for (const { suite, file, json, starts, routeOff } of cases) {
    const variants = variantsOf(suite)
    const train = suite.templates.filter((t) => t.split === "train")

    test(`${suite.suite}: at least 30, each template × start page once, route-off only where the demo searches`, () => {
      expect(variants.length).toBe(train.length * starts.length + routeOff)
      expect(variants.length).toBeGreaterThanOrEqual(30)
      for (const t of train) {
        const mine = variants.filter((v) => v.templateId === t.id)
        const expected = [...starts.map((k) => `${t.id}-from-${k}`), ...(demoSearches(t.pathFamilies) ? [`${t.id}-no-search`] : [])]
        expect(mine.map((v) => v.id)).toEqual(expected)
      }
      // a held-out template has no demo whose route could differ
      expect(variants.every((v) => train.some((t) => t.id === v.templateId))).toBe(true)
    })

    test(`${suite.suite}: ids are unique and the file is the generator's output (deterministic)`, () => {
      expect(new Set(suite.tasks.map((t) => t.id)).size).toBe(suite.tasks.length)
      expect(readFileSync(file, "utf8")).toBe(json())
    })

    test(`${suite.suite}: each is held out, tagged, and is its template's held-out instance but for the start`, () => {
      for (const v of variants) {
        const heldOut = suite.tasks.find((t) => t.templateId === v.templateId && t.split === "held-out" && t.variant === undefined)!
        expect([v.id, v.split]).toEqual([v.id, "held-out"])
        expect({ parameters: v.parameters, siteSeed: v.siteSeed, instruction: v.instruction }).toEqual({
          parameters: heldOut.parameters,
          siteSeed: heldOut.siteSeed,
          instruction: heldOut.instruction
        })
        if (v.variant === "other-start") {
          expect(v.start?.path).not.toBe("/")
          expect(v.start?.options).toBeUndefined()
        } else {
          expect([v.variant, v.start]).toEqual(["route-off", { path: "/", options: { search: "off" } }])
        }
      }
    })
  }

  test("the start pages name nothing the task names (another category, product, board or post)", () => {
    for (const v of [...variantsOf(shop), ...variantsOf(forum)]) {
      const path = decodeURIComponent(v.start!.path).toLowerCase()
      for (const value of Object.values(v.parameters)) if (String(value).length > 3) expect(path).not.toContain(String(value).toLowerCase())
    }
  })

  test("the loader refuses a variant that is not held out, and a start outside the site", async () => {
    const text = readFileSync(SHOP_SUITE_FILE, "utf8")
    const mutate = async (f: (s: any) => void) => {
      const s = JSON.parse(text)
      f(s)
      return (await Effect.runPromise(Effect.flip(parseSuite(JSON.stringify(s), "shop.json")))).message
    }
    expect(await mutate((s) => (s.templates[0].instances[3].split = "train"))).toBe(
      "shop.json: templates[0].instances[3].split: instance 'shop-open-category-from-category' has variant 'other-start', so it must be held out"
    )
    expect(await mutate((s) => (s.templates[0].instances[3].start.path = "//evil.example/"))).toStartWith(
      "shop.json: templates[0].instances[3].start.path: '//evil.example/' is not a path inside the site"
    )
  })

  test("a run task starts on its page, options in its start path; the others as they always did", () => {
    const noSearch = shop.tasks.find((t) => t.id === "shop-price-of-no-search")!
    expect(runTaskOf(noSearch).start).toEqual({ site: "shop", siteSeed: 103, startPath: "/?__search=off" })
    expect(runTaskOf(noSearch).registration.startUrl).toBe("/shop/?__search=off")
    const plain = shop.tasks.find((t) => t.id === "shop-price-of-3")!
    expect(runTaskOf(plain).start).toEqual({ site: "shop", siteSeed: 103 })
    expect(runTaskOf(plain).registration.startUrl).toBe("/shop/")
  })
})

describe("episode options travel in the start path", () => {
  const cases: ReadonlyArray<readonly [string, Readonly<Record<string, string>>, string]> = [
    ["/", {}, "/"],
    ["/", { search: "off" }, "/?__search=off"],
    ["/search?q=Granite%20Deluxe", { search: "off" }, "/search?q=Granite%20Deluxe&__search=off"],
    ["/b/x#top", { b: "2", a: "1" }, "/b/x?__a=1&__b=2#top"]
  ]
  for (const [path, options, joined] of cases) {
    test(`${path} with ${JSON.stringify(options)}`, () => {
      expect(withEpisodeOptions(path, options)).toBe(joined)
      const split = splitEpisodeOptions(joined)
      expect(split.options).toEqual(options)
      // the rest of the query survives (re-encoded as a form would)
      expect(decodeURIComponent(split.path.replaceAll("+", " "))).toBe(decodeURIComponent(path))
    })
  }
})

describe("the search switch, over HTTP", () => {
  const env = withServer()
  beforeAll(env.start)
  afterAll(env.stop)

  test("every variant's episode opens on its page, without the options in the URL", async () => {
    for (const v of [...variantsOf(shop), ...variantsOf(forum)]) {
      const { first } = await startEpisode(env.server(), v.site, v.siteSeed, startPathOf(v))
      expect([v.id, first.status]).toEqual([v.id, 200])
      expect([v.id, first.path]).toEqual([v.id, `/${v.site}${v.start!.path}`])
    }
  })

  for (const site of ["shop", "forum"]) {
    test(`${site}: switched off, no search box and no search page; otherwise both`, async () => {
      const off = await startEpisode(env.server(), site, 1, "/?__search=off")
      expect(off.first.text).not.toContain('role="search"')
      expect((await off.browser.get(`/${site}/search?q=a`)).status).toBe(404)
      const on = await startEpisode(env.server(), site, 1, "/")
      expect(on.first.text).toContain('role="search"')
      expect((await on.browser.get(`/${site}/search?q=a`)).status).toBe(200)
    })
  }

  test("an option the site does not have is refused", async () => {
    const s = env.server()
    const open = (path: string) =>
      fetch(`${s.origin}/__core/episodes`, {
        method: "POST",
        headers: { "content-type": "application/json", [EPISODE_TOKEN_HEADER]: s.episodeToken },
        body: JSON.stringify({ site: "shop", seed: 1, path })
      })
    expect((await open("/?__teleport=on")).status).toBe(400)
    expect((await open("/?__search=maybe")).status).toBe(400)
    expect((await open("/?__search=on")).status).toBe(201)
  })
})

describe("in real Chromium", () => {
  test("search off: the page has no search box, and browsing to the price passes the checker", async () => {
    const task = shop.tasks.find((t) => t.id === "shop-price-of-no-search")!
    const verdict = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { sites, env } = yield* solutionsRuntime({ screenshots: "none" })
          const episode = yield* Effect.promise(() => episodeSource(sites).open(task.site, task.siteSeed, startPathOf(task)))
          const first = yield* env.reset({ taskId: task.id, startUrl: episode.startUrl })
          expect(first.elements.some((e) => e.role === "searchbox")).toBe(false)
          expect(first.elements.some((e) => e.role === "link" && e.name === "Kitchen")).toBe(true)
          const run = yield* runScript(env, task.id, episode.startUrl, task.siteSeed, scriptsOf(task)!.browse!())
          yield* env.close()
          return yield* verdictOf(sites, task, episode.episode, run)
        })
      )
    )
    expect(verdict).toMatchObject({ success: true })
  }, 120_000)
})
