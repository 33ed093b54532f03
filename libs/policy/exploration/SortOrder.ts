/**
 * The order an instruction asks for, and the sort option that gives it: "the cheapest
 * product" asks for prices from low, which "Price: low to high" gives and "Price: high to
 * low" does not; "the highest-scored post" asks for scores from high, which "Top score"
 * gives. The exploration policy (version 4) uses it to set a form's sort select, where an
 * option's words are seldom the instruction's own.
 *
 * An order is a direction (high, low, new, old) and the words of what is ordered (stemmed:
 * "scored" and "score" are one). A superlative names the direction and often what is
 * ordered ("cheapest" is a low price); otherwise what is ordered is in the next few words
 * ("the lowest nightly room price"). An option's direction is its first direction word
 * ("Price: low to high" is low) and the rest of its words say what it orders.
 *
 * @example
 * sortOptionFor("Find the cheapest product in Shoes", ["Relevance", "Price: low to high", "Price: high to low"]) // "Price: low to high"
 */
import { FILLER, wordsOf } from "./InstructionValues.ts"

type Direction = "high" | "low" | "new" | "old"

/** Superlatives an instruction uses, with the direction they ask for and, for some, what they order. */
const SUPERLATIVES: ReadonlyMap<string, { readonly direction: Direction; readonly orders?: string }> = new Map([
  ["cheapest", { direction: "low", orders: "price" }],
  ["lowest", { direction: "low" }],
  ["least", { direction: "low" }],
  ["fewest", { direction: "low" }],
  ["shortest", { direction: "low", orders: "duration" }],
  ["highest", { direction: "high" }],
  ["best", { direction: "high" }],
  ["top", { direction: "high" }],
  ["most", { direction: "high" }],
  ["priciest", { direction: "high", orders: "price" }],
  ["longest", { direction: "high", orders: "duration" }],
  ["newest", { direction: "new" }],
  ["latest", { direction: "new" }],
  ["earliest", { direction: "old" }],
  ["oldest", { direction: "old" }]
])

/** Words that give an option's direction. */
const DIRECTIONS: ReadonlyMap<string, Direction> = new Map([
  ...[...SUPERLATIVES].map(([w, s]) => [w, s.direction] as const),
  ["high", "high"],
  ["low", "low"],
  ["new", "new"],
  ["old", "old"]
])

/** Words that order nothing themselves ("first", "to" in "low to high"). */
const NEUTRAL = new Set(["first", "last", "to", "by", "sort", "order"])

/**
 * "scored" → "score", "rating" → "rate", "stars" → "star": enough for an instruction's word
 * to meet an option's (PageText's `stem`, for reading values, strips plurals only).
 */
const baseForm = (w: string): string => {
  if (w.length > 4 && w.endsWith("ing")) return `${w.slice(0, -3)}e`
  if (w.length > 3 && w.endsWith("ed")) return w.slice(0, -1)
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) return w.slice(0, -1)
  return w
}

export interface SortOrder {
  readonly direction: Direction
  /** The words of what is ordered, in their base form. */
  readonly orders: ReadonlySet<string>
}

/** How many words after a superlative may name what it orders ("lowest nightly room price"). */
const REACH = 3

/** The order the instruction asks for by its first superlative; null when it uses none. */
export const instructionOrder = (instruction: string): SortOrder | null => {
  const words = wordsOf(instruction)
  for (const [i, w] of words.entries()) {
    const s = SUPERLATIVES.get(w)
    // "at least 4 stars" and "at most 2 stops" bound a value; they ask for no order.
    if (s === undefined || words[i - 1] === "at") continue
    const after = words.slice(i + 1, i + 1 + REACH).filter((x) => !FILLER.has(x))
    return { direction: s.direction, orders: new Set([...(s.orders === undefined ? [] : [s.orders]), ...after.map(baseForm)]) }
  }
  return null
}

/** The order an option gives; null when it names no direction ("Relevance", "Featured"). */
export const optionOrder = (label: string): SortOrder | null => {
  const words = wordsOf(label.replace(/\([^)]*\)/g, " "))
  const direction = words.map((w) => DIRECTIONS.get(w)).find((d) => d !== undefined)
  if (direction === undefined) return null
  return { direction, orders: new Set(words.filter((w) => !DIRECTIONS.has(w) && !NEUTRAL.has(w) && !FILLER.has(w)).map(baseForm)) }
}

const gives = (option: SortOrder, asked: SortOrder): boolean =>
  option.direction === asked.direction &&
  (option.orders.size === 0 ? asked.direction === "new" || asked.direction === "old" : [...option.orders].some((w) => asked.orders.has(w)))

/** The one option that gives the order the instruction asks for; null when none or several do. */
export const sortOptionFor = (instruction: string, options: ReadonlyArray<string>): string | null => {
  const asked = instructionOrder(instruction)
  if (asked === null) return null
  const fits = options.filter((o) => {
    const order = optionOrder(o)
    return order !== null && gives(order, asked)
  })
  return fits.length === 1 ? fits[0]! : null
}
