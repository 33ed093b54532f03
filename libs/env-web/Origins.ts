/**
 * Which URLs an episode may reach: only its app's own origins. Demos are replayed as
 * written and policies emit any URL, so without this rule a `navigate` (or a link, a
 * redirect, an image) could read local files or another service on this machine and turn
 * what it saw into observations, blobs and exported datasets. Pure: both web platforms
 * (Playwright and WebDriver) apply the same rule with their own means.
 *
 * @example
 * const allowed = appOrigins("http://127.0.0.1:4312/shop", undefined) // ["http://127.0.0.1:4312"]
 * checkNavigation("file:///etc/passwd", allowed, null) // { error: "navigate refused: file:///etc/passwd is outside …" }
 * checkNavigation("/cart", allowed, "http://127.0.0.1:4312/shop") // { url: "http://127.0.0.1:4312/cart" }
 */

/** Schemes that name a server the episode could talk to; every other scheme is refused outright. */
const webSchemes: ReadonlySet<string> = new Set(["http:", "https:"])

const parse = (url: string, base?: string | null): URL | null => {
  try {
    return base === undefined || base === null ? new URL(url) : new URL(url, base)
  } catch {
    return null
  }
}

/** An origin as the browser writes it (`http://host:port`, default port dropped), or null for anything but http(s). */
export const originOf = (url: string): string | null => {
  const parsed = parse(url)
  return parsed !== null && webSchemes.has(parsed.protocol) ? parsed.origin : null
}

/**
 * The origins of an episode: the explicit list when there is one, else the start URL's.
 * Entries that are not http(s) origins are dropped, never widened: `file:` has origin "null".
 */
export const appOrigins = (startUrl: string | undefined, origins: ReadonlyArray<string> | undefined): ReadonlyArray<string> => {
  const listed = origins ?? (startUrl === undefined ? [] : [startUrl])
  return [...new Set(listed.map(originOf).filter((o): o is string => o !== null))]
}

/** True when `url` (absolute) is on one of the allowed origins. */
export const isAllowed = (url: string, allowed: ReadonlyArray<string>): boolean => {
  const origin = originOf(url)
  return origin !== null && allowed.includes(origin)
}

export const refusal = (url: string, allowed: ReadonlyArray<string>): string =>
  `navigate refused: ${url} is outside this app's origins (${allowed.length === 0 ? "none" : allowed.join(", ")})`

/**
 * A navigation target checked before anything is sent: relative URLs resolve against the
 * current page, then only http(s) on an allowed origin passes.
 */
export const checkNavigation = (
  url: string,
  allowed: ReadonlyArray<string>,
  current: string | null
): { readonly url: string } | { readonly error: string } => {
  const base = current !== null && originOf(current) !== null ? current : null
  const resolved = parse(url, base)
  if (resolved === null) return { error: `navigate refused: ${JSON.stringify(url)} is not a URL` }
  return isAllowed(resolved.href, allowed) ? { url: resolved.href } : { error: refusal(resolved.href, allowed) }
}

/**
 * Chromium's proxy bypass list for `origins` (host:port, default ports spelled out): what
 * goes direct when everything else is sent to a dead end.
 */
export const proxyBypass = (origins: ReadonlyArray<string>): string =>
  origins
    .map((o) => {
      const url = new URL(o)
      return `${url.hostname}:${url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port}`
    })
    .join(",")
