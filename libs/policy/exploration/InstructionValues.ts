/**
 * The values an instruction names, for filling a form from it (FormFilling.ts): quoted
 * text, e-mails, dates (ISO, "May 1", "10th of May, 2027"), codes, counts with their
 * noun, numbers and runs of capitalised words — each with the words just before it, which
 * say what role it plays ("from Prague", "born 1990-01-02").
 *
 * @example
 * instructionValues("Fly from Prague to Barcelona on 2029-07-25").map((v) => [v.kind, v.text])
 * // [["proper", "Prague"], ["proper", "Barcelona"], ["date", "2029-07-25"]]
 */
export type ValueKind = "quoted" | "email" | "date" | "code" | "count" | "number" | "proper"

/** A value the instruction names, with the words just before it (its cue: "from", "to", "born"…). */
export interface InstructionValue {
  readonly kind: ValueKind
  /** As written. */
  readonly text: string
  /** Up to three lower-cased words before the value, nearest last. */
  readonly before: ReadonlyArray<string>
  /** Dates: yyyy-mm-dd when the year is written, else null. */
  readonly iso: string | null
  /** Dates: mm-dd. */
  readonly monthDay: string | null
  /** Counts and numbers. */
  readonly count: number | null
  /** Counts: the noun after the number, singular ("passenger" for "two passengers"). */
  readonly noun: string | null
}

const MONTHS: ReadonlyArray<string> = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
const MONTH =
  "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?"
const NUMBER_WORDS: ReadonlyArray<string> = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve"
]

const QUOTED = /"([^"]+)"|“([^”]+)”|‘([^’]+)’|(?<![\p{L}\p{N}])'([^']+)'(?![\p{L}\p{N}])/gu
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/g
const MONTH_DAY = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?`, "gi")
const DAY_MONTH = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}(?:,?\\s+(\\d{4})\\b)?`, "gi")
/** Capitals with digits, as flight numbers and passports are written (MR634, LY1877574). */
/** Dates written with slashes (11/24/2026, 24/11/2026); the order of day and month is read only when one part is over 12. */
const SLASH_DATE = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g
/** Amounts with decimals or thousands separators (250.00, 1,250.50): one value, not the digits either side of a point. */
const AMOUNT = /\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+\.\d+\b/g
const CODE = /\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{3,}\b/g
const COUNT = new RegExp(`\\b(\\d+|${NUMBER_WORDS.join("|")})\\b(?:\\s+(\\p{L}+))?`, "giu")
const CAPITALISED = /\p{Lu}[\p{L}'’-]*(?:[ \t]+\p{Lu}[\p{L}'’-]*)*/gu

/** Words that carry no meaning of their own in a label, an option or a cue. */
export const FILLER = new Set(
  "a an the to of in on at by for from with and or my me your i any all no only optional required choose select enter number please as is it then that this".split(
    " "
  )
)
export const ARTICLES = new Set(["a", "an", "the", "my", "your", "our", "this", "that", "these", "those"])

export const wordsOf = (s: string): ReadonlyArray<string> => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
const pad = (n: number): string => String(n).padStart(2, "0")

/** "passengers" → "passenger", "nights" → "night", "children" → "child"; "people" stays. */
export const singular = (w: string): string => {
  const l = w.toLowerCase()
  if (l === "children") return "child"
  if (l === "people" || l.endsWith("ss")) return l
  if (l.endsWith("ies") && l.length > 4) return `${l.slice(0, -3)}y`
  return l.endsWith("s") && l.length > 3 ? l.slice(0, -1) : l
}

interface Span {
  readonly start: number
  readonly end: number
}

/** How values are read: `asWritten` (exploration 12) also reads slashed dates and whole amounts. */
export interface ValueOptions {
  readonly asWritten?: boolean
}

/**
 * Every value the instruction names, in the order written. Earlier kinds win a span:
 * quoted text, e-mails, dates, codes (capitals with digits: MR634), counts ("two
 * passengers", "5 nights") and bare numbers, then runs of capitalised words (the first
 * word of a sentence is its verb, not a name). With `asWritten`, dates written with
 * slashes and amounts ("250.00", a number kind) are read before codes and counts.
 */
export const instructionValues = (instruction: string, options: ValueOptions = {}): ReadonlyArray<InstructionValue> => {
  const taken: Array<Span> = []
  const found: Array<InstructionValue & Span> = []
  const free = (start: number, end: number) => taken.every((t) => end <= t.start || start >= t.end)
  const before = (start: number): ReadonlyArray<string> => wordsOf(instruction.slice(0, start)).slice(-3)
  const add = (start: number, end: number, v: Omit<InstructionValue, "before">) => {
    if (!free(start, end) || v.text === "") return
    taken.push({ start, end })
    found.push({ ...v, before: before(start), start, end })
  }
  const none = { iso: null, monthDay: null, count: null, noun: null }
  const each = (re: RegExp, f: (m: RegExpMatchArray, start: number, end: number) => void) => {
    for (const m of instruction.matchAll(re)) f(m, m.index!, m.index! + m[0].length)
  }
  each(QUOTED, (m, s, e) => add(s, e, { kind: "quoted", text: (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").replace(/\s+/g, " ").trim(), ...none }))
  each(EMAIL, (m, s, e) => add(s, e, { kind: "email", text: m[0], ...none }))
  const date = (text: string, s: number, e: number, year: string | undefined, month: number, day: number) => {
    if (month < 1 || month > 12 || day < 1 || day > 31) return
    const md = `${pad(month)}-${pad(day)}`
    add(s, e, { kind: "date", text, iso: year === undefined ? null : `${year}-${md}`, monthDay: md, count: null, noun: null })
  }
  each(ISO_DATE, (m, s, e) => date(m[0], s, e, m[1], Number(m[2]), Number(m[3])))
  const monthOf = (name: string): number => MONTHS.indexOf(name.toLowerCase().slice(0, 3)) + 1
  each(MONTH_DAY, (m, s, e) => date(m[0], s, e, m[3], monthOf(m[1]!), Number(m[2])))
  each(DAY_MONTH, (m, s, e) => date(m[0], s, e, m[3], monthOf(m[2]!), Number(m[1])))
  if (options.asWritten === true) {
    each(SLASH_DATE, (m, s, e) => {
      const [a, b] = [Number(m[1]), Number(m[2])]
      // 11/24 is month first, 24/11 day first; 05/06 could be either, so it stays a date without a month or a day.
      if (a > 12 && b <= 12) date(m[0], s, e, m[3], b, a)
      else if (b > 12 && a <= 12) date(m[0], s, e, m[3], a, b)
      else add(s, e, { kind: "date", text: m[0], ...none })
    })
    each(AMOUNT, (m, s, e) =>
      add(s, e, { kind: "number", text: m[0], iso: null, monthDay: null, count: Number(m[0].replace(/,/g, "")), noun: null })
    )
  }
  each(CODE, (m, s, e) => add(s, e, { kind: "code", text: m[0], ...none }))
  each(COUNT, (m, s, e) => {
    const n = /^\d+$/.test(m[1]!) ? Number(m[1]) : NUMBER_WORDS.indexOf(m[1]!.toLowerCase())
    const next = m[2]?.toLowerCase()
    // "the one", "one of them": a number word with no noun after it is no count.
    if (next === undefined || FILLER.has(next)) {
      if (/^\d+$/.test(m[1]!)) add(s, s + m[1]!.length, { kind: "number", text: m[1]!, iso: null, monthDay: null, count: n, noun: null })
      return
    }
    add(s, e, { kind: "count", text: m[0], iso: null, monthDay: null, count: n, noun: singular(next) })
  })
  each(CAPITALISED, (m, s) => {
    const words = m[0].split(/[ \t]+/)
    let start = s
    // The first word of a sentence is capitalised whatever it is: it is kept only as part of a longer run's tail.
    if (/(^|[.!?]\s*)$/.test(instruction.slice(0, s))) {
      words.shift()
      start = words.length === 0 ? s : instruction.indexOf(words[0]!, s + 1)
    }
    const kept = words.filter((w) => w !== "I")
    if (kept.length === 0 || kept.length !== words.length) return
    add(start, start + kept.join(" ").length, { kind: "proper", text: kept.join(" "), ...none })
  })
  return found.sort((a, b) => a.start - b.start).map(({ start: _s, end: _e, ...v }) => v)
}
