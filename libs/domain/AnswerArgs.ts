/**
 * How a demo's answer is written into its LF (synthesis 2 to 4): a whole phrase among other
 * words, the one value a sentence reports, or the answer exactly.
 *
 * @example
 * answerArg("The flight departs at 06:50.", rules) // a pattern that finds 06:50 among other words
 */
import { escapeRe } from "./UrlPattern.ts"
import type { SynthesisRules } from "./rules/Synthesis.ts"

const js = (s: string): string => JSON.stringify(s)

/** A price, a clock time, or a number standing alone (not part of a code such as MR115 or of a date). */
const VALUE = /[$€£]\s?\d[\d,]*(?:\.\d+)?|(?<![\d:])\d{1,2}:\d{2}(?![\d:])|(?<![\p{L}\d.,:$€£-])\d[\d,]*(?:\.\d+)?(?![\p{L}\d:-])/gu

/** An answer that is one value and nothing else but punctuation. */
const VALUE_ALONE = new RegExp(`^\\s*(?:${VALUE.source})[.!]?\\s*$`, "u")

/**
 * The one value a sentence reports, as a pattern that finds it among other words (version
 * 3): the amount without its currency sign, which may be written or not; null when the
 * sentence reports no value or several.
 */
const reportedValue = (answer: string): string | null => {
  const values = [...answer.matchAll(VALUE)].map((m) => m[0])
  if (values.length !== 1) return null
  const v = values[0]!
  const amount = v.replace(/^[$€£]\s?/, "")
  const sign = amount === v ? "" : `[$€£]?\\s?`
  return `/(^|[^\\d.,:])${sign}${escapeRe(amount)}(?![\\d]|[.,:]\\d)/`
}

/** An answer as a case-blind whole phrase among other words (version 2); numbers and short words stay exact. */
export const answerArg = (answer: string, rules: SynthesisRules): string => {
  const numeric = /^\s*[-$€£]?\s*[\d,]+(\.\d+)?\s*$/.test(answer)
  if (!rules.wholePhraseAnswers || numeric) return js(answer)
  if (answer.replace(/[^\p{L}]/gu, "").length < 4) {
    // A clock time said alone is the value a sentence reports; a short word stays exact ("no" is in many a sentence).
    const bare = rules.readsBareValues && VALUE_ALONE.test(answer) ? reportedValue(answer) : null
    return bare ?? js(answer)
  }
  const value = rules.readsValues ? reportedValue(answer) : null
  if (value !== null) return value
  return `/(^|\\W)${escapeRe(answer.trim()).replace(/\//g, "\\/").replace(/\s+/g, "\\s+")}(\\W|$)/i`
}
