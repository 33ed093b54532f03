/**
 * What stands between the console and everyone but whoever started it: other users of the
 * machine and other web pages in the same browser. The console only reads, but its pages
 * show everything a run saw and typed, and the what-if form runs code in the sandbox, so:
 * - a Host header other than the bound address is refused: a page on another site that
 *   rebinds its DNS name to 127.0.0.1 still sends its own name as Host;
 * - every request needs the per-launch token, once on the URL and then in an HttpOnly
 *   SameSite=Strict cookie: loopback is no boundary, since every user of the machine reaches
 *   it, and a browser sends a Strict cookie with no request another site starts;
 * - a POST (the what-if runs code) must also come from the console's own page: its Origin,
 *   or Sec-Fetch-Site when the browser hides the Origin. Ports share cookies, so a page
 *   another user serves on 127.0.0.1 is same-site and its form would carry the cookie;
 * - every response carries a strict Content-Security-Policy: no inline script or style.
 */
import { timingSafeEqual } from "node:crypto"

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'"
].join("; ")

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

/** A response with the security headers every response carries. */
export const respond = (body: BodyInit | null, status: number, headers: Readonly<Record<string, string>> = {}): Response =>
  new Response(body, { status, headers: { ...headers, ...SECURITY_HEADERS } })

/** A one-line plain-text response (refusals, not found). */
export const textResponse = (status: number, line: string): Response =>
  respond(`${line}\n`, status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" })

/** Constant-time: how much of a guess matched must not show in the response time. */
export const sameToken = (given: string | null | undefined, token: string): boolean => {
  if (typeof given !== "string" || given.length !== token.length) return false
  return timingSafeEqual(Buffer.from(given), Buffer.from(token))
}

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1"]

/** Only the machine itself can reach an address like this. */
export const isLoopback = (host: string): boolean => host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** Every interface: the Host a browser sends is whatever name reached the machine. */
const isWildcard = (host: string): boolean => host === "0.0.0.0" || host === "::" || host === "[::]"

/** `host:port` as a URL and a Host header spell it (IPv6 in brackets). */
export const hostPort = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`

export interface Guard {
  readonly token: string
  /** `name=value`: what a client other than a browser sends as its Cookie header. */
  readonly cookie: string
  /** The request's URL, or a refusal (401 without the token, 403 for a foreign Host). */
  readonly admit: (req: Request) => URL | Response
  /** Whether an admitted POST comes from the console's own page. */
  readonly postAllowed: (req: Request) => boolean
}

const cookieValue = (req: Request, name: string): string | null => {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=")
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

export const makeGuard = (options: { host: string; port: number; token: string }): Guard => {
  const { host, port, token } = options
  const names = isLoopback(host) ? [host, ...LOOPBACK_NAMES] : [host]
  // A browser leaves the default port out of the Host header.
  const allowed = new Set(
    names.flatMap((h) => [hostPort(h, port), ...(port === 80 ? [hostPort(h, port).slice(0, -3)] : [])]).map((h) => h.toLowerCase())
  )
  const anyHost = isWildcard(host)
  // Cookies are not kept apart by port: two consoles on one machine must not overwrite each other's.
  const cookie = `core-console-${port}`

  const hostOk = (req: Request): boolean => {
    const given = (req.headers.get("host") ?? "").toLowerCase()
    return anyHost ? given !== "" : allowed.has(given)
  }

  const admit = (req: Request): URL | Response => {
    // Before the URL is parsed: Bun builds it from the Host header.
    if (!hostOk(req)) return textResponse(403, "forbidden: this console answers only to its own address (Host header)")
    const url = new URL(req.url)
    const onUrl = url.searchParams.get("token")
    if (onUrl !== null) {
      // 401 like a missing token: either way the request proves nothing about who sent it.
      if (!sameToken(onUrl, token)) return textResponse(401, "unauthorized: wrong token (each launch prints a new one)")
      url.searchParams.delete("token")
      // One leading slash: "//evil.example/x" as a Location is another host's URL.
      const location = `/${url.pathname.replace(/^[/\\]+/, "")}${url.search}`
      return respond(null, 303, {
        location,
        "set-cookie": `${cookie}=${token}; Path=/; HttpOnly; SameSite=Strict`,
        "cache-control": "no-store"
      })
    }
    if (sameToken(cookieValue(req, cookie), token)) return url
    return textResponse(401, "unauthorized: open the console with the URL it printed (it carries ?token=…)")
  }

  const postAllowed = (req: Request): boolean => {
    const origin = req.headers.get("origin")
    // Under `Referrer-Policy: no-referrer` Chromium sends the console's own form with `Origin: null`;
    // Sec-Fetch-Site, which no page can set, still tells the console's own page from another site.
    const ownForm = origin === "null" && req.headers.get("sec-fetch-site") === "same-origin"
    // No Origin at all is no browser (each sends one with a POST): a client that holds the token.
    return origin === null || ownForm || origin.toLowerCase() === `http://${(req.headers.get("host") ?? "").toLowerCase()}`
  }

  return { token, cookie: `${cookie}=${token}`, admit, postAllowed }
}
