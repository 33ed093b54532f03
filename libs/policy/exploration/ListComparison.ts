/**
 * Comparison reading (exploration version 14): for "the cheapest", "the highest-scored" or
 * "the latest", a person reads the values a list shows and picks by comparing them. The
 * sort select (SortOrder.ts) is one way to that; a list with no sort, or a first page
 * already showing the items, is another, and the stand-in policy never took it.
 *
 * The reading, in the page's accessibility snapshot:
 * - the list's entries: each outermost `listitem`, `row` or `article`, named by its first
 *   link (the product, the post, "Details of flight MR707");
 * - each entry's value of the order the instruction asks for (SortOrder's `instructionOrder`):
 *   a price for a price, a date or time for new and old, else a number beside a word of
 *   what is ordered ("Score: 91", "guest score 9.8", "5 comments", "Rated 3.8");
 * - only entries that show every word of the instruction some entries show and others do
 *   not: "the cheapest nonstop flight" compares the nonstop ones, "the highest-scored post
 *   about tubeless tires" the posts about them;
 * - the pick: the entry with the lowest value for low and old, the highest for high and new,
 *   when one entry alone has it and at least two entries were compared.
 *
 * @example
 * comparedPick("Find the cheapest product in the Kitchen category.", aria)
 * // { link: "Copperleaf Ultra Cutting Board", value: "$15.00", kind: "price" }
 */
import { PRICE, atomsOf } from "../PageText.ts"
import { FILLER, wordsOf } from "./InstructionValues.ts"
import { STOP_WORDS } from "./InstructionTerms.ts"
import { instructionOrder, type SortOrder } from "./SortOrder.ts"

/** What an entry's value is read as: a price, a moment (a date or a time), or a labelled number. */
export type ComparedKind = "price" | "moment" | "number"

export interface ComparedPick {
  /** The picked entry's first link name. */
  readonly link: string
  /** The value as the page shows it ("$15.00", "2024-04-30 07:33", "91"). */
  readonly value: string
  readonly kind: ComparedKind
}

interface Entry {
  readonly link: string
  /** Everything the entry shows, its names included: what its words are read from. */
  readonly text: string
  /** What it shows beside its names (a heading's, a button's, its own link's), atom by atom: where its values and qualities are read. */
  readonly shown: ReadonlyArray<string>
}

/** Roles whose atoms name things rather than show values: a title with "3 tips" in it is no score of 3. */
const NAMING = new Set(["heading", "button", "article", "listitem", "row", "img"])

const ENTRY = /^(\s*)- '?(listitem|row|article)\b/

/** A word's root as values' labels and instructions meet: "scored", "score" and "scores" are one, as are "rated" and "rating". */
const root = (w: string): string => w.toLowerCase().replace(/(?:ing|ed|es|s|e)$/, "")

/** The page's outermost list entries that name a link, in page order. */
export const listEntries = (aria: string): ReadonlyArray<Entry> => {
  const lines = aria.split("\n")
  const out: Array<Entry> = []
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i]!.match(ENTRY)
    if (m === null) continue
    const depth = m[1]!.length
    let end = i + 1
    while (end < lines.length && (lines[end]!.match(/^(\s*)/)![1]!.length > depth || lines[end]!.trim() === "")) end++
    const atoms = atomsOf(lines.slice(i, end).join("\n"), { quoted: true })
    const name = atoms.find((a) => a.role === "link")?.text
    i = end - 1
    if (name === undefined) continue
    const shown = atoms.filter((a) => !NAMING.has(a.role) && !(a.role === "link" && a.text === name))
    out.push({ link: name, text: atoms.map((a) => a.text).join(" · "), shown: shown.map((a) => a.text) })
  }
  return out
}

const PRICE_WORDS = new Set(["pric", "fare", "cost", "cheap"].map(root))
const MOMENT = /\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2})?\b|(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:])/
const NUMBER = /\d+(?:\.\d+)?/g

/** How the asked order's values are read: a price, a moment, or a number labelled by a word of what is ordered. */
const kindOf = (order: SortOrder): ComparedKind =>
  [...order.orders].some((w) => PRICE_WORDS.has(root(w)))
    ? "price"
    : order.direction === "new" || order.direction === "old"
      ? "moment"
      : "number"

/** An entry's value of the kind, as shown and as compared; null when it shows none. A label is read in the value's own atom ("Rated 1.6", not the price before it). */
const valueOf = (
  atoms: ReadonlyArray<string>,
  kind: ComparedKind,
  labels: ReadonlySet<string>
): { display: string; key: number } | null => {
  const text = atoms.join(" · ")
  if (kind === "price") {
    const m = text.match(PRICE)
    return m === null ? null : { display: m[0], key: Number(m[0].replace(/[$,\s]/g, "")) }
  }
  if (kind === "moment") {
    const m = text.match(MOMENT)
    if (m === null) return null
    const [date, time] = m[0].includes("-") ? [m[0].slice(0, 10), m[0].slice(11)] : ["", m[0]]
    const [h, min] = time === "" ? [0, 0] : time.split(":").map(Number)
    return { display: m[0], key: (date === "" ? 0 : Date.parse(`${date}T00:00:00Z`) / 60_000) + h! * 60 + min! }
  }
  for (const atom of atoms) {
    for (const m of atom.matchAll(NUMBER)) {
      if (atom[m.index - 1] === "$" || atom[m.index - 1] === ".") continue
      const before = atom.slice(0, m.index).match(/([A-Za-z]+)\W*$/)?.[1]
      const after = atom.slice(m.index + m[0].length).match(/^\W*([A-Za-z]+)/)?.[1]
      if ([before, after].some((w) => w !== undefined && labels.has(root(w)))) return { display: m[0], key: Number(m[0]) }
    }
  }
  return null
}

/** Words that say what to do, not which item: a title with "open" in it is not what "open it" asks for. */
const DOING = new Set([
  "find",
  "open",
  "show",
  "add",
  "start",
  "book",
  "booking",
  "go",
  "click",
  "select",
  "buy",
  "view",
  "read",
  "see",
  "tell",
  "give",
  "get"
])

const splits = (w: string, roots: ReadonlyArray<ReadonlySet<string>>): boolean => {
  const showing = roots.filter((r) => r.has(w)).length
  return showing > 0 && showing < roots.length
}

/** What the instruction says a post or a page is about: the words after "about", up to a word that ends the phrase. */
const ABOUT = /\babout\s+([^,.;:!?]+)/i

/**
 * The instruction's words that tell entries apart: a quality some entries show beside their
 * names and others do not ("Nonstop"), and a subject after "about" that not every entry
 * carries — one that none carries leaves none to compare: the posts about it are elsewhere.
 * A name's other words are no quality: "Harbor Hotel" among hotels is not "the cheapest
 * hotel". Numbers never tell (a date's "01" is in some departure times).
 */
const telling = (instruction: string, entries: ReadonlyArray<Entry>): ReadonlyArray<string> => {
  const useful = (w: string) => !STOP_WORDS.has(w) && !FILLER.has(w) && !DOING.has(w) && !/^\d+$/.test(w)
  const shown = entries.map((e) => new Set(wordsOf(e.shown.join(" ")).map(root)))
  const named = entries.map((e) => new Set(wordsOf(e.text).map(root)))
  const qualities = wordsOf(instruction)
    .filter(useful)
    .map(root)
    .filter((w) => splits(w, shown))
  const subject = (instruction.match(ABOUT)?.[1] ?? "").split(/\s+(?:in|on|at|and|from|with|for)\s+/i)[0]!
  const about = wordsOf(subject)
    .filter(useful)
    .map(root)
    .filter((w) => named.filter((r) => r.has(w)).length < named.length)
  return [...new Set([...qualities, ...about])]
}

/** The entry the instruction's order picks on this page, by the values its list shows; null when it asks none or the page lists none. */
export const comparedPick = (instruction: string, aria: string | null): ComparedPick | null => {
  const order = instructionOrder(instruction)
  if (order === null || aria === null) return null
  const kind = kindOf(order)
  const labels = new Set([...order.orders].map(root))
  const valued = listEntries(aria).flatMap((e) => {
    const v = valueOf(e.shown, kind, labels)
    return v === null ? [] : [{ ...e, ...v }]
  })
  if (valued.length < 2) return null
  const words = telling(instruction, valued)
  const eligible = valued.filter((e) => {
    const r = new Set(wordsOf(e.text).map(root))
    return words.every((w) => r.has(w))
  })
  const sign = order.direction === "low" || order.direction === "old" ? 1 : -1
  const best = Math.min(...eligible.map((e) => sign * e.key))
  const top = eligible.filter((e) => sign * e.key === best)
  return top.length === 1 ? { link: top[0]!.link, value: top[0]!.display, kind } : null
}
