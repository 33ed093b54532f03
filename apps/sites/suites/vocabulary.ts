/**
 * What a suite file may name, per site: its checkers (with the parameters each needs) and
 * its parameters (with a check that a value exists in the seeded site). The loader
 * validates against this; the checker registry in `../eval/checkers/mod.ts` is typed by
 * `CheckerName`, so a checker declared here without an implementation (or the reverse)
 * does not compile. Nothing here reads episode state: it is safe for any code to import.
 */
import { shopBase } from "../shop/data.ts"
import { EMAIL } from "../shop/pages/account.ts"
import { POSTAL_CODE } from "../shop/pages/checkout.ts"

export interface CheckerSpec {
  readonly site: string
  /** Parameters every instance must give this checker. */
  readonly parameters: ReadonlyArray<string>
}

export const CHECKERS = {
  "shop.url-category": { site: "shop", parameters: ["category"] },
  "shop.url-product": { site: "shop", parameters: ["product"] },
  "shop.cart-cheapest": { site: "shop", parameters: ["category"] },
  "shop.user-email": { site: "shop", parameters: ["email"] },
  "shop.user-name": { site: "shop", parameters: ["name"] },
  "shop.order": { site: "shop", parameters: ["product", "quantity", "shipping", "fullName", "street", "city", "postalCode"] },
  "shop.wishlist": { site: "shop", parameters: ["product"] },
  "shop.review": { site: "shop", parameters: ["product", "rating", "title"] },
  "shop.answer-price": { site: "shop", parameters: ["product"] },
  "shop.answer-review-count": { site: "shop", parameters: ["product"] },
  "shop.infeasible": { site: "shop", parameters: [] }
} as const satisfies Record<string, CheckerSpec>

export type CheckerName = keyof typeof CHECKERS

export const isCheckerName = (name: string): name is CheckerName => Object.hasOwn(CHECKERS, name)

/** A problem with a parameter value in one seed's site, or null when it is fine. */
export type ParameterCheck = (value: unknown, seed: number) => string | null

const text = (max: number): ParameterCheck => (v) =>
  typeof v !== "string" || v.trim() === "" ? "must be a non-empty string" : v.length > max ? `must be at most ${max} characters` : null

const int = (lo: number, hi: number): ParameterCheck => (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= lo && v <= hi ? null : `must be an integer from ${lo} to ${hi}, got ${JSON.stringify(v)}`

const matching = (re: RegExp, what: string): ParameterCheck => (v) => (typeof v === "string" && re.test(v) ? null : `must be ${what}, got ${JSON.stringify(v)}`)

const shopProduct: ParameterCheck = (v, seed) =>
  typeof v !== "string" ? "must be a product name" : shopBase(seed).products.some((p) => p.name === v) ? null : `'${v}' is not a product in the shop catalog of seed ${seed}`

export const SITE_PARAMETERS: Readonly<Record<string, Readonly<Record<string, ParameterCheck>>>> = {
  shop: {
    product: shopProduct,
    /** Something the shop does not sell: for infeasible tasks. */
    missing: (v, seed) =>
      typeof v !== "string" || v.trim() === ""
        ? "must be a non-empty string"
        : shopBase(seed).products.some((p) => p.name.toLowerCase() === v.toLowerCase()) ? `'${v}' is a product in the shop catalog of seed ${seed}: an infeasible task must name one that is not` : null,
    category: (v, seed) =>
      typeof v === "string" && shopBase(seed).categories.some((c) => c.name === v) ? null : `'${String(v)}' is not a shop category (known: ${shopBase(seed).categories.map((c) => c.name).join(", ")})`,
    quantity: int(1, 99),
    shipping: (v) => (v === "standard" || v === "express" ? null : `must be 'standard' or 'express', got ${JSON.stringify(v)}`),
    fullName: text(60),
    street: text(60),
    city: text(60),
    postalCode: matching(POSTAL_CODE, "5 digits"),
    name: text(60),
    email: matching(EMAIL, "an email address"),
    rating: int(1, 5),
    title: text(80)
  }
}
