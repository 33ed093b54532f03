/**
 * URLs as label functions check them: a regular expression for a page's path and query,
 * with the volatile parts generalised (ids a button minted, timestamps, hex tokens), and
 * the page a typed submission led to, judged by the parameters that carry the typed text.
 *
 * @example
 * urlPattern("/orders/O-1001?m=saved", { minted: true }) // "^/orders/O-\\d+(?=.*[?&]m=saved(&|$))\\?.*$"
 * typedUrlPattern("/s?q=Curlew&go=Go", "Curlew")         // urlPattern("/s?q=Curlew")
 */
export const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Digit runs that are not content ids: 5+ digits (timestamps, big counters) or hex tokens. */
const VOLATILE = /\b[0-9a-f]{12,}\b|\d{5,}/gi

export const generalise = (s: string, minted: boolean): string =>
  escapeRe(s).replace(minted ? /\d+/g : VOLATILE, (m) => (/^\d+$/.test(m) ? "\\d+" : "[0-9a-f]+"))

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi
const ANY_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

/** `generalise`, with every UUID in `s` any UUID (synthesis 7, for ids a button minted). */
const generaliseIds = (s: string, minted: boolean, uuids: boolean): string =>
  uuids && minted
    ? s
        .split(UUID)
        .map((part) => generalise(part, minted))
        .join(ANY_UUID)
    : generalise(s, minted)

/**
 * A regular expression (source) for a URL's path and query: the path literally (volatile
 * parts generalised), each query parameter required in any order, other parameters allowed.
 */
export const urlPattern = (url: string, options: { readonly minted?: boolean; readonly uuids?: boolean } = {}): string => {
  const minted = options.minted === true
  const uuids = options.uuids === true
  const q = url.indexOf("?")
  const path = q < 0 ? url : url.slice(0, q)
  const query = q < 0 ? "" : url.slice(q + 1)
  const params = query.split("&").filter((p) => p !== "")
  const head = `^${generaliseIds(path, minted, uuids)}`
  if (params.length === 0) return `${head}(\\?.*)?$`
  const required = params.map((p) => {
    const eq = p.indexOf("=")
    const key = eq < 0 ? p : p.slice(0, eq)
    const value = eq < 0 ? "" : p.slice(eq + 1)
    return `(?=.*[?&]${escapeRe(key)}=${generaliseIds(value, minted, uuids)}(&|$))`
  })
  return `${head}${required.join("")}\\?.*$`
}

/** A query value (or any URL part) as a person reads it: `Spring+Gala` and `Spring%20Gala` are "Spring Gala". */
export const queryValue = (raw: string): string => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "))
  } catch {
    return raw
  }
}

/** A URL's query parameters in order: each key, its value as written (`raw`) and as a person reads it (`value`); none without `?`. */
export const queryPairs = (url: string | null): ReadonlyArray<{ readonly key: string; readonly raw: string; readonly value: string }> => {
  const q = url?.indexOf("?") ?? -1
  if (url === null || q < 0) return []
  return url
    .slice(q + 1)
    .split("&")
    .flatMap((p) => {
      const eq = p.indexOf("=")
      if (eq <= 0) return []
      const raw = p.slice(eq + 1)
      return [{ key: p.slice(0, eq), raw, value: queryValue(raw) }]
    })
}

/**
 * `urlPattern` for the page a typed submission led to, keeping of its query only the
 * parameters whose value holds the typed text; null when none does (the text went into a
 * form posted elsewhere, and the whole URL is the evidence).
 */
export const typedUrlPattern = (url: string, typed: string): string | null => {
  const q = url.indexOf("?")
  if (q < 0) return null
  const wanted = typed.trim().toLowerCase()
  const params = queryPairs(url)
    .filter((p) => wanted !== "" && p.value.toLowerCase().includes(wanted))
    .map((p) => `${p.key}=${p.raw}`)
  return params.length === 0 ? null : urlPattern(`${url.slice(0, q)}?${params.join("&")}`)
}
