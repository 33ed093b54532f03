/**
 * Tokens and pages as the retrieval policy compares them. Tokens keep their offsets into
 * the original text, because a parameter found by alignment is copied out of the new
 * instruction as written ("Blue Mug", not "blue mug") — the page's element names are
 * matched case-insensitively, but typed text is typed exactly.
 */
import { collapse } from "@core/domain"

export type TokenKind = "word" | "number" | "punct"

export interface Token {
  /** Lower-cased word or number, or the punctuation character itself. */
  readonly norm: string
  readonly kind: TokenKind
  readonly start: number
  readonly end: number
  /** Has an upper-case letter and is not the first word of a sentence: a proper name's mark. */
  readonly capitalised: boolean
  /** Inside a quoted phrase, holds a digit, or belongs to an e-mail, path or code: a value, not wording. */
  readonly strong: boolean
}

const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu
const QUOTED = /"([^"]+)"|“([^”]+)”|‘([^’]+)’|(?<![\p{L}\p{N}])'([^']+)'(?![\p{L}\p{N}])/gu
/** A chunk without spaces holding one of these is an identifier (an e-mail, a path, a code). */
const ID_LIKE = /[@/_]|\p{L}\.\p{L}/u
const SENTENCE_END = new Set([".", "!", "?"])

/** Words that frame a parameter rather than belong to it ("the Kitchen", "of Blue Mug"). */
export const FRAME_WORDS = new Set([
  "a",
  "an",
  "the",
  "of",
  "to",
  "in",
  "on",
  "at",
  "for",
  "from",
  "with",
  "and",
  "or",
  "my",
  "me",
  "into",
  "by",
  "as",
  "is",
  "it"
])

const spans = (s: string, re: RegExp): ReadonlyArray<readonly [number, number]> => {
  const out: Array<readonly [number, number]> = []
  for (const m of s.matchAll(re)) out.push([m.index, m.index + m[0].length])
  return out
}

const CHUNK = /\S+/gu

const inside = (regions: ReadonlyArray<readonly [number, number]>, at: number): boolean => regions.some(([a, b]) => at > a && at < b - 1)

const tokenizeUncached = (s: string): ReadonlyArray<Token> => {
  const quoted = /["“‘']/u.test(s) ? spans(s, QUOTED) : []
  const idLike = ID_LIKE.test(s) ? spans(s, CHUNK).filter(([a, b]) => ID_LIKE.test(s.slice(a, b).replace(/[.,;:!?)]+$/u, ""))) : []
  const out: Array<Token> = []
  let sentenceStart = true
  for (const m of s.matchAll(TOKEN)) {
    const raw = m[0]
    const start = m.index
    const kind: TokenKind = /^\p{N}+$/u.test(raw) ? "number" : /[\p{L}\p{N}]/u.test(raw) ? "word" : "punct"
    out.push({
      norm: raw.toLowerCase(),
      kind,
      start,
      end: start + raw.length,
      capitalised: kind === "word" && !sentenceStart && raw !== raw.toLowerCase(),
      strong: kind !== "punct" && (inside(quoted, start) || /\p{N}/u.test(raw) || idLike.some(([a, b]) => start >= a && start < b))
    })
    if (kind !== "punct") sentenceStart = false
    else if (SENTENCE_END.has(raw)) sentenceStart = true
  }
  return out
}

// Deciding re-tokenises the same names, descriptions and instructions at every step;
// the cache only saves time (tokens are immutable), and is dropped whole when full.
const CACHE_LIMIT = 50_000
const cache = new Map<string, ReadonlyArray<Token>>()

export const tokenize = (s: string): ReadonlyArray<Token> => {
  const hit = cache.get(s)
  if (hit !== undefined) return hit
  if (cache.size >= CACHE_LIMIT) cache.clear()
  const tokens = tokenizeUncached(s)
  cache.set(s, tokens)
  return tokens
}

/** Lower-cased words and numbers: what TF-IDF counts. */
export const terms = (s: string): ReadonlyArray<string> =>
  tokenize(s)
    .filter((t) => t.kind !== "punct")
    .map((t) => t.norm)

/**
 * A page's key: path and query of a full or site-relative URL, the path lower-cased without
 * a trailing slash, query parameters sorted. Null when there is no URL (Android).
 */
export const pageKey = (url: string | null): string | null => {
  if (url === null || collapse(url) === "") return null
  let u: URL
  try {
    u = new URL(collapse(url), "http://page.invalid")
  } catch {
    return collapse(url).toLowerCase()
  }
  const path = u.pathname.toLowerCase().replace(/\/+$/, "") || "/"
  const params = [...u.searchParams.entries()]
    .filter(([, v]) => v !== "")
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
  const query = new URLSearchParams(params).toString()
  return query === "" ? path : `${path}?${query}`
}

interface ParsedPage {
  readonly segments: ReadonlyArray<string>
  readonly query: ReadonlyMap<string, string>
}

const parsePage = (key: string): ParsedPage => {
  const q = key.indexOf("?")
  const path = q < 0 ? key : key.slice(0, q)
  const query = new Map<string, string>()
  if (q >= 0) for (const [k, v] of new URLSearchParams(key.slice(q + 1))) query.set(k, collapse(v).toLowerCase())
  return {
    segments: path
      .split("/")
      .filter((s) => s !== "")
      .map(safeDecode),
    query
  }
}

export const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * How alike two pages are, in [0, 1]. Equal segments count 1; two id-like segments (with a
 * digit) 0.9 — `/product/12` is the same page as `/product/7` for another item; another
 * value after an equal prefix 0.6 — `/category/kitchen` is the category page too, just not
 * the one asked for. Another site (first segment) is 0. The query adds a quarter: its keys
 * say which view, its values which filter. Without URLs nothing is known: 0.5.
 */
export const pageSimilarity = (a: string | null, b: string | null): number => {
  if (a === null || b === null) return 0.5
  if (a === b) return 1
  const x = parsePage(a)
  const y = parsePage(b)
  const n = Math.max(x.segments.length, y.segments.length)
  let path = n === 0 ? 1 : 0
  let prefixEqual = true
  for (let i = 0; i < n; i++) {
    const s = x.segments[i]
    const t = y.segments[i]
    if (s === undefined || t === undefined) break
    if (s === t) path += 1
    else if (i === 0) return 0
    else if (/\d/.test(s) && /\d/.test(t)) path += 0.9
    else if (prefixEqual) path += 0.6
    prefixEqual &&= s === t
  }
  if (n > 0) path /= n
  let query = 1
  if (x.query.size > 0 || y.query.size > 0) {
    const keys = new Set([...x.query.keys(), ...y.query.keys()])
    const shared = [...keys].filter((k) => x.query.has(k) && y.query.has(k))
    const sameValues = shared.filter((k) => x.query.get(k) === y.query.get(k)).length
    query = 0.5 * (shared.length / keys.size) + 0.5 * (shared.length === 0 ? 0 : sameValues / shared.length)
  }
  return path * (0.75 + 0.25 * query)
}
