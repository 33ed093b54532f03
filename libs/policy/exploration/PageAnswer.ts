/**
 * An answer read off the page the episode stands on (exploration policy version 3). A
 * person asked "What time does flight MR115 depart?" on a results list answers from the
 * list; the stand-in policy did not, so a path that answers from another page than the
 * demo's was never offered to expansion.
 *
 * The reading, in the page's accessibility snapshot (PageText.ts):
 * - what is asked, from the question's words: a price ("price", "cost", "how much"), a
 *   time ("what time", "when … depart"), a count ("how many", "number of") or a person
 *   ("who", "author", "username");
 * - where: the first atom naming a value the instruction names (a quoted title, a code
 *   such as a flight number, a run of capitalised words), never a field's typed text;
 * - the answer: the first value of the asked kind from there on. A count or a time beside
 *   one of the question's words is taken before any other ("5 comments" for "How many
 *   comments…", the time after "departs"); a person is the name right after "by".
 *
 * Null when the question asks none of these kinds, names nothing, or the page shows no such
 * value after it: the caller then answers as version 2 did.
 *
 * @example
 * answerFromPage("What is the price of Willow Mini Trekking Poles?", '- heading "Willow Mini Trekking Poles"\n- paragraph: $117.49')
 * // "$117.49"
 */
import { instructionValues } from "./InstructionValues.ts"
import type { Atom } from "../PageText.ts"
import { PRICE, anchorOf, atomsOf, countIn, stem, stemsOf } from "../PageText.ts"

export type AskedKind = "price" | "time" | "count" | "person"

/** What a question asks for, from its wording; null for anything else (a name, a place). */
export const askedKindOf = (instruction: string): AskedKind | null => {
  const q = instruction.toLowerCase()
  if (/\b(who|author|username)\b/.test(q)) return "person"
  if (/\bwhat time\b|\bat what time\b|\bwhen (does|do|did|will)\b.*\b(depart|leave|arrive|land|start|open|close)/.test(q)) return "time"
  if (/\b(price|prices|cost|costs|how much|fare)\b/.test(q)) return "price"
  if (/\b(how many|number of)\b/.test(q)) return "count"
  return null
}

const TIME = /(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:])/g

/**
 * The first time in an atom, one beside a label word first. The atom before counts as its
 * left side: a definition list prints "Departs" and "08:15" as two atoms.
 */
const timeIn = (
  previous: string,
  text: string,
  labels: ReadonlySet<string>
): { readonly labelled: string | null; readonly any: string | null } => {
  const joined = `${previous} ${text}`
  let any: string | null = null
  for (const m of text.matchAll(TIME)) {
    const at = previous.length + 1 + m.index
    // Only the word before: in "departs 11:25, arrives 14:35" the word after 11:25 is the next time's.
    const before = joined.slice(0, at).match(/([A-Za-z]+)\W*$/)?.[1]
    if (before !== undefined && labels.has(stem(before))) return { labelled: m[0], any: any ?? m[0] }
    any ??= m[0]
  }
  return { labelled: null, any }
}

/** How the page is read (exploration version 6: `namesOnly`, no function word is a person). */
export interface ReadingOptions {
  readonly namesOnly?: boolean
}

/** Words that follow "by" without naming anyone: "arrive by the boat", "by his sister". */
const FUNCTION_WORDS = new Set([
  "a",
  "an",
  "the",
  "this",
  "that",
  "these",
  "those",
  "his",
  "her",
  "its",
  "their",
  "our",
  "your",
  "my",
  "some",
  "any",
  "each",
  "every",
  "all",
  "way",
  "hand",
  "day",
  "night"
])

/** The name right after "by": in its own atom after a "by" atom, or inline ("by rustyfalcon16"). */
const personAt = (atoms: ReadonlyArray<Atom>, i: number, options: ReadingOptions): string | null => {
  const a = atoms[i]!
  const named = (name: string): string | null => (options.namesOnly === true && FUNCTION_WORDS.has(name.toLowerCase()) ? null : name)
  for (const inline of a.text.matchAll(/\bby\s+([\p{L}\p{N}_.-]+)/giu)) {
    const name = named(inline[1]!)
    if (name !== null) return name
  }
  const prev = atoms[i - 1]
  return prev !== undefined && /(^|\s)by$/i.test(prev.text.trim()) && a.role !== "value" ? named(a.text) : null
}

/** The values that name what the question is about, as the instruction writes them. */
const anchorsOf = (instruction: string): ReadonlyArray<string> =>
  instructionValues(instruction)
    .filter((v) => v.kind === "quoted" || v.kind === "code" || v.kind === "proper")
    .map((v) => v.text)

/** The question's answer as the page shows it, or null (see the module doc). */
export const answerFromPage = (instruction: string, aria: string | null, options: ReadingOptions = {}): string | null => {
  const kind = askedKindOf(instruction)
  if (kind === null || aria === null) return null
  const atoms = atomsOf(aria, { quoted: true })
  const at = anchorOf(atoms, anchorsOf(instruction))
  if (at < 0) return null
  const anchorWords = new Set(stemsOf(atoms[at]!.text))
  // "arrive" and the page's "Arrives" stem apart ("arrive", "arriv"): the plural's stem is taken too.
  const labels = new Set(
    stemsOf(instruction)
      .flatMap((w) => [w, stem(`${w}s`)])
      .filter((w) => !anchorWords.has(w))
  )
  let firstTime: string | null = null
  for (let i = at; i < atoms.length; i++) {
    const a = atoms[i]!
    if (a.role === "value") continue
    switch (kind) {
      case "price": {
        const p = a.text.match(PRICE)
        if (p !== null) return p[0]
        break
      }
      case "count": {
        const c = countIn(a.text, labels)
        if (c !== null) return c
        break
      }
      case "time": {
        const t = timeIn(atoms[i - 1]?.text ?? "", a.text, labels)
        if (t.labelled !== null) return t.labelled
        firstTime ??= t.any
        break
      }
      case "person": {
        if (i === at) break
        const p = personAt(atoms, i, options)
        if (p !== null) return p
        break
      }
    }
  }
  return firstTime
}
