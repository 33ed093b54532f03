/**
 * What a suite file may name, per site: its checkers (with the parameters each needs) and
 * its parameters (with a check that a value exists in the seeded site). The loader
 * validates against this; the checker registry in `../eval/checkers/mod.ts` is typed by
 * `CheckerName`, so a checker declared here without an implementation (or the reverse)
 * does not compile. Nothing here reads episode state: it is safe for any code to import.
 */
import { forumBase } from "../forum/data.ts"
import type { ForumBase } from "../forum/types.ts"
import { shopBase } from "../shop/data.ts"
import { EMAIL } from "../shop/pages/account.ts"
import { POSTAL_CODE } from "../shop/pages/checkout.ts"
import { travelBase } from "../travel/data.ts"
import { EMAIL as TRAVEL_EMAIL, FARES, PASSPORT, validDob } from "../travel/model.ts"

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
  "shop.infeasible": { site: "shop", parameters: [] },
  // forum
  "forum.url-board": { site: "forum", parameters: ["board"] },
  "forum.url-user": { site: "forum", parameters: ["user"] },
  "forum.url-top-post": { site: "forum", parameters: ["topic", "board"] },
  "forum.new-post": { site: "forum", parameters: ["board", "title", "body"] },
  "forum.comment": { site: "forum", parameters: ["post", "comment"] },
  "forum.upvote": { site: "forum", parameters: ["post"] },
  "forum.edit-title": { site: "forum", parameters: ["myPost", "title"] },
  "forum.deleted": { site: "forum", parameters: ["myPost"] },
  "forum.answer-comment-count": { site: "forum", parameters: ["post"] },
  "forum.answer-author": { site: "forum", parameters: ["post"] },
  "forum.infeasible": { site: "forum", parameters: [] },
  // travel
  "travel.url-city": { site: "travel", parameters: ["city"] },
  "travel.url-flight": { site: "travel", parameters: ["flight"] },
  "travel.cheapest-direct": { site: "travel", parameters: ["from", "to", "date"] },
  "travel.traveller": { site: "travel", parameters: ["name", "email", "dob", "passport"] },
  "travel.flight-booking": { site: "travel", parameters: ["flight", "date", "fare", "name", "email", "dob", "passport"] },
  "travel.hotel-booking": { site: "travel", parameters: ["hotel", "room", "checkIn", "nights", "guests"] },
  "travel.booking-email": { site: "travel", parameters: ["hotel", "checkIn", "email"] },
  "travel.answer-departure": { site: "travel", parameters: ["flight"] },
  "travel.answer-cheapest-hotel": { site: "travel", parameters: ["city"] },
  "travel.infeasible": { site: "travel", parameters: [] }
} as const satisfies Record<string, CheckerSpec>

export type CheckerName = keyof typeof CHECKERS

export const isCheckerName = (name: string): name is CheckerName => Object.hasOwn(CHECKERS, name)

/** A problem with a parameter value in one seed's site, or null when it is fine. */
export type ParameterCheck = (value: unknown, seed: number) => string | null

const text =
  (max: number): ParameterCheck =>
  (v) =>
    typeof v !== "string" || v.trim() === "" ? "must be a non-empty string" : v.length > max ? `must be at most ${max} characters` : null

const int =
  (lo: number, hi: number): ParameterCheck =>
  (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= lo && v <= hi
      ? null
      : `must be an integer from ${lo} to ${hi}, got ${JSON.stringify(v)}`

const matching =
  (re: RegExp, what: string): ParameterCheck =>
  (v) =>
    typeof v === "string" && re.test(v) ? null : `must be ${what}, got ${JSON.stringify(v)}`

const shopProduct: ParameterCheck = (v, seed) =>
  typeof v !== "string"
    ? "must be a product name"
    : shopBase(seed).products.some((p) => p.name === v)
      ? null
      : `'${v}' is not a product in the shop catalog of seed ${seed}`

// forum: values are checked against the seeded forum (memoized: the loader checks many values per seed).
const forumSeeds = new Map<number, ForumBase>()
const forumOf = (seed: number): ForumBase => forumSeeds.get(seed) ?? forumSeeds.set(seed, forumBase(seed)).get(seed)!
const forumPost =
  (mine: boolean): ParameterCheck =>
  (v, seed) => {
    if (typeof v !== "string") return "must be a post title"
    const base = forumOf(seed)
    const p = base.posts.find((x) => x.title === v)
    if (!p) return `'${v}' is not a post title in the forum of seed ${seed}`
    return mine && p.author !== base.me ? `'${v}' is by ${p.author}, not by the signed-in user ${base.me} of seed ${seed}` : null
  }
const forumParameters: Readonly<Record<string, ParameterCheck>> = {
  board: (v, seed) =>
    typeof v === "string" && forumOf(seed).boards.some((b) => b.name === v)
      ? null
      : `'${String(v)}' is not a forum board (known: ${forumOf(seed)
          .boards.map((b) => b.name)
          .join(", ")})`,
  user: (v, seed) =>
    typeof v === "string" && forumOf(seed).users.some((u) => u.id === v)
      ? null
      : `'${String(v)}' is not a member of the forum of seed ${seed}`,
  topic: (v, seed) =>
    typeof v !== "string" || v.trim() === ""
      ? "must be a non-empty string"
      : forumOf(seed).posts.some((p) => `${p.title} ${p.body}`.toLowerCase().includes(v.toLowerCase()))
        ? null
        : `no post of the forum of seed ${seed} mentions '${v}'`,
  post: forumPost(false),
  /** A post by the episode's signed-in user: for edit/delete tasks. */
  myPost: forumPost(true),
  title: text(120),
  body: text(4000),
  comment: text(1000),
  /** A board the forum does not have: for infeasible tasks. */
  missingBoard: (v, seed) =>
    typeof v !== "string" || v.trim() === ""
      ? "must be a non-empty string"
      : forumOf(seed).boards.some((b) => b.id === v.trim().toLowerCase() || b.name.toLowerCase() === v.trim().toLowerCase())
        ? `'${v}' is a board of the forum: an infeasible task must name one that is not`
        : null
}

// --- travel: every name is checked against that seed's world ---
const travelCache = new Map<number, ReturnType<typeof travelBase>>()
const tb = (seed: number) => travelCache.get(seed) ?? travelCache.set(seed, travelBase(seed)).get(seed)!
const travelCity: ParameterCheck = (v, seed) =>
  typeof v === "string" && tb(seed).cities.some((c) => c.name === v)
    ? null
    : `'${String(v)}' is not a city of the travel site in seed ${seed} (known: ${tb(seed)
        .cities.map((c) => c.name)
        .join(", ")})`
const travelDate: ParameterCheck = (v, seed) =>
  typeof v === "string" && tb(seed).dates.includes(v)
    ? null
    : `'${String(v)}' is not a bookable date of the travel site in seed ${seed} (${tb(seed).dates[0]} to ${tb(seed).dates.at(-1)})`
const cityId = (seed: number, name: string) => tb(seed).cities.find((c) => c.name === name)?.id
const travelParameters: Readonly<Record<string, ParameterCheck>> = {
  city: travelCity,
  from: travelCity,
  to: travelCity,
  flight: (v, seed) =>
    typeof v === "string" && tb(seed).flights.some((f) => f.id === v)
      ? null
      : `'${String(v)}' is not a flight of the travel site in seed ${seed}`,
  date: travelDate,
  checkIn: travelDate,
  fare: (v) =>
    typeof v === "string" && Object.hasOwn(FARES, v) ? null : `must be one of ${Object.keys(FARES).join(", ")}, got ${JSON.stringify(v)}`,
  name: text(60),
  email: matching(TRAVEL_EMAIL, "an email address"),
  dob: (v, seed) =>
    typeof v === "string" && validDob(tb(seed), v)
      ? null
      : `must be a real date of birth (YYYY-MM-DD) before ${tb(seed).dates[0]}, got ${JSON.stringify(v)}`,
  passport: matching(PASSPORT, "2 capital letters and 7 digits"),
  hotel: (v, seed) =>
    typeof v === "string" && tb(seed).hotels.some((h) => h.name === v)
      ? null
      : `'${String(v)}' is not a hotel of the travel site in seed ${seed}`,
  room: (v, seed) =>
    typeof v === "string" && tb(seed).hotels.some((h) => h.rooms.some((r) => r.name === v))
      ? null
      : `'${String(v)}' is not a room type of any hotel in seed ${seed}`,
  nights: int(1, 14),
  guests: int(1, 4),
  /** "<city> to <city>" with no flight on it: for infeasible tasks. */
  noRoute: (v, seed) => {
    const [a, b, ...rest] = typeof v === "string" ? v.split(" to ") : []
    const from = cityId(seed, a ?? "")
    const to = cityId(seed, b ?? "")
    if (rest.length > 0 || !from || !to || from === to)
      return `must be '<city> to <city>' with two different cities of seed ${seed}, got ${JSON.stringify(v)}`
    return tb(seed).flights.some((f) => f.from === from && f.to === to)
      ? `'${String(v)}' is flown in seed ${seed}: an infeasible task must name a route that is not`
      : null
  }
}

export const SITE_PARAMETERS: Readonly<Record<string, Readonly<Record<string, ParameterCheck>>>> = {
  shop: {
    product: shopProduct,
    /** Something the shop does not sell: for infeasible tasks. */
    missing: (v, seed) =>
      typeof v !== "string" || v.trim() === ""
        ? "must be a non-empty string"
        : shopBase(seed).products.some((p) => p.name.toLowerCase() === v.toLowerCase())
          ? `'${v}' is a product in the shop catalog of seed ${seed}: an infeasible task must name one that is not`
          : null,
    category: (v, seed) =>
      typeof v === "string" && shopBase(seed).categories.some((c) => c.name === v)
        ? null
        : `'${String(v)}' is not a shop category (known: ${shopBase(seed)
            .categories.map((c) => c.name)
            .join(", ")})`,
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
  },
  forum: forumParameters,
  travel: travelParameters
}
