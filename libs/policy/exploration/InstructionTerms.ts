/**
 * How the exploration policy reads an instruction against a page: the instruction's terms
 * (its words minus stop words, its quoted phrases) and how much an element's label shares
 * with them. A shared word weighs 1, a shared number 2, a quoted phrase found whole 3.
 *
 * Pure. Which reading a run uses is its exploration version's: amounts whole (8), codes
 * whole and whole labels (12), passed in as `TermOptions` so old runs score as they did.
 *
 * @example
 * const terms = termsOf(`In the settings, change the date format to YYYY-MM-DD.`, { amountsWhole: true, codesWhole: true })
 * overlap(terms, "YYYY-MM-DD") // 6: yyyy, mm, dd, and the code found whole
 * overlap(terms, "DD.MM.YYYY") // 3
 */
import { normalizeText } from "@core/domain"

export const WORD = 1
export const NUMBER = 2
export const PHRASE = 3

export const STOP_WORDS = new Set(
  (
    "a an the to of in on at by for from with into onto and or but then than as is are was were be been it its this that these those there here my me i you your we " +
    "our us they them their he she him her his please can could would should will do does did so if not up out about all any some each every what how many much which who when where why s"
  ).split(" ")
)

export const wordsOf = (s: string): ReadonlyArray<string> => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
/**
 * Version 8: an amount is one word, its separators kept ("20.00", "1,250.50"). Split, its
 * "00" matched every amount a budget shows, and explorers clicked "0.00", "60.00", "300.00"…
 * in turn instead of the controls the instruction names.
 */
const wordsWithAmountsOf = (s: string): ReadonlyArray<string> => s.toLowerCase().match(/\p{N}+(?:[.,]\p{N}+)+|[\p{L}\p{N}]+/gu) ?? []
const isNumber = (w: string): boolean => /^\p{N}+(?:[.,]\p{N}+)*$/u.test(w)

/** Quoted phrases, as written: "…", “…”, ‘…’ and '…' (an apostrophe inside a word is not a quote). */
export const quotedPhrases = (instruction: string): ReadonlyArray<string> => {
  const re = /"([^"]+)"|“([^”]+)”|‘([^’]+)’|(?<![\p{L}\p{N}])'([^']+)'(?![\p{L}\p{N}])/gu
  return [...instruction.matchAll(re)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").replace(/\s+/g, " ").trim()).filter((p) => p !== "")
}

/**
 * Version 12: a token whose letters are joined by hyphens, dots or slashes ("YYYY-MM-DD",
 * "e-mail") is also a phrase. Cut into words, every date format on a settings page shared
 * yyyy, mm and dd with the instruction, and explorers picked "DD.MM.YYYY" as often as the
 * format asked for.
 */
const codesOf = (instruction: string): ReadonlyArray<string> =>
  (instruction.match(/[\p{L}\p{N}]+(?:[-./][\p{L}\p{N}]+)+/gu) ?? []).filter((c) => /\p{L}/u.test(c))

export interface Terms {
  readonly words: ReadonlyArray<string>
  readonly phrases: ReadonlyArray<string>
  /** How labels are cut into words to meet `words`: the same way the instruction was. */
  readonly split: (s: string) => ReadonlyArray<string>
  /** Version 12: a label all of whose words are the instruction's weighs one word more. */
  readonly wholeLabels: boolean
}

export interface TermOptions {
  readonly amountsWhole?: boolean
  readonly codesWhole?: boolean
  readonly wholeLabels?: boolean
}

export const termsOf = (instruction: string, options: TermOptions = {}): Terms => {
  const split = options.amountsWhole === true ? wordsWithAmountsOf : wordsOf
  const codes = options.codesWhole === true ? codesOf(instruction) : []
  return {
    words: [...new Set(split(instruction).filter((w) => !STOP_WORDS.has(w)))],
    phrases: [...new Set([...quotedPhrases(instruction), ...codes].map(normalizeText))],
    split,
    wholeLabels: options.wholeLabels === true
  }
}

export const totalWeight = (t: Terms): number => t.words.reduce((s, w) => s + (isNumber(w) ? NUMBER : WORD), 0) + t.phrases.length * PHRASE

/**
 * How much a label (name + text) overlaps the instruction. With `wholeLabels`, a label
 * that says nothing the instruction does not ("Settings" for "In the settings, …", "Add
 * group" for "add a new category group") weighs one word more: it names the place or the
 * control itself, where a long label only mentions a word of it.
 */
export const overlap = (t: Terms, label: string): number => {
  const split = t.split(label)
  const words = new Set(split)
  const text = normalizeText(label)
  const shared = t.words.reduce((s, w) => s + (words.has(w) ? (isNumber(w) ? NUMBER : WORD) : 0), 0)
  const whole = t.wholeLabels && shared > 0 && split.every((w) => STOP_WORDS.has(w) || t.words.includes(w)) ? WORD : 0
  return shared + whole + t.phrases.reduce((s, p) => s + (text.includes(p) ? PHRASE : 0), 0)
}

export const labelOf = (e: { readonly name: string; readonly text: string }): string => `${e.name} ${e.text}`
