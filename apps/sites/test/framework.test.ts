import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createSitesServer, defineSite, EPISODE_TOKEN_HEADER, html, matchPath, rng, safePath, STATE_TOKEN_HEADER } from "../mod.ts"
import type { SitesServer } from "../mod.ts"
import { fetchState } from "../eval/mod.ts"
import { Browser, startEpisode, textOf, withServer } from "./client.ts"

describe("building blocks", () => {
  test("the PRNG is a pure function of seed and label", () => {
    const draw = (seed: number, label: string) => {
      const r = rng(seed, label)
      return Array.from({ length: 5 }, () => r.next())
    }
    expect(draw(7, "a")).toEqual(draw(7, "a"))
    expect(draw(7, "a")).not.toEqual(draw(8, "a"))
    expect(draw(7, "a")).not.toEqual(draw(7, "b"))
    const r = rng(3)
    for (let i = 0; i < 1000; i++) {
      const n = r.int(2, 4)
      expect(n >= 2 && n <= 4).toBe(true)
    }
  })

  test("html escapes interpolations but not nested html", () => {
    expect(html`<p>${"<b>&'\""}</p>${html`<i>ok</i>`}${false}${null}${[1, 2]}`.value).toBe("<p>&lt;b&gt;&amp;&#39;&quot;</p><i>ok</i>12")
  })

  test("paths: patterns and safe redirects", () => {
    expect(matchPath("/product/:id", "/product/a%20b")).toEqual({ id: "a b" })
    expect(matchPath("/product/:id", "/product/a/b")).toBeNull()
    expect(matchPath("/", "/")).toEqual({})
    expect(safePath("//evil.example/x", "/")).toBe("/")
    expect(safePath("https://evil.example", "/")).toBe("/")
    expect(safePath("/cart?m=1", "/")).toBe("/cart?m=1")
    // Each of these resolves above the site's prefix (or to another host) in a browser.
    for (const escape of [
      "/%2e%2e/%2e%2e/x",
      "/a/../../x",
      "/%2E./x",
      "/.%2e",
      "/a%2f..%2f..",
      "/%5c..",
      "/\\evil.example",
      "/\t/evil.example",
      "/%zz"
    ]) {
      expect(safePath(escape, "/")).toBe("/")
    }
    expect(safePath("/search?q=../x", "/")).toBe("/search?q=../x")
  })
})

describe("episodes and the state API", () => {
  const env = withServer()
  beforeAll(env.start)
  afterAll(env.stop)
  const post = (body: unknown) =>
    fetch(`${env.server().origin}/__core/episodes`, {
      method: "POST",
      headers: { "content-type": "application/json", [EPISODE_TOKEN_HEADER]: env.server().episodeToken },
      body: JSON.stringify(body)
    })

  test("bad episode requests get a clear 400", async () => {
    for (const body of [
      { site: "nope", seed: 1 },
      { site: "shop", seed: -1 },
      { site: "shop", seed: 1.5 },
      { site: "shop" },
      { site: "shop", seed: 1, path: "//x" },
      { site: "shop", seed: 1, path: "/%2e%2e/x" }
    ]) {
      const res = await post(body)
      expect(res.status).toBe(400)
      expect(((await res.json()) as { error: string }).error.length).toBeGreaterThan(0)
    }
  })

  test("a site request without an episode is a 400 page that says how to start one", async () => {
    const page = await new Browser(env.server().origin).get("/shop/")
    expect(page.status).toBe(400)
    expect(textOf(page)).toContain("No episode")
    expect(textOf(page)).toContain("bun core sites serve")
    const stale = await fetch(`${env.server().origin}/shop/cart`, { headers: { cookie: "core_tenant=tnope" } })
    expect(stale.status).toBe(400)
    expect(await stale.text()).toContain("does not exist or has ended")
  })

  test("startUrl sets an HttpOnly cookie and lands on the site's home or the given path", async () => {
    const res = await post({ site: "shop", seed: 5, path: "/cart" })
    expect(res.status).toBe(201)
    const body = (await res.json()) as { tenant: string; startUrl: string }
    const enter = await fetch(body.startUrl, { redirect: "manual" })
    expect(enter.status).toBe(303)
    expect(enter.headers.get("location")).toBe("/shop/cart")
    expect(enter.headers.get("set-cookie")).toContain(`core_tenant=${body.tenant}`)
    expect(enter.headers.get("set-cookie")).toContain("HttpOnly")
    const { first } = await startEpisode(env.server(), "shop", 5)
    expect(first.path).toBe("/shop/")
    expect(first.status).toBe(200)
  })

  test("the state API needs the token, and delete and reset work", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "shop", 9)
    expect((await fetch(`${s.origin}/__core/state/${tenant}`)).status).toBe(403)
    expect((await fetch(`${s.origin}/__core/state/${tenant}`, { headers: { [STATE_TOKEN_HEADER]: "wrong" } })).status).toBe(403)
    const snap = await fetchState<{ cart: Array<unknown> }>(s, tenant)
    expect(snap).toMatchObject({ tenant, site: "shop", seed: 9 })
    expect(snap.base).toBeUndefined()
    await browser.post("/shop/cart/add", {
      productId: (await fetchState<unknown, { products: Array<{ id: string }> }>(s, tenant, { base: true })).base!.products[0]!.id
    })
    expect((await fetchState<{ cart: Array<unknown> }>(s, tenant)).state.cart).toHaveLength(1)
    const harness = { [EPISODE_TOKEN_HEADER]: s.episodeToken }
    expect((await fetch(`${s.origin}/__core/episodes/${tenant}/reset`, { method: "POST", headers: harness })).status).toBe(200)
    expect((await fetchState<{ cart: Array<unknown> }>(s, tenant)).state.cart).toHaveLength(0)
    expect((await browser.get("/shop/cart")).status).toBe(200)
    expect((await fetch(`${s.origin}/__core/episodes/${tenant}`, { method: "DELETE", headers: harness })).status).toBe(204)
    expect((await fetch(`${s.origin}/__core/episodes/${tenant}`, { method: "DELETE", headers: harness })).status).toBe(404)
    expect((await browser.get("/shop/cart")).status).toBe(400)
    expect((await fetch(`${s.origin}/__core/state/${tenant}`, { headers: { [STATE_TOKEN_HEADER]: s.stateToken } })).status).toBe(404)
  })

  test("episode creation time (printed, not asserted)", async () => {
    const s = env.server()
    const time = async (seed: number): Promise<number> => {
      const t0 = performance.now()
      const res = await post({ site: "shop", seed })
      await res.json()
      return performance.now() - t0
    }
    const cold = await time(424242)
    const warm: Array<number> = []
    for (let i = 0; i < 50; i++) warm.push(await time(424242))
    const inProcess: Array<number> = []
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now()
      s.episodes.create("shop", 424242)
      inProcess.push(performance.now() - t0)
    }
    const mean = (xs: Array<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
    console.log(
      `episode creation: cold seed ${cold.toFixed(2)} ms over HTTP; cached seed ${mean(warm).toFixed(2)} ms mean / ${Math.max(...warm).toFixed(2)} ms max over HTTP; ` +
        `${(mean(inProcess) * 1000).toFixed(1)} µs mean in process`
    )
  })
})

describe("adding a site", () => {
  interface Base {
    readonly greeting: string
  }
  interface State {
    count: number
  }
  const counter = defineSite<Base, State>({
    name: "counter",
    title: "Counter",
    base: (seed) => ({ greeting: `Hello #${rng(seed).int(1, 100)}` }),
    initial: () => ({ count: 0 }),
    routes: [
      {
        method: "GET",
        path: "/",
        handler: (c) =>
          html`<main><h1>${c.base.greeting}</h1><p>Count ${c.state.count}</p><form method="post" action="${c.href("/inc")}"><button>Add one</button></form></main>`
      },
      { method: "POST", path: "/inc", handler: (c) => ((c.state.count += 1), c.redirect("/")) },
      {
        method: "POST",
        path: "/break",
        handler: (c) => {
          ;(c.base as { greeting: string }).greeting = "mutated"
          return c.redirect("/")
        }
      }
    ],
    notFound: () => html`<h1>Nothing here</h1>`
  })
  let s: SitesServer
  beforeAll(() => {
    s = createSitesServer({ sites: [counter], port: 0, onError: () => {} })
  })
  afterAll(() => s.stop())

  test("one defineSite gives routing, episodes, isolation and a frozen shared base", async () => {
    const a = await startEpisode(s, "counter", 1)
    const b = await startEpisode(s, "counter", 1)
    expect(textOf(await a.browser.post("/counter/inc", {}))).toContain("Count 1")
    expect(textOf(await a.browser.post("/counter/inc", {}))).toContain("Count 2")
    expect(textOf(await b.browser.get("/counter/"))).toContain("Count 0")
    expect((await b.browser.get("/counter/nowhere")).status).toBe(404)
    expect((await b.browser.get("/counter/inc")).status).toBe(405)
    const original = Bun.deepEquals(counter.base(1), (await fetchState<State, Base>(s, a.tenant, { base: true })).base)
    expect(original).toBe(true)
    // A handler that writes to the shared base fails loudly instead of leaking into other episodes.
    expect((await a.browser.post("/counter/break", {})).status).toBe(500)
    expect((await fetchState<State, Base>(s, b.tenant, { base: true })).base!.greeting).toBe(counter.base(1).greeting)
    expect((await startEpisode(s, "counter", 1)).first.text).not.toContain("mutated")
  })
})
