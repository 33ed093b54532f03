/**
 * The shop suite, generated from the seeded catalog so every parameter exists in its
 * instance's seed. `shop.json` is this generator's output (a test keeps the two equal);
 * after changing either the generator or the shop's data, rewrite it with
 * `bun apps/sites/suites/shop.ts`.
 */
import { join } from "node:path"
import { rng } from "../framework/prng.ts"
import type { Rng } from "../framework/prng.ts"
import { shopBase, shopInitial } from "../shop/data.ts"
import { topRated } from "../shop/model.ts"
import type { ShopBase } from "../shop/types.ts"
import type { PathFamily, SuiteFile } from "./Suite.ts"
import { generateSuite, suiteJson, writeSuite } from "./Generator.ts"
import type { InstanceSlot, Params, StartPage, TemplateSpec } from "./Generator.ts"

type Spec = TemplateSpec<ShopBase>

/** Instance k of every template: its seed and split. The held-out seed gives unseen parameter values. */
const INSTANCES: ReadonlyArray<InstanceSlot> = [
  { seed: 101, split: "train" },
  { seed: 102, split: "train" },
  { seed: 103, split: "held-out" }
]

const fam = (id: string, description: string): PathFamily => ({ id, description })
const SEARCH = fam("search", "search for the product by name, then open it from the results")
const BROWSE = fam("browse", "open its category from the home page and find it in the listing (paging or sorting as needed)")
const TOP = fam("top-rated", "open it from the home page's Top rated list when it is there")

const product = (base: ShopBase, r: Rng): string => r.pick(base.products).name
/** Train instances of a template with the top-rated family name a product in the home page's Top rated list, so every family of theirs applies; held-out ones any product. */
const productFor = (base: ShopBase, r: Rng, k: number): string =>
  k < 2 ? r.pick(topRated(base, shopInitial(base))).name : product(base, r)
/** The k-th of a fixed shuffle of the categories, so the three instances name three different ones. */
const category = (base: ShopBase, id: string, k: number): string => rng(0, id).shuffle(base.categories)[k]!.name

const FIRST = ["Robin", "Noor", "Kai", "Elena", "Tomas", "Ines", "Marco", "Zara"]
const LAST = ["Alvarez", "Brooks", "Dubois", "Ferreira", "Hughes", "Lindqvist", "Nakamura", "Osei"]
const STREETS = ["Maple Avenue", "Harbor Road", "Elm Street", "Station Lane", "Orchard Way"]
const CITIES = ["Springfield", "Riverton", "Lakewood", "Fairview", "Brookhaven"]
const TITLES = ["Works as described", "Great value", "Not what I expected", "Would buy again", "Solid and simple"]
const UNSOLD = ["Electric Scooter", "Gift Card", "Lawn Mower", "Grand Piano", "Espresso Machine", "Snowboard"]
const BRANDS = ["Acme", "Northwind", "Lumen", "Harbor"]

const specs: ReadonlyArray<Spec> = [
  {
    id: "shop-open-category",
    category: "navigation",
    split: "train",
    checker: "shop.url-category",
    instruction: "Open the {category} category page.",
    pathFamilies: [
      fam("home", "follow the category's link on the home page"),
      fam("breadcrumb", "open any product of the category and follow its breadcrumb")
    ],
    make: (base, _r, k) => ({ category: category(base, "shop-open-category", k) })
  },
  {
    id: "shop-open-product",
    category: "navigation",
    split: "train",
    checker: "shop.url-product",
    instruction: "Open the product page of {product}.",
    pathFamilies: [SEARCH, BROWSE, TOP],
    make: (base, r, k) => ({ product: productFor(base, r, k) })
  },
  {
    id: "shop-cheapest-in-category",
    category: "search",
    split: "train",
    checker: "shop.cart-cheapest",
    instruction: "Find the cheapest product in the {category} category and add it to my cart.",
    pathFamilies: [
      fam("category-sort", "open the category and sort by price, low to high"),
      fam("search-filter", "search all products filtered to the category, sorted by price")
    ],
    make: (base, _r, k) => ({ category: category(base, "shop-cheapest-in-category", k) })
  },
  {
    id: "shop-change-email",
    category: "form",
    split: "train",
    checker: "shop.user-email",
    instruction: "Change the email address on my account to {email}.",
    pathFamilies: [fam("account", "open the account page, then Edit account settings")],
    make: (_base, r) => ({ email: `${r.pick(FIRST).toLowerCase()}.${r.int(10, 99)}@example.org` })
  },
  {
    id: "shop-change-name",
    category: "form",
    split: "held-out",
    checker: "shop.user-name",
    instruction: "Change the name on my account to {name}.",
    pathFamilies: [fam("account", "open the account page, then Edit account settings")],
    make: (_base, r) => ({ name: `${r.pick(FIRST)} ${r.pick(LAST)}` })
  },
  {
    id: "shop-buy",
    category: "transaction",
    split: "train",
    checker: "shop.order",
    instruction: "Buy {quantity} of {product} with {shipping} shipping to {fullName}, {street}, {city} {postalCode}.",
    pathFamilies: [
      fam("search-quantity", "find the product by search, set the quantity on its page, then cart and checkout"),
      fam("browse-cart-update", "find it through its category, add one, change the quantity in the cart, then checkout")
    ],
    make: (base, r) => ({
      product: product(base, r),
      quantity: r.int(2, 4),
      shipping: r.pick(["standard", "express"]),
      fullName: `${r.pick(FIRST)} ${r.pick(LAST)}`,
      street: `${r.int(1, 999)} ${r.pick(STREETS)}`,
      city: r.pick(CITIES),
      postalCode: String(r.int(10000, 99999))
    })
  },
  {
    id: "shop-wishlist-add",
    category: "transaction",
    split: "train",
    checker: "shop.wishlist",
    instruction: "Add {product} to my wish list.",
    pathFamilies: [SEARCH, BROWSE, TOP],
    make: (base, r, k) => ({ product: productFor(base, r, k) })
  },
  {
    id: "shop-post-review",
    category: "transaction",
    split: "train",
    checker: "shop.review",
    instruction: 'Post a {rating}-star review of {product} titled "{title}".',
    pathFamilies: [SEARCH, BROWSE],
    make: (base, r) => ({ product: product(base, r), rating: r.int(1, 5), title: r.pick(TITLES) })
  },
  {
    id: "shop-price-of",
    category: "information",
    split: "train",
    checker: "shop.answer-price",
    instruction: "What is the price of {product}?",
    pathFamilies: [SEARCH, BROWSE, fam("search-list", "read the price from the search results without opening the product")],
    make: (base, r) => ({ product: product(base, r) })
  },
  {
    id: "shop-review-count",
    category: "information",
    split: "held-out",
    checker: "shop.answer-review-count",
    instruction: "How many customer reviews does {product} have?",
    pathFamilies: [SEARCH, BROWSE],
    make: (base, r) => ({ product: product(base, r) })
  },
  {
    id: "shop-buy-missing",
    category: "infeasible",
    split: "train",
    checker: "shop.infeasible",
    instruction: "Add the {missing} to my cart.",
    pathFamilies: [fam("search-none", "search for it, find no such product, and report the task infeasible")],
    make: (base, r) => {
      let missing = ""
      do missing = `${r.pick(BRANDS)} ${r.pick(UNSOLD)}`
      while (base.products.some((p) => p.name === missing))
      return { missing }
    }
  }
]

/**
 * Where the held-out variants start instead of the home page (Generator.ts, `variantsOf`):
 * the first category in catalog order that the task does not name and its product is not in,
 * that category's first product, and the search results for that product's name.
 */
export const shopStarts = (base: ShopBase, p: Params): ReadonlyArray<StartPage> => {
  const product = base.products.find((x) => x.name === p.product)
  const other = base.categories.find((c) => c.name !== p.category && c.id !== product?.categoryId)!
  const first = base.products.find((x) => x.categoryId === other.id)!
  return [
    { key: "category", path: `/category/${other.id}` },
    { key: "product", path: `/product/${first.id}` },
    { key: "search", path: `/search?q=${encodeURIComponent(first.name)}` }
  ]
}

export const generateShopSuite = (): SuiteFile => generateSuite("shop", specs, INSTANCES, shopBase, shopStarts)

export const SHOP_SUITE_FILE = join(import.meta.dir, "shop.json")

export const shopSuiteJson = (): string => suiteJson(generateShopSuite())

if (import.meta.main) writeSuite(SHOP_SUITE_FILE, generateShopSuite())
