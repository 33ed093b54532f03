/**
 * Ground-truth checkers for the shop suite. EVALUATION CODE ONLY: they read the episode's
 * state (and its seeded catalog) through the state API, and the agent's final URL, answer
 * and status; policies and label functions never see them (tests/boundaries.test.ts).
 */
import { formatPrice, reviewsOf } from "../../shop/model.ts"
import type { Product, ShopBase, ShopState } from "../../shop/types.ts"
import { shopState } from "../shop.ts"
import type { CheckInput, Checker } from "./types.ts"
import { answered, endedOn, fail, numbers, pass, same } from "./verdicts.ts"

const snapshot = async (input: CheckInput): Promise<{ state: ShopState; base: ShopBase }> => {
  const snap = await shopState(input.api, input.tenant)
  return { state: snap.state, base: snap.base! }
}

const param = (input: CheckInput, name: string): string => String(input.parameters[name])

const productNamed = (base: ShopBase, name: string): Product => {
  const p = base.products.find((x) => x.name === name)
  if (!p) throw new Error(`no product '${name}' in the catalog of seed ${base.seed}`)
  return p
}

const categoryNamed = (base: ShopBase, name: string) => {
  const c = base.categories.find((x) => x.name === name)
  if (!c) throw new Error(`no category '${name}'`)
  return c
}

export const shopCheckers = {
  "shop.url-category": async (input) => {
    const { base } = await snapshot(input)
    const c = categoryNamed(base, param(input, "category"))
    return endedOn(input, `/shop/category/${c.id}`, `the ${c.name} category`)
  },
  "shop.url-product": async (input) => {
    const { base } = await snapshot(input)
    const p = productNamed(base, param(input, "product"))
    return endedOn(input, `/shop/product/${p.id}`, p.name)
  },
  "shop.cart-cheapest": async (input) => {
    const { base, state } = await snapshot(input)
    const c = categoryNamed(base, param(input, "category"))
    const inCategory = base.products.filter((p) => p.categoryId === c.id)
    const min = Math.min(...inCategory.map((p) => p.price))
    const inCart = inCategory.filter((p) => state.cart.some((l) => l.productId === p.id))
    const cheapest = inCart.find((p) => p.price === min)
    if (!cheapest)
      return fail(
        `no ${formatPrice(min)} product of ${c.name} in the cart (cart: ${inCart.map((p) => p.name).join(", ") || "nothing from it"})`
      )
    const others = inCart.filter((p) => p.price !== min)
    return others.length > 0
      ? fail(`the cart also holds pricier ${c.name} products: ${others.map((p) => p.name).join(", ")}`)
      : pass(`${cheapest.name} (${formatPrice(min)}) is in the cart`)
  },
  "shop.user-email": async (input) => {
    const { base, state } = await snapshot(input)
    const want = param(input, "email")
    if (!same(state.user.email, want)) return fail(`account email is '${state.user.email}', not '${want}'`)
    return state.user.name === base.user.name
      ? pass(`email changed to ${want}`)
      : fail(`email changed, but the name changed too (to '${state.user.name}')`)
  },
  "shop.user-name": async (input) => {
    const { base, state } = await snapshot(input)
    const want = param(input, "name")
    if (state.user.name.trim() !== want) return fail(`account name is '${state.user.name}', not '${want}'`)
    return state.user.email === base.user.email
      ? pass(`name changed to ${want}`)
      : fail(`name changed, but the email changed too (to '${state.user.email}')`)
  },
  "shop.order": async (input) => {
    const { base, state } = await snapshot(input)
    const p = productNamed(base, param(input, "product"))
    const quantity = Number(input.parameters.quantity)
    const address = {
      fullName: param(input, "fullName"),
      street: param(input, "street"),
      city: param(input, "city"),
      postalCode: param(input, "postalCode")
    }
    const orders = state.orders.filter((o) => o.lines.some((l) => l.productId === p.id))
    if (orders.length === 0) return fail(`no order contains ${p.name} (${state.orders.length} orders placed)`)
    const problems = orders.map((o) => {
      const wrong: Array<string> = []
      const line = o.lines.find((l) => l.productId === p.id)!
      if (line.quantity !== quantity) wrong.push(`quantity ${line.quantity}, not ${quantity}`)
      if (o.lines.length > 1) wrong.push(`${o.lines.length - 1} other products too`)
      if (o.shipping !== input.parameters.shipping) wrong.push(`${o.shipping} shipping, not ${String(input.parameters.shipping)}`)
      for (const k of ["fullName", "street", "city", "postalCode"] as const)
        if (!same(o.address[k], address[k])) wrong.push(`${k} '${o.address[k]}', not '${address[k]}'`)
      return { o, wrong }
    })
    const ok = problems.find((x) => x.wrong.length === 0)
    return ok
      ? pass(`order ${ok.o.id}: ${quantity} × ${p.name}, ${ok.o.shipping} shipping to ${address.fullName}`)
      : fail(`order ${problems[0]!.o.id} has ${problems[0]!.wrong.join("; ")}`)
  },
  "shop.wishlist": async (input) => {
    const { base, state } = await snapshot(input)
    const p = productNamed(base, param(input, "product"))
    return state.wishlist.includes(p.id)
      ? pass(`${p.name} is in the wish list`)
      : fail(`${p.name} is not in the wish list (${state.wishlist.length} items)`)
  },
  "shop.review": async (input) => {
    const { base, state } = await snapshot(input)
    const p = productNamed(base, param(input, "product"))
    const rating = Number(input.parameters.rating)
    const title = param(input, "title")
    const posted = state.reviews.filter((r) => r.productId === p.id)
    if (posted.length === 0) return fail(`no review of ${p.name} was posted`)
    const match = posted.find((r) => r.rating === rating && same(r.title, title))
    return match
      ? pass(`a ${rating}-star review '${match.title}' of ${p.name} was posted`)
      : fail(
          `reviews of ${p.name} posted: ${posted.map((r) => `${r.rating} stars '${r.title}'`).join(", ")}; wanted ${rating} stars '${title}'`
        )
  },
  "shop.answer-price": async (input) => {
    const a = answered(input)
    if (typeof a !== "string") return a
    const { base } = await snapshot(input)
    const p = productNamed(base, param(input, "product"))
    return numbers(a).some((n) => Math.round(n * 100) === p.price)
      ? pass(`answer gives ${formatPrice(p.price)}`)
      : fail(`answer '${a}' does not give the price ${formatPrice(p.price)}`)
  },
  "shop.answer-review-count": async (input) => {
    const a = answered(input)
    if (typeof a !== "string") return a
    const { base, state } = await snapshot(input)
    const p = productNamed(base, param(input, "product"))
    const count = reviewsOf(base, state, p.id).length
    const said = /\b(no|zero|none)\b/i.test(a) ? 0 : numbers(a)[0]
    return said === count ? pass(`answer gives ${count}`) : fail(`answer '${a}' does not give the count ${count}`)
  },
  "shop.infeasible": async (input) => {
    if (input.status !== "infeasible")
      return fail(`the shop cannot do this: expected status infeasible, got ${input.status ?? "no status"}`)
    const { state } = await snapshot(input)
    return state.orders.length > 0 ? fail("reported infeasible, but placed an order anyway") : pass("reported infeasible")
  }
} satisfies Record<string, Checker>
