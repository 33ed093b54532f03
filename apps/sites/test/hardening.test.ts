/**
 * What a page in the agent's browser (or any local process without the episode token) can
 * and cannot do to the sites server: start, reset or end episodes, fill it up, reach it under
 * another host name, or be sent outside the site from an enter URL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { EPISODE_TOKEN_HEADER, shop, startSites } from "../mod.ts"
import type { SitesServer } from "../mod.ts"
import { Episodes } from "../framework/episodes.ts"
import { Browser, startEpisode, withServer } from "./client.ts"

const env = withServer()
beforeAll(env.start)
afterAll(env.stop)

const createEpisode = (s: SitesServer, headers: Record<string, string>, body: string) =>
  fetch(`${s.origin}/__core/episodes`, { method: "POST", headers, body, redirect: "manual" })
const asHarness = (s: SitesServer) => ({ "content-type": "application/json", [EPISODE_TOKEN_HEADER]: s.episodeToken })

describe("episode routes need the episode token", () => {
  test("a tokenless or wrong-token JSON post, a form post and a cross-origin form post are refused", async () => {
    const s = env.server()
    const json = JSON.stringify({ site: "shop", seed: 1 })
    const refused = [
      await createEpisode(s, { "content-type": "application/json" }, json),
      await createEpisode(s, { "content-type": "application/json", [EPISODE_TOKEN_HEADER]: "guess" }, json),
      await createEpisode(s, { "content-type": "application/x-www-form-urlencoded" }, "site=shop&seed=1"),
      await createEpisode(
        s,
        { "content-type": "application/x-www-form-urlencoded", origin: "http://evil.example", "sec-fetch-site": "cross-site" },
        "site=shop&seed=1"
      )
    ]
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403])
    expect(refused.every((r) => r.headers.get("set-cookie") === null && r.headers.get("location") === null)).toBe(true)
    expect((await createEpisode(s, asHarness(s), json)).status).toBe(201)
  })

  test("reset and end need it too; the episode survives a tokenless attempt", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "shop", 2)
    expect((await fetch(`${s.origin}/__core/episodes/${tenant}/reset`, { method: "POST" })).status).toBe(403)
    expect((await fetch(`${s.origin}/__core/episodes/${tenant}`, { method: "DELETE" })).status).toBe(403)
    expect((await browser.get("/shop/")).status).toBe(200)
    expect((await fetch(`${s.origin}/__core/episodes/${tenant}`, { method: "DELETE", headers: asHarness(s) })).status).toBe(204)
  })

  test("no page, header or body a browser can get contains the token, and the start page has no form", async () => {
    const s = env.server()
    const { tenant, browser, first } = await startEpisode(s, "shop", 3)
    const index = await new Browser(s.origin).get("/")
    expect(index.text).not.toContain("<form")
    const seen: Array<string> = [
      index.text,
      first.text,
      (await browser.get("/shop/cart")).text,
      (await new Browser(s.origin).get("/shop/")).text
    ]
    for (const path of [
      "/",
      "/__core/health",
      "/__core/sites",
      `/__core/enter/${tenant}`,
      "/__core/enter/tnope",
      "/__core/nowhere",
      "/nowhere"
    ]) {
      const res = await fetch(`${s.origin}${path}`, { redirect: "manual" })
      seen.push(`${[...res.headers].join("\n")}\n${await res.text()}`)
    }
    const refused = await createEpisode(s, { "content-type": "application/json" }, "{}")
    seen.push(`${[...refused.headers].join("\n")}\n${await refused.text()}`)
    expect(s.episodeToken.length).toBeGreaterThanOrEqual(32)
    expect(seen.filter((text) => text.includes(s.episodeToken))).toEqual([])
  })
})

describe("live episodes are bounded", () => {
  test("a full server drops the least recently used episode, not the one in use", async () => {
    const s = startSites({ maxEpisodes: 2 })
    try {
      const used = await startEpisode(s, "shop", 1)
      const left = await startEpisode(s, "shop", 1)
      expect((await used.browser.get("/shop/cart")).status).toBe(200)
      for (let i = 0; i < 5; i++) {
        expect((await createEpisode(s, asHarness(s), JSON.stringify({ site: "shop", seed: 1 }))).status).toBe(201)
        expect((await used.browser.get("/shop/")).status).toBe(200)
      }
      expect(s.episodes.size).toBe(2)
      expect((await left.browser.get("/shop/")).text).toContain("does not exist or has ended")
    } finally {
      await s.stop()
    }
  })

  test("idle episodes are dropped, so a full server has room again", async () => {
    const s = startSites({ maxEpisodes: 2, idleMs: 20 })
    try {
      const old = await startEpisode(s, "shop", 1)
      await startEpisode(s, "shop", 1)
      await Bun.sleep(60)
      expect((await createEpisode(s, asHarness(s), JSON.stringify({ site: "shop", seed: 1 }))).status).toBe(201)
      expect(s.episodes.size).toBe(1)
      const gone = await old.browser.get("/shop/")
      expect([gone.status, gone.text.includes("does not exist or has ended")]).toEqual([400, true])
    } finally {
      await s.stop()
    }
  })

  test("idleness counts from the last request; pinned episodes neither expire nor make room", () => {
    let clock = 0
    const episodes = new Episodes(new Map([["shop", shop]]), { maxEpisodes: 3, idleMs: 100, now: () => clock })
    const pinned = episodes.create("shop", 1, { pinned: true })
    const a = episodes.create("shop", 1)
    const b = episodes.create("shop", 1)
    clock = 60
    episodes.get(a.tenant)
    clock = 130
    const c = episodes.create("shop", 1)
    expect([pinned, a, b, c].map((e) => episodes.get(e.tenant) !== undefined)).toEqual([true, true, false, true])
    clock = 1000
    expect(episodes.get(a.tenant)).toBeUndefined()
    expect(episodes.get(pinned.tenant)?.tenant).toBe(pinned.tenant)
    const full = new Episodes(new Map([["shop", shop]]), { maxEpisodes: 1, idleMs: 100 })
    full.create("shop", 1, { pinned: true })
    expect(() => full.create("shop", 1)).toThrow("all 1 live episodes are pinned")
  })
})

describe("requests stay on this server and inside the site", () => {
  test("a Host header other than the loopback address is refused", async () => {
    const s = env.server()
    for (const host of ["evil.example", `evil.example:${s.port}`, `127.0.0.1:${s.port + 1}`, "127.0.0.1"]) {
      const res = await fetch(`${s.origin}/`, { headers: { host } })
      expect([host, res.status]).toEqual([host, 421])
    }
    for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `LOCALHOST:${s.port}`]) {
      expect((await fetch(`${s.origin}/`, { headers: { host } })).status).toBe(200)
    }
  })

  test("an enter URL whose path leaves the site is refused", async () => {
    const s = env.server()
    const res = await createEpisode(s, asHarness(s), JSON.stringify({ site: "shop", seed: 1 }))
    const { startUrl } = (await res.json()) as { startUrl: string }
    for (const path of ["/%2e%2e/%2e%2e/x", "/a/../../x", "%2F..%2F__core%2Fhealth", "/%5c..", "//evil.example/", "/\t/evil.example"]) {
      const enter = await fetch(`${startUrl}?path=${encodeURIComponent(path)}`, { redirect: "manual" })
      expect([path, enter.status, enter.headers.get("location")]).toEqual([path, 400, null])
    }
    const inside = await fetch(`${startUrl}?path=${encodeURIComponent("/cart?m=1")}`, { redirect: "manual" })
    expect(inside.headers.get("location")).toBe("/shop/cart?m=1")
  })
})
