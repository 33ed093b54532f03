/**
 * A page read as text: the observation's accessibility snapshot (Playwright's YAML, the
 * same on replay) as a sequence of atoms in document order, and the readings every reader
 * of it shares — where a named thing appears (its anchor) and which number a word stands
 * beside. Used by the exploration policy's answers (PageAnswer.ts) and the retrieval
 * policy's (libs/policy Reading.ts), so both read a page the same way.
 *
 * @example
 * const atoms = atomsOf('- heading "Willow Mini Trekking Poles"\n- paragraph: $117.49')
 * anchorOf(atoms, ["Willow Mini Trekking Poles"]) // 0
 */
import { collapse } from "@core/domain"

export interface Atom {
  /** The line's role; `value` for what was typed into a field (a search box showing the product's name is no anchor). */
  readonly role: string
  readonly text: string
}

/** Roles whose snapshot text is what was typed into them. */
const EDITABLE = new Set(["searchbox", "textbox", "spinbutton", "combobox"])

/** A dollar amount as pages print prices. */
export const PRICE = /\$\s?\d[\d,]*(?:\.\d{2})?/
/** A whole number that is not part of a decimal, an amount or a longer number. */
export const WHOLE = /(?<![\d.,$])\d+(?![\d.,]*\d)/g

/**
 * `- role "name" [attrs]: text` → its name and its text, each an atom; links' URLs and images
 * are left out. `quoted` also reads the lines YAML quotes (a name with a colon: "Help: …");
 * the retrieval policy's version 2 reads without them, as its runs did.
 */
export const atomsOf = (aria: string, options: { readonly quoted?: boolean } = {}): ReadonlyArray<Atom> =>
  aria.split("\n").flatMap((line): Array<Atom> => {
    const m = line.match(/^\s*-\s+([\w-]+)(?:\s+"((?:[^"\\]|\\.)*)")?(?:\s+\[[^\]]*\])*\s*(?::\s*(.*))?$/)
    if (m === null) return options.quoted === true ? quotedLine(line) : []
    const role = m[1]!
    if (role === "/url" || role === "img") return []
    const unquote = (s: string) => (s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1) : s)
    const out: Array<Atom> = []
    if (m[2] !== undefined && m[2] !== "") out.push({ role, text: m[2].replace(/\\"/g, '"') })
    if (m[3] !== undefined && m[3].trim() !== "") out.push({ role: EDITABLE.has(role) ? "value" : role, text: unquote(m[3].trim()) })
    return out
  })

/** YAML quotes a line whose name holds a colon or a quote: `- 'heading "Show and tell: setup" [level=3]':`. */
const quotedLine = (line: string): Array<Atom> => {
  const m = line.match(/^\s*-\s+'([\w-]+)\s+"((?:[^"]|'')*)"(?:\s+\[[^\]]*\])*':?\s*(.*)$/)
  if (m === null) return []
  const out: Array<Atom> = [{ role: m[1]!, text: m[2]!.replace(/''/g, "'") }]
  if (m[3] !== undefined && m[3].trim() !== "") out.push({ role: m[1]!, text: m[3].trim() })
  return out
}

const norm = (s: string): string => collapse(s).toLowerCase()

/** The first atom naming one of the values: an exact name first, else one containing it; -1 when none does. Typed values never count. */
export const anchorOf = (atoms: ReadonlyArray<Atom>, values: ReadonlyArray<string>): number => {
  const wanted = values.map(norm).filter((v) => v !== "")
  if (wanted.length === 0) return -1
  const usable = (a: Atom) => a.role !== "value"
  const exact = atoms.findIndex((a) => usable(a) && wanted.includes(norm(a.text)))
  if (exact >= 0) return exact
  return atoms.findIndex((a) => usable(a) && wanted.some((v) => norm(a.text).includes(v)))
}

/** A word's stem as these readers compare words: "comments" and "comment", "departs" and "depart" are one. */
export const stem = (w: string): string => w.toLowerCase().replace(/(?:es|s)$/, "")

/** Words of three letters or more, as stems. */
export const stemsOf = (s: string): ReadonlyArray<string> => (s.match(/[A-Za-z]+/g) ?? []).filter((w) => w.length > 2).map(stem)

/** The words right around the match at `index` (of `length`) in `text`, as stems. */
export const neighbours = (text: string, index: number, length: number): ReadonlyArray<string> => {
  const before = text.slice(0, index).match(/([A-Za-z]+)\W*$/)?.[1]
  const after = text.slice(index + length).match(/^\W*([A-Za-z]+)/)?.[1]
  return [before, after].flatMap((w) => (w === undefined ? [] : [stem(w)]))
}

/** The first whole number in `text` that a label word stands beside. */
export const countIn = (text: string, labels: ReadonlySet<string>): string | null => {
  for (const m of text.matchAll(WHOLE)) if (neighbours(text, m.index, m[0].length).some((w) => labels.has(w))) return m[0]
  return null
}
