/**
 * Parameter alignment: a recorded instruction and a new one that instantiate one template
 * ("Open the Electronics category page." / "Open the Kitchen category page.") agree on
 * the template's words and differ in its parameters. A weighted longest common
 * subsequence of their tokens finds the agreement; each gap between two matched tokens is
 * either a parameter substitution (value-like on both sides) or wording the two do not
 * share, which costs similarity.
 *
 * @example
 * alignInstructions("Open the Electronics category page.", "Open the Kitchen category page.")
 * // { similarity: 0.94…, substitutions: [{ from: ["electronics"], to: "Kitchen", strength: 1 }] }
 */
import { FRAME_WORDS, terms, tokenize, safeDecode } from "./Text.ts"
import type { Token } from "./Text.ts"

export interface Substitution {
  /** The recorded instruction's span, as lower-cased tokens (punctuation included). */
  readonly from: ReadonlyArray<string>
  /** The new instruction's span, as written. */
  readonly to: string
  /** 1 for a value (quoted, a number, a name, an e-mail); 0.5 for a short lower-case swap ("express" / "standard"). */
  readonly strength: number
}

export interface Alignment {
  /** Weighted Dice of the two token sequences, with substituted parameters nearly free: 1 for equal instructions. */
  readonly similarity: number
  readonly substitutions: ReadonlyArray<Substitution>
}

/** A punctuation token anchors an alignment but says little about the task. */
const PUNCT_WEIGHT = 0.2
/** What one parameter slot costs, so a recorded instruction equal to the new one still beats a substituted one. */
const PARAM_COST = 0.5
/** A gap longer than this (unless all value-like) is a clause of its own, not a parameter. */
const MAX_PARAM_WORDS = 8

const isWord = (t: Token): boolean => t.kind !== "punct"

const trimFrame = (ts: ReadonlyArray<Token>): ReadonlyArray<Token> => {
  let a = 0
  let b = ts.length
  const frame = (t: Token) => t.kind === "punct" || FRAME_WORDS.has(t.norm)
  while (a < b && frame(ts[a]!)) a++
  while (b > a && frame(ts[b - 1]!)) b--
  return ts.slice(a, b)
}

/** How much a span looks like a parameter value (see Substitution.strength); 0 when it does not. */
const strengthOf = (core: ReadonlyArray<Token>, anchored: boolean): number => {
  const words = core.filter(isWord)
  if (words.length === 0) return 0
  const allStrong = words.every((t) => t.strong)
  if (words.length > MAX_PARAM_WORDS && !allStrong) return 0
  if (words.some((t) => t.strong)) return 1
  const content = words.filter((t) => !FRAME_WORDS.has(t.norm))
  if (content.length > 0 && content.every((t) => t.capitalised)) return 1
  return anchored && words.length <= 2 ? 0.5 : 0
}

/** Runs split at punctuation and at word/number boundaries: "Springfield 12345" → ["springfield"], ["12345"]. */
const segments = (core: ReadonlyArray<Token>): ReadonlyArray<ReadonlyArray<Token>> => {
  const out: Array<Array<Token>> = []
  let run: Array<Token> = []
  for (const t of core) {
    const prev = run.at(-1)
    if (t.kind === "punct" || (prev !== undefined && (prev.kind === "number") !== (t.kind === "number"))) {
      if (run.length > 0) out.push(run)
      run = t.kind === "punct" ? [] : [t]
    } else run.push(t)
  }
  if (run.length > 0) out.push(run)
  return out
}

const textOf = (s: string, ts: ReadonlyArray<Token>): string => s.slice(ts[0]!.start, ts[ts.length - 1]!.end)

export const alignInstructions = (example: string, input: string, weight: (term: string) => number = () => 1): Alignment => {
  const a = tokenize(example)
  const b = tokenize(input)
  const w = (t: Token): number => (t.kind === "punct" ? PUNCT_WEIGHT : weight(t.norm))
  const n = a.length
  const m = b.length
  const cols = m + 1
  // best[i][j]: the heaviest common subsequence of a[i..] and b[j..]
  const best = new Float64Array((n + 1) * cols)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const skip = Math.max(best[(i + 1) * cols + j]!, best[i * cols + j + 1]!)
      best[i * cols + j] = a[i]!.norm === b[j]!.norm ? Math.max(skip, w(a[i]!) + best[(i + 1) * cols + j + 1]!) : skip
    }
  }
  let matched = 0
  let cost = 0
  const found: Array<Substitution> = []
  // anchored: matched wording on both sides; an unanchored lower-case swap is the template's own verb or ending
  const gap = (ga: ReadonlyArray<Token>, gb: ReadonlyArray<Token>, anchored: boolean): void => {
    const total = ga.reduce((s, t) => s + w(t), 0) + gb.reduce((s, t) => s + w(t), 0)
    const ca = trimFrame(ga)
    const cb = trimFrame(gb)
    const strength = Math.min(strengthOf(ca, anchored), strengthOf(cb, anchored))
    if (strength === 0) {
      cost += total
      return
    }
    const core = ca.reduce((s, t) => s + w(t), 0) + cb.reduce((s, t) => s + w(t), 0)
    cost += total - core + (1 - strength) * core + strength * PARAM_COST
    found.push({ from: ca.map((t) => t.norm), to: textOf(input, cb), strength })
    const sa = segments(ca)
    const sb = segments(cb)
    if (sa.length > 1 && sa.length === sb.length) {
      sa.forEach((x, k) => {
        const y = sb[k]!
        if (x.map((t) => t.norm).join(" ") !== y.map((t) => t.norm).join(" "))
          found.push({ from: x.map((t) => t.norm), to: textOf(input, y), strength })
      })
    }
  }
  let i = 0
  let j = 0
  let gi = 0
  let gj = 0
  while (i < n && j < m) {
    const here = best[i * cols + j]!
    if (a[i]!.norm === b[j]!.norm && here === w(a[i]!) + best[(i + 1) * cols + j + 1]!) {
      if (gi < i || gj < j) gap(a.slice(gi, i), b.slice(gj, j), gi > 0 && gj > 0)
      matched += w(a[i]!)
      i++
      j++
      gi = i
      gj = j
    } else if (best[(i + 1) * cols + j]! >= best[i * cols + j + 1]!) i++
    else j++
  }
  if (gi < n || gj < m) gap(a.slice(gi), b.slice(gj), false)
  const denominator = 2 * matched + cost
  return { similarity: denominator === 0 ? 0 : (2 * matched) / denominator, substitutions: unambiguous(found) }
}

/** One replacement per recorded span: a span the new instruction fills two ways is no parameter to copy. */
const unambiguous = (subs: ReadonlyArray<Substitution>): ReadonlyArray<Substitution> => {
  const byFrom = new Map<string, Substitution | null>()
  for (const s of subs) {
    const key = s.from.join(" ")
    const seen = byFrom.get(key)
    if (seen === undefined) byFrom.set(key, s)
    else if (seen !== null && seen.to.toLowerCase() !== s.to.toLowerCase()) byFrom.set(key, null)
  }
  return [...byFrom.values()]
    .filter((s): s is Substitution => s !== null)
    .sort((x, y) => y.from.length - x.from.length || y.strength - x.strength || (x.from.join(" ") < y.from.join(" ") ? -1 : 1))
}

export interface Substituted {
  readonly text: string
  /** Terms the substitutions brought in: a grounded element must show them all. */
  readonly introduced: ReadonlyArray<string>
}

/** The recorded text with every recorded parameter span replaced by the new one, longest spans first. */
export const substitute = (text: string, subs: ReadonlyArray<Substitution>): Substituted => {
  if (subs.length === 0) return { text, introduced: [] }
  const lower = text.toLowerCase()
  if (!subs.some((s) => lower.includes(s.from[0] ?? ""))) return { text, introduced: [] }
  const ts = tokenize(text)
  let out = ""
  let last = 0
  const introduced: Array<string> = []
  let i = 0
  while (i < ts.length) {
    const sub = subs.find((s) => s.from.length > 0 && s.from.every((f, k) => ts[i + k]?.norm === f))
    if (sub === undefined) {
      i++
      continue
    }
    out += text.slice(last, ts[i]!.start) + sub.to
    introduced.push(...terms(sub.to))
    last = ts[i + sub.from.length - 1]!.end
    i += sub.from.length
  }
  return { text: out + text.slice(last), introduced }
}

const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-|-$/g, "")

/**
 * A page key with parameters substituted where the page spells them: path segments as
 * slugs (`/category/electronics` → `/category/kitchen`), query values as text.
 */
export const substitutePage = (key: string | null, subs: ReadonlyArray<Substitution>): string | null => {
  if (key === null || subs.length === 0) return key
  const q = key.indexOf("?")
  const path = (q < 0 ? key : key.slice(0, q)).split("/").map((segment) => {
    const decoded = safeDecode(segment)
    const spaced = decoded.replace(/[-_+]+/g, " ")
    const r = substitute(spaced, subs)
    return r.text === spaced ? segment : encodeURIComponent(slug(r.text))
  })
  if (q < 0) return path.join("/")
  const params = new URLSearchParams(key.slice(q + 1))
  const out = new URLSearchParams()
  for (const [k, v] of params) out.append(k, substitute(v, subs).text)
  return `${path.join("/")}?${out.toString()}`
}
