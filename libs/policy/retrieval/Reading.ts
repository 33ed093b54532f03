/**
 * Reading an answer off the live page (retrieval policy version 2). A recorded answer that
 * reports a value read from its page — a price, a count — is the recorded instance's value:
 * copied to another instance it is wrong. Version 2 finds the corresponding value on the
 * current page instead and puts it in the recorded wording ("It costs $24.99." → "It costs
 * $141.99."); when nothing on the page corresponds, the recorded answer stands.
 *
 * What corresponds: the page's accessibility snapshot (the observation's aria text, the
 * same on replay) read as a sequence of texts in document order. The anchor is the first
 * text naming a value the new instruction put in for a recorded one (the product's name in
 * a heading, a link, a breadcrumb), exact before partial, never a field's typed value; the
 * answer is the first value after it of the recorded value's kind — a dollar amount after a
 * product's name (its price), or a whole number beside a word the recorded answer or the
 * instruction uses for it ("2 reviews" for "How many customer reviews…").
 *
 * @example
 * readAnswer("It costs $24.99.", ["Granite Deluxe Skillet"], "What is the price of Granite Deluxe Skillet?", aria)
 * // "It costs $141.99."
 */
import { PRICE, WHOLE, anchorOf, atomsOf, countIn, neighbours, stemsOf } from "../PageText.ts"

/** The value a recorded answer reports: its dollar amount, else a whole number standing alone or beside a word. */
const valueOf = (answer: string): { readonly kind: "price" | "count"; readonly value: string; readonly index: number } | null => {
  const price = answer.match(PRICE)
  if (price !== null) return { kind: "price", value: price[0], index: price.index! }
  const whole = [...answer.matchAll(WHOLE)]
  // two numbers: which one is the reading is not clear from the wording
  if (whole.length !== 1) return null
  return { kind: "count", value: whole[0]![0], index: whole[0]!.index }
}

/**
 * The recorded answer with its value read off `aria` where the new instruction's values name
 * the thing it is about; null when the answer reports no recognisable value, no value was put
 * in, or the page shows none that corresponds.
 */
export const readAnswer = (recorded: string, values: ReadonlyArray<string>, instruction: string, aria: string): string | null => {
  const v = valueOf(recorded)
  if (v === null || values.length === 0) return null
  const atoms = atomsOf(aria)
  const at = anchorOf(atoms, values)
  if (at < 0) return null
  const labels = new Set([...neighbours(recorded, v.index, v.value.length), ...stemsOf(instruction)])
  for (const a of atoms.slice(at)) {
    if (a.role === "value") continue
    const found = v.kind === "price" ? (a.text.match(PRICE)?.[0] ?? null) : countIn(a.text, labels)
    if (found !== null) return recorded.slice(0, v.index) + found + recorded.slice(v.index + v.value.length)
  }
  return null
}
