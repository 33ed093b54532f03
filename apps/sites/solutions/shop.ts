/**
 * Scripted solutions of the shop suite: for every template, one script per path family
 * (ids as in suites/shop.json; the first family is the primary one, whose run is the
 * instance's expert demo). Targets are found by role + accessible name at run time. The
 * seeded catalog (public site data, never the state API) only tells a browse script which
 * category a product is in, as a shopper would know.
 */
import type { ShopBase } from "../shop/types.ts"
import type { Step } from "./Runner.ts"
import { button, click, done, exact, link, s, select, type } from "./Script.ts"
import type { Params } from "./Script.ts"
import type { FullObservation } from "@core/environment"

export type ShopScript = (p: Params, base: ShopBase) => ReadonlyArray<Step>

const categoryOf = (base: ShopBase, product: string): string => {
  const p = base.products.find((x) => x.name === product)
  return base.categories.find((c) => c.id === p?.categoryId)?.name ?? "?"
}

/** Search by name, then open the product from the results. */
const search = (product: string): Array<Step> => [
  type({ role: "searchbox", name: /^Search products$/ }, product, true),
  click(link(exact(product), { after: /^Apply filters$/ }))
]
/** Its category from the home page, then the product in the listing (paging as needed). */
const browse = (product: string, base: ShopBase): Array<Step> => [
  click(link(exact(categoryOf(base, product)))),
  click(link(exact(product), { pageVia: /^Next page$/ }))
]
/** From the home page's Top rated list: not applicable when the product is not there. */
const topRated = (product: string): Array<Step> => [click(link(exact(product), { requiredForFamily: true }))]

/** The first dollar amount after `marker` in the page's aria snapshot. */
const amountAfter = (obs: FullObservation, marker: string): string => {
  const at = obs.aria.indexOf(marker)
  return (at < 0 ? null : obs.aria.slice(at).match(/\$[\d,]+\.\d\d/)?.[0]) ?? "unknown"
}
const answerPrice = (product: string): Step => ({ kind: "answer", read: (obs) => `It costs ${amountAfter(obs, `"${product}"`)}.` })
const answerReviews = (product: string): Step => ({
  kind: "answer",
  read: (obs) => {
    const rest = obs.aria.slice(Math.max(0, obs.aria.indexOf(`"${product}"`)))
    return /No reviews yet/.test(rest.slice(0, 600)) ? "0" : (rest.match(/\((\d+) reviews?\)/)?.[1] ?? "unknown")
  }
})

const checkout = (p: Params): Array<Step> => [
  click(link(/^Cart \(\d+\)$/)),
  click(link(/^Proceed to checkout$/)),
  type({ role: "textbox", name: /^Full name/ }, s(p, "fullName")),
  type({ role: "textbox", name: /^Street address/ }, s(p, "street")),
  type({ role: "textbox", name: /^City/ }, s(p, "city")),
  type({ role: "textbox", name: /^Postal code/ }, s(p, "postalCode")),
  click({ role: "radio", name: new RegExp(`^${s(p, "shipping")}`, "i") }),
  click(button(/^Place order$/)),
  done
]

const settings = (field: RegExp, value: string): Array<Step> => [
  click(link(/^Account$/)),
  click(link(/^Edit account settings$/)),
  type({ role: "textbox", name: field }, value),
  click(button(/^Save settings$/)),
  done
]

const review = (p: Params): Array<Step> => [
  click({ role: "radio", name: new RegExp(`^${Number(p.rating)} stars?$`) }),
  type({ role: "textbox", name: /^Review title$/ }, s(p, "title")),
  type({ role: "textbox", name: /^Review$/ }, "Scripted review: it does what it says, good value."),
  click(button(/^Post review$/)),
  done
]

const cheapestFirst = (after: RegExp): Array<Step> => [click(link(/./, { after })), click(button(/^Add to cart$/)), done]

/** Template id → path family id → script. */
export const shopSolutions: Readonly<Record<string, Readonly<Record<string, ShopScript>>>> = {
  "shop-open-category": {
    home: (p) => [click(link(exact(s(p, "category")))), done],
    breadcrumb: (p) => [
      click(link(exact(s(p, "category")))),
      click(link(/./, { after: /^Apply$/ })),
      click(link(exact(s(p, "category")), { last: true })),
      done
    ]
  },
  "shop-open-product": {
    search: (p) => [...search(s(p, "product")), done],
    browse: (p, base) => [...browse(s(p, "product"), base), done],
    "top-rated": (p) => [...topRated(s(p, "product")), done]
  },
  "shop-cheapest-in-category": {
    "category-sort": (p) => [
      click(link(exact(s(p, "category")))),
      select({ role: "combobox", name: /^Sort by$/ }, "price-asc"),
      click(button(/^Apply$/)),
      ...cheapestFirst(/^Apply$/)
    ],
    "search-filter": (p) => [
      type({ role: "searchbox", name: /^Search products$/ }, "", true),
      select({ role: "combobox", name: /^Category$/ }, s(p, "category")),
      select({ role: "combobox", name: /^Sort by$/ }, "price-asc"),
      click(button(/^Apply filters$/)),
      ...cheapestFirst(/^Apply filters$/)
    ]
  },
  "shop-change-email": { account: (p) => settings(/^Email address$/, s(p, "email")) },
  "shop-change-name": { account: (p) => settings(/^Name$/, s(p, "name")) },
  "shop-buy": {
    "search-quantity": (p) => [
      ...search(s(p, "product")),
      type({ role: "spinbutton", name: /^Quantity$/ }, s(p, "quantity")),
      click(button(/^Add to cart$/)),
      ...checkout(p)
    ],
    "browse-cart-update": (p, base) => [
      ...browse(s(p, "product"), base),
      click(button(/^Add to cart$/)),
      click(link(/^Cart \(\d+\)$/)),
      type({ role: "spinbutton", name: exact(`Quantity for ${s(p, "product")}`) }, s(p, "quantity")),
      click(button(exact(`Update quantity for ${s(p, "product")}`))),
      ...checkout(p).slice(1)
    ]
  },
  "shop-wishlist-add": {
    search: (p) => [...search(s(p, "product")), click(button(/^Add to wish list$/)), done],
    browse: (p, base) => [...browse(s(p, "product"), base), click(button(/^Add to wish list$/)), done],
    "top-rated": (p) => [...topRated(s(p, "product")), click(button(/^Add to wish list$/)), done]
  },
  "shop-post-review": {
    search: (p) => [...search(s(p, "product")), ...review(p)],
    browse: (p, base) => [...browse(s(p, "product"), base), ...review(p)]
  },
  "shop-price-of": {
    search: (p) => [...search(s(p, "product")), answerPrice(s(p, "product"))],
    browse: (p, base) => [...browse(s(p, "product"), base), answerPrice(s(p, "product"))],
    "search-list": (p) => [type({ role: "searchbox", name: /^Search products$/ }, s(p, "product"), true), answerPrice(s(p, "product"))]
  },
  "shop-review-count": {
    search: (p) => [...search(s(p, "product")), answerReviews(s(p, "product"))],
    browse: (p, base) => [...browse(s(p, "product"), base), answerReviews(s(p, "product"))]
  },
  "shop-buy-missing": {
    "search-none": (p) => [
      type({ role: "searchbox", name: /^Search products$/ }, s(p, "missing"), true),
      { kind: "status", status: "infeasible" }
    ]
  }
}
