/** Read-side helpers shared by the pages: lookups, ratings, cart totals, search and paging. */
import type { Product, Review, ShippingMethod, ShopBase, ShopState } from "./types.ts"
import { paginate as paginateBy } from "../framework/paging.ts"
import type { Paged } from "../framework/paging.ts"

export const PAGE_SIZE = 8
export const SHIPPING_COST: Record<ShippingMethod, number> = { standard: 0, express: 999 }

export const formatPrice = (cents: number): string => `$${(cents / 100).toFixed(2)}`

export const productById = (base: ShopBase, id: string): Product | undefined => base.products.find((p) => p.id === id)

export const categoryName = (base: ShopBase, id: string): string => base.categories.find((c) => c.id === id)?.name ?? id

export const reviewsOf = (base: ShopBase, state: ShopState, productId: string): ReadonlyArray<Review> => [
  ...(base.reviews[productId] ?? []),
  ...state.reviews.filter((r) => r.productId === productId)
]

/** Average stars to one decimal, or null with no reviews. */
export const ratingOf = (reviews: ReadonlyArray<Review>): number | null =>
  reviews.length === 0 ? null : Math.round((reviews.reduce((s, r) => s + r.rating, 0) / reviews.length) * 10) / 10

/** The home page's Top rated list: the best-rated products with at least two reviews. */
export const topRated = (base: ShopBase, state: ShopState, count = 4): ReadonlyArray<Product> =>
  [...base.products]
    .map((p, i) => ({ p, i, r: ratingOf(reviewsOf(base, state, p.id)) ?? 0, n: reviewsOf(base, state, p.id).length }))
    .filter((x) => x.n >= 2)
    .sort((a, b) => b.r - a.r || b.n - a.n || a.i - b.i)
    .slice(0, count)
    .map((x) => x.p)

export const cartCount = (state: ShopState): number => state.cart.reduce((n, l) => n + l.quantity, 0)

export const cartLines = (base: ShopBase, state: ShopState): Array<{ product: Product; quantity: number; total: number }> =>
  state.cart.flatMap((l) => {
    const product = productById(base, l.productId)
    return product ? [{ product, quantity: l.quantity, total: product.price * l.quantity }] : []
  })

export const cartSubtotal = (base: ShopBase, state: ShopState): number => cartLines(base, state).reduce((s, l) => s + l.total, 0)

export const SORTS = {
  relevance: "Relevance",
  "price-asc": "Price: low to high",
  "price-desc": "Price: high to low",
  rating: "Customer rating",
  name: "Name"
} as const
export type Sort = keyof typeof SORTS
export const parseSort = (s: string | null, fallback: Sort): Sort => (s !== null && s in SORTS ? (s as Sort) : fallback)

export interface Filters {
  readonly q: string
  readonly category: string
  /** Whole dollars, or null when unset. */
  readonly min: number | null
  readonly max: number | null
  readonly sort: Sort
}

const dollars = (s: string | null): number | null => {
  if (s === null || s.trim() === "") return null
  const n = Number(s)
  return Number.isFinite(n) && n >= 0 ? n : null
}

export const parseFilters = (q: URLSearchParams): Filters => ({
  q: (q.get("q") ?? "").trim(),
  category: q.get("category") ?? "",
  min: dollars(q.get("min")),
  max: dollars(q.get("max")),
  sort: parseSort(q.get("sort"), "relevance")
})

const score = (base: ShopBase, p: Product, terms: ReadonlyArray<string>): number => {
  const name = p.name.toLowerCase()
  const cat = categoryName(base, p.categoryId).toLowerCase()
  const desc = p.description.toLowerCase()
  let s = 0
  for (const t of terms) {
    if (name.includes(t)) s += 3
    else if (cat.includes(t)) s += 2
    else if (desc.includes(t)) s += 1
    else return 0
  }
  return s
}

/** Every term must match the name, category or description; ties keep catalog order, so results are stable. */
export const search = (base: ShopBase, state: ShopState, f: Filters): Array<Product> => {
  const terms = f.q.toLowerCase().split(/\s+/).filter(Boolean)
  const scored = base.products
    .map((p, i) => ({ p, i, s: terms.length === 0 ? 1 : score(base, p, terms) }))
    .filter(
      ({ p, s }) =>
        s > 0 &&
        (f.category === "" || p.categoryId === f.category) &&
        (f.min === null || p.price >= f.min * 100) &&
        (f.max === null || p.price <= f.max * 100)
    )
  return sortProducts(base, state, scored, f.sort).map((x) => x.p)
}

export const sortProducts = <T extends { p: Product; i: number; s: number }>(
  base: ShopBase,
  state: ShopState,
  items: Array<T>,
  sort: Sort
): Array<T> => {
  const rating = (p: Product): number => ratingOf(reviewsOf(base, state, p.id)) ?? 0
  const by: Record<Sort, (a: T, b: T) => number> = {
    relevance: (a, b) => b.s - a.s,
    "price-asc": (a, b) => a.p.price - b.p.price,
    "price-desc": (a, b) => b.p.price - a.p.price,
    rating: (a, b) => rating(b.p) - rating(a.p),
    name: (a, b) => a.p.name.localeCompare(b.p.name, "en")
  }
  return [...items].sort((a, b) => by[sort](a, b) || a.i - b.i)
}

export type { Paged } from "../framework/paging.ts"

/** A page of a list, at this site's page size. */
export const paginate = <T>(items: ReadonlyArray<T>, pageParam: string | null): Paged<T> => paginateBy(items, pageParam, PAGE_SIZE)
