import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { shop } from "../mod.ts"
import { PAGE_SIZE } from "../shop/model.ts"
import { startEpisode, textOf, withServer } from "./client.ts"

describe("shop: deterministic content", () => {
  test("same seed → identical catalog; different seed → different catalog", () => {
    const a = shop.base(1)
    expect(Bun.deepEquals(a, shop.base(1), true)).toBe(true)
    const b = shop.base(2)
    expect(a.products.map((p) => p.name)).not.toEqual(b.products.map((p) => p.name))
    expect(a.categories).toHaveLength(6)
    expect(a.products).toHaveLength(60)
    expect(new Set(a.products.map((p) => p.id)).size).toBe(60)
    for (const p of a.products) {
      expect(p.id).toMatch(/^[a-z0-9-]+$/)
      expect(Number.isInteger(p.price) && p.price > 0).toBe(true)
      for (const r of a.reviews[p.id]!) expect(r.rating >= 1 && r.rating <= 5).toBe(true)
    }
    expect(Object.values(a.reviews).flat().length).toBeGreaterThan(60)
  })

  const env = withServer()
  beforeAll(env.start)
  afterAll(env.stop)

  test("same seed → byte-identical pages in two episodes; different seed → different pages", async () => {
    const base = shop.base(11)
    const product = base.products[17]!
    const paths = [
      "/shop/",
      `/shop/category/${base.categories[2]!.id}?page=2`,
      `/shop/product/${product.id}`,
      "/shop/search?q=set&sort=price-asc",
      "/shop/cart",
      "/shop/account"
    ]
    const one = await startEpisode(env.server(), "shop", 11)
    const two = await startEpisode(env.server(), "shop", 11)
    const other = await startEpisode(env.server(), "shop", 12)
    for (const p of paths) {
      const [x, y, z] = await Promise.all([one.browser.get(p), two.browser.get(p), other.browser.get(p)])
      expect(x.status).toBe(200)
      expect(x.text).toBe(y.text)
      if (p !== "/shop/cart") expect(x.text).not.toBe(z.text)
    }
  })

  test("category browse pages through the category, sorted", async () => {
    const { browser } = await startEpisode(env.server(), "shop", 4)
    const p1 = await browser.get("/shop/category/books?sort=price-asc")
    const prices = [...p1.text.matchAll(/<p>\$(\d+\.\d\d)<\/p>/g)].map((m) => Number(m[1]))
    expect(prices).toHaveLength(PAGE_SIZE)
    expect([...prices].sort((a, b) => a - b)).toEqual(prices)
    expect(textOf(p1)).toContain("page 1 of 2")
    const next = p1.text.match(/<a href="([^"]+)" rel="next">Next page<\/a>/)![1]!.replace(/&amp;/g, "&")
    const p2 = await browser.get(next)
    expect(textOf(p2)).toContain("page 2 of 2")
    expect([...p2.text.matchAll(/<p>\$(\d+\.\d\d)<\/p>/g)]).toHaveLength(10 - PAGE_SIZE)
    expect(p2.text).toContain('aria-current="page" aria-label="Page 2"')
  })

  test("search filters by category and price range and sorts", async () => {
    const base = shop.base(4)
    const { browser } = await startEpisode(env.server(), "shop", 4)
    const page = await browser.get("/shop/search?q=&category=outdoor&min=20&max=150&sort=price-desc")
    const expected = base.products
      .filter((p) => p.categoryId === "outdoor" && p.price >= 2000 && p.price <= 15000)
      .sort((a, b) => b.price - a.price)
    const names = [...page.text.matchAll(/<h3><a href="\/shop\/product\/([^"]+)">/g)].map((m) => m[1])
    expect(names).toEqual(expected.slice(0, PAGE_SIZE).map((p) => p.id))
    expect(page.text).toContain('<option value="outdoor" selected>')
    const target = base.products[30]!
    const found = await browser.get(`/shop/search?q=${encodeURIComponent(target.name.toLowerCase())}`)
    expect(found.text).toContain(`/shop/product/${target.id}`)
    expect(textOf(await browser.get("/shop/search?q=zzzqqq"))).toContain("No products found")
  })

  test("unknown products and categories are 404 pages inside the shop", async () => {
    const { browser } = await startEpisode(env.server(), "shop", 4)
    for (const p of ["/shop/product/nope", "/shop/category/nope", "/shop/nowhere", "/shop/orders/O-1"]) {
      const page = await browser.get(p)
      expect(page.status).toBe(404)
      expect(textOf(page)).toContain("Page not found")
    }
  })
})
