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
import { collapse } from "@core/domain"

/**
 * The retrieval policy's versions: a run keeps the one it recorded, so its episodes replay
 * with the same actions. 1 copies a recorded answer (with the instruction's values put in);
 * 2 reads a recorded price or count off the current page (readAnswer). Draws are the same.
 */
export type RetrievalVersion = "1" | "2"
/** What new runs record. */
export const RETRIEVAL_VERSION: RetrievalVersion = "2"
/** A run's recorded version; anything else (a run from before versions) is version 1. */
export const retrievalVersionOf = (v: unknown): RetrievalVersion => (v === "2" ? "2" : "1")

const PRICE = /\$\s?\d[\d,]*(?:\.\d{2})?/
const WHOLE = /(?<![\d.,$])\d+(?![\d.,]*\d)/g

interface Atom {
  readonly role: string
  readonly text: string
}

/** `- role "name" [attrs]: text` → its name and its text, each an atom; a field's typed value is marked as such. */
const atomsOf = (aria: string): ReadonlyArray<Atom> =>
  aria.split("\n").flatMap((line): Array<Atom> => {
    const m = line.match(/^\s*-\s+([\w-]+)(?:\s+"((?:[^"\\]|\\.)*)")?(?:\s+\[[^\]]*\])*\s*(?::\s*(.*))?$/)
    if (m === null) return []
    const role = m[1]!
    if (role === "/url" || role === "img") return []
    const unquote = (s: string) => (s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1) : s)
    const out: Array<Atom> = []
    if (m[2] !== undefined && m[2] !== "") out.push({ role, text: m[2].replace(/\\"/g, '"') })
    if (m[3] !== undefined && m[3].trim() !== "") out.push({ role: EDITABLE.has(role) ? "value" : role, text: unquote(m[3].trim()) })
    return out
  })

/** Roles whose snapshot text is what was typed into them: a search box showing the product's name is no anchor. */
const EDITABLE = new Set(["searchbox", "textbox", "spinbutton", "combobox"])

const norm = (s: string): string => collapse(s).toLowerCase()

/** The first atom naming one of the values: an exact name first, else one containing it; -1 when none does. */
const anchorOf = (atoms: ReadonlyArray<Atom>, values: ReadonlyArray<string>): number => {
  const wanted = values.map(norm).filter((v) => v !== "")
  if (wanted.length === 0) return -1
  const usable = (a: Atom) => a.role !== "value"
  const exact = atoms.findIndex((a) => usable(a) && wanted.includes(norm(a.text)))
  if (exact >= 0) return exact
  return atoms.findIndex((a) => usable(a) && wanted.some((v) => norm(a.text).includes(v)))
}

const stem = (w: string) => w.toLowerCase().replace(/(?:es|s)$/, "")

/** The words right around the whole number at `index` of `text`, as stems. */
const neighbours = (text: string, index: number, length: number): ReadonlyArray<string> => {
  const before = text.slice(0, index).match(/([A-Za-z]+)\W*$/)?.[1]
  const after = text.slice(index + length).match(/^\W*([A-Za-z]+)/)?.[1]
  return [before, after].flatMap((w) => (w === undefined ? [] : [stem(w)]))
}

/** The first whole number in `text` that a label word stands beside. */
const countIn = (text: string, labels: ReadonlySet<string>): string | null => {
  for (const m of text.matchAll(WHOLE)) if (neighbours(text, m.index, m[0].length).some((w) => labels.has(w))) return m[0]
  return null
}

/** The value a recorded answer reports: its dollar amount, else a whole number standing alone or beside a word. */
const valueOf = (answer: string): { readonly kind: "price" | "count"; readonly value: string; readonly index: number } | null => {
  const price = answer.match(PRICE)
  if (price !== null) return { kind: "price", value: price[0], index: price.index! }
  const whole = [...answer.matchAll(WHOLE)]
  // two numbers: which one is the reading is not clear from the wording
  if (whole.length !== 1) return null
  return { kind: "count", value: whole[0]![0], index: whole[0]!.index }
}

const wordsOf = (s: string): ReadonlyArray<string> => (s.match(/[A-Za-z]+/g) ?? []).filter((w) => w.length > 2).map(stem)

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
  const labels = new Set([...neighbours(recorded, v.index, v.value.length), ...wordsOf(instruction)])
  for (const a of atoms.slice(at)) {
    if (a.role === "value") continue
    const found = v.kind === "price" ? (a.text.match(PRICE)?.[0] ?? null) : countIn(a.text, labels)
    if (found !== null) return recorded.slice(0, v.index) + found + recorded.slice(v.index + v.value.length)
  }
  return null
}
