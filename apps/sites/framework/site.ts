/**
 * What a site is: seed-derived data, per-episode state, and routes. Adding a site means
 * writing one `defineSite({...})` and listing it in the registry; the framework does
 * episodes, cookies, routing, form parsing and the state API.
 */
import type { Html } from "./html.ts"

export type Method = "GET" | "POST"

/**
 * What one episode switches on or off in its site (`search: "off"`), fixed when it starts:
 * the same seed's site, with a route taken away. Absent options are the site as it always is.
 */
export type EpisodeOptions = Readonly<Record<string, string>>

/** Everything a handler may use. `base` is shared between episodes and frozen; `state` is this episode's own. */
export interface Ctx<Base, State> {
  readonly req: Request
  readonly url: URL
  /** Path inside the site, e.g. "/product/x" for "/shop/product/x". */
  readonly path: string
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  /** The urlencoded body of a POST (empty for GET). */
  readonly form: URLSearchParams
  readonly base: Base
  readonly state: State
  readonly tenant: string
  readonly seed: number
  /** The episode's options (empty for most episodes). */
  readonly options: EpisodeOptions
  /** Absolute path of a site-relative one: href("/cart") → "/shop/cart". */
  readonly href: (path: string) => string
  /** 303 See Other to a site-relative path: the POST-redirect-GET that keeps forms working without JS. */
  readonly redirect: (path: string) => Response
}

export type Reply = Response | Html

export interface Route<Base, State> {
  readonly method: Method
  /** Site-relative pattern; `:name` matches one segment. */
  readonly path: string
  readonly handler: (ctx: Ctx<Base, State>) => Reply
}

export interface SiteDef<Base, State> {
  /** URL prefix and registry key: lowercase letters only. */
  readonly name: string
  readonly title: string
  /** Pure and deterministic in `seed`: the expensive, immutable part (catalog…), cached per seed. */
  readonly base: (seed: number) => Base
  /** Pure: a fresh mutable state for one episode. Must be cheap — it runs on every episode start. */
  readonly initial: (base: Base, seed: number) => State
  readonly routes: ReadonlyArray<Route<Base, State>>
  /** The episode options the site honours, each with its allowed values; an episode asking for others is refused. */
  readonly options?: Readonly<Record<string, ReadonlyArray<string>>>
  /** The page for an unmatched path inside the site. */
  readonly notFound: (ctx: Ctx<Base, State>) => Reply
}

// The registry holds sites of different state types; handlers only ever see their own.
export type AnySite = SiteDef<any, any>

export const defineSite = <Base, State>(def: SiteDef<Base, State>): SiteDef<Base, State> => {
  if (!/^[a-z]+$/.test(def.name)) throw new Error(`site name '${def.name}' must be lowercase letters`)
  return def
}

/** Matches a site-relative path against a pattern; null when it does not match. */
export const matchPath = (pattern: string, path: string): Record<string, string> | null => {
  const p = pattern.split("/").filter(Boolean)
  const s = path.split("/").filter(Boolean)
  if (p.length !== s.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < p.length; i++) {
    const seg = p[i]!
    let value: string
    try {
      value = decodeURIComponent(s[i]!)
    } catch {
      return null
    }
    if (seg.startsWith(":")) params[seg.slice(1)] = value
    else if (seg !== value) return null
  }
  return params
}

/**
 * A site-relative path from user input (a `return` field, an episode's start path…), or the
 * fallback: never another origin and never above the site's prefix. Browsers treat `\` as
 * `/`, drop tabs and newlines, and resolve `%2e%2e` like `..`, so all of those are refused.
 */
export const safePath = (candidate: string | null, fallback: string): string => {
  if (candidate === null || !candidate.startsWith("/") || candidate.startsWith("//") || /[\\\u0000-\u001f\u007f]/.test(candidate))
    return fallback
  const pathPart = candidate.split(/[?#]/, 1)[0]!
  for (const segment of pathPart.split("/")) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      return fallback
    }
    if (decoded === "." || decoded === ".." || /[/\\]/.test(decoded)) return fallback
  }
  return candidate
}

/**
 * Episode options travel in the start path's query as `__<name>=<value>`: an episode source
 * carries only a site, a seed and a start path. The server takes them out before the browser
 * is sent to the path, so the page the agent first sees never shows them.
 */
const OPTION_PREFIX = "__"

/** `path` with the options added to its query, names sorted (one episode, one path). */
export const withEpisodeOptions = (path: string, options: EpisodeOptions): string => {
  const names = Object.keys(options).sort()
  if (names.length === 0) return path
  const [beforeHash, hash] = path.split("#", 2) as [string, string | undefined]
  const query = names.map((n) => `${OPTION_PREFIX}${encodeURIComponent(n)}=${encodeURIComponent(options[n]!)}`).join("&")
  return `${beforeHash}${beforeHash.includes("?") ? "&" : "?"}${query}${hash === undefined ? "" : `#${hash}`}`
}

/** The inverse of withEpisodeOptions: the path without the options, and the options. */
export const splitEpisodeOptions = (path: string): { readonly path: string; readonly options: EpisodeOptions } => {
  const q = path.indexOf("?")
  if (q < 0) return { path, options: {} }
  const hashAt = path.indexOf("#", q)
  const hash = hashAt < 0 ? "" : path.slice(hashAt)
  const params = new URLSearchParams(path.slice(q + 1, hashAt < 0 ? undefined : hashAt))
  const options: Record<string, string> = {}
  const kept = new URLSearchParams()
  for (const [k, v] of params) {
    if (k.startsWith(OPTION_PREFIX)) options[k.slice(OPTION_PREFIX.length)] = v
    else kept.append(k, v)
  }
  if (Object.keys(options).length === 0) return { path, options }
  const rest = kept.toString()
  return { path: `${path.slice(0, q)}${rest === "" ? "" : `?${rest}`}${hash}`, options }
}

/** Why a site cannot start an episode with these options, or null when it can. */
export const optionsProblem = (site: AnySite, options: EpisodeOptions): string | null => {
  for (const [name, value] of Object.entries(options)) {
    const allowed = site.options?.[name]
    if (allowed === undefined) return `the ${site.name} site has no episode option '${name}'`
    if (!allowed.includes(value)) return `episode option '${name}' of the ${site.name} site takes ${allowed.join(" or ")}, not '${value}'`
  }
  return null
}
