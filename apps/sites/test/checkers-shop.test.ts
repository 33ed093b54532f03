/**
 * Every shop template's checker against scripted HTTP runs on a real server: the scripted
 * solution passes, the same run stopped one step early fails, and a run with a wrong
 * value (product, quantity, answer…) fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { check } from "../eval/checkers/mod.ts"
import { shop } from "../mod.ts"
import type { ShopBase } from "../mod.ts"
import { SHOP_SUITE_FILE } from "../suites/shop.ts"
import { loadSuite } from "../suites/Suite.ts"
import { describeCheckers, finish, go, post, runner } from "./checkerHarness.ts"
import type { Script, Step } from "./checkerHarness.ts"
import { linksTo, textOf, withServer } from "./client.ts"

const env = withServer()
beforeAll(env.start)
afterAll(env.stop)
const suite = await Effect.runPromise(loadSuite(SHOP_SUITE_FILE))

const productOf = (base: ShopBase, name: unknown) => base.products.find((p) => p.name === name)!
const categoryOf = (base: ShopBase, name: unknown) => base.categories.find((c) => c.name === name)!
/** Search by name and open the product from the results, as a user would. */
const findProduct =
  (name: string): Step =>
  async (b, out) => {
    const results = await b.get(`/shop/search?q=${encodeURIComponent(name)}`)
    out.finalUrl = (await b.get(linksTo(results, name)[0]!)).path
  }
/** Another product of the same seed with a different price (for wrong-value runs). */
const other = (base: ShopBase, name: unknown): string =>
  base.products.find((p) => p.name !== name && p.price !== productOf(base, name).price)!.name

const scripts: Record<string, Script<ShopBase>> = {
  "shop-open-category": {
    solve: (p, base) => [go("/shop/"), go(`/shop/category/${categoryOf(base, p.category).id}`)],
    wrong: (p, base) => ({ category: base.categories.find((c) => c.name !== p.category)!.name })
  },
  "shop-open-product": {
    solve: (p) => [go("/shop/"), findProduct(String(p.product))],
    wrong: (p, base) => ({ product: other(base, p.product) })
  },
  "shop-cheapest-in-category": {
    solve: (p, base) => {
      const c = categoryOf(base, p.category)
      return [
        go(`/shop/category/${c.id}?sort=price-asc`),
        async (b, out) => {
          const page = await b.get(`/shop/category/${c.id}?sort=price-asc`)
          const first = page.text.match(/href="\/shop\/product\/([^"]+)"/)![1]!
          out.finalUrl = (await b.post("/shop/cart/add", { productId: first })).path
        }
      ]
    },
    // The priciest of the category instead.
    wrong: {
      run: (p, base) => {
        const c = categoryOf(base, p.category)
        const priciest = [...base.products].filter((x) => x.categoryId === c.id).sort((a, b) => b.price - a.price)[0]!
        return [go(`/shop/category/${c.id}`), post("/shop/cart/add", { productId: priciest.id })]
      }
    }
  },
  "shop-change-email": {
    solve: (p, base) => [go("/shop/account/settings"), post("/shop/account/settings", { name: base.user.name, email: String(p.email) })],
    wrong: (p) => ({ email: `x${p.email}` })
  },
  "shop-change-name": {
    solve: (p, base) => [go("/shop/account/settings"), post("/shop/account/settings", { name: String(p.name), email: base.user.email })],
    wrong: (p) => ({ name: `${p.name}son` })
  },
  "shop-buy": {
    solve: (p, base) => {
      const prod = productOf(base, p.product)
      return [
        findProduct(String(p.product)),
        post("/shop/cart/add", { productId: prod.id, quantity: String(p.quantity) }),
        go("/shop/checkout"),
        post("/shop/checkout", {
          fullName: String(p.fullName),
          street: String(p.street),
          city: String(p.city),
          postalCode: String(p.postalCode),
          shipping: String(p.shipping)
        })
      ]
    },
    wrong: (p) => ({ ...p, quantity: Number(p.quantity) + 1 })
  },
  "shop-wishlist-add": {
    solve: (p, base) => [
      findProduct(String(p.product)),
      post("/shop/wishlist/add", {
        productId: productOf(base, p.product).id,
        return: `/product/${productOf(base, p.product).id}?added=wishlist`
      })
    ],
    wrong: (p, base) => ({ product: other(base, p.product) })
  },
  "shop-post-review": {
    solve: (p, base) => [
      findProduct(String(p.product)),
      post(`/shop/product/${productOf(base, p.product).id}/reviews`, {
        rating: String(p.rating),
        title: String(p.title),
        body: "Scripted review body, long enough."
      })
    ],
    wrong: (p) => ({ ...p, rating: (Number(p.rating) % 5) + 1 })
  },
  "shop-price-of": {
    solve: (p) => {
      let price = ""
      return [
        async (b, out) => {
          await findProduct(String(p.product))(b, out)
          price = textOf(await b.get(out.finalUrl!)).match(/Price: (\$[\d.,]+)/)![1]!
        },
        async (b, out) => finish("complete", `It costs ${price}.`)(b, out)
      ]
    },
    wrong: (p, base) => ({ product: other(base, p.product) })
  },
  "shop-review-count": {
    solve: (p) => {
      let count = ""
      return [
        async (b, out) => {
          await findProduct(String(p.product))(b, out)
          const text = textOf(await b.get(out.finalUrl!))
          count = text.includes("No reviews yet") ? "0" : text.match(/\((\d+) reviews?\)/)![1]!
        },
        async (b, out) => finish("complete", count)(b, out)
      ]
    },
    wrong: (p, base) => ({
      product: base.products.find((x) => (base.reviews[x.id]?.length ?? 0) !== (base.reviews[productOf(base, p.product).id]?.length ?? 0))!
        .name
    })
  },
  "shop-buy-missing": {
    solve: (p) => [go(`/shop/search?q=${encodeURIComponent(String(p.missing))}`), finish("infeasible")],
    wrong: { run: (p) => [go(`/shop/search?q=${encodeURIComponent(String(p.missing))}`), finish("complete", "Done.")] }
  }
}

const run = runner(env, "shop")

describe("shop checkers: solved passes, truncated fails, wrong value fails", () => {
  describeCheckers("shop", suite, scripts, (seed) => shop.base(seed), run)

  test("the infeasible template passes only with status infeasible", async () => {
    const task = suite.tasks.find((t) => t.category === "infeasible")!
    const search = go(`/shop/search?q=${encodeURIComponent(String(task.parameters.missing))}`)
    expect((await run(task, [search, finish("infeasible")])).success).toBe(true)
    for (const status of ["complete", null] as const)
      expect((await run(task, [search, finish(status, "It is in your cart.")])).success).toBe(false)
  })

  test("an answer task reported infeasible fails, and an unknown checker is an error, not a verdict", async () => {
    const task = suite.tasks.find((t) => t.templateId === "shop-price-of")!
    const v = await run(task, [finish("infeasible", String(shop.base(task.siteSeed).products[0]!.price / 100))])
    expect(v).toMatchObject({ success: false, reason: "the task is feasible, but the agent reported it infeasible" })
    await expect(check("shop.nope", { api: env.server(), tenant: "t0", parameters: {} })).rejects.toThrow("unknown checker 'shop.nope'")
  })
})
