/**
 * One loopback Bun server for every bundled site, each under its own path prefix, plus the
 * `/__core/…` control routes (episodes, state API). Only the browser's `core_tenant` cookie
 * says which episode a site request belongs to, so one browser context = one episode.
 *
 * The browser in it is the agent's, and any page it visits may talk to loopback: so starting,
 * resetting and ending episodes takes the episode token (a header no form or cross-origin
 * page can send, and that no response ever contains), and a request naming any other host
 * than this server's loopback address is refused, which defeats DNS rebinding.
 */
import { timingSafeEqual } from "node:crypto"
import { defaultLimits, Episodes, isSeed } from "./episodes.ts"
import type { Episode } from "./episodes.ts"
import { Html, htmlResponse } from "./html.ts"
import { noEpisodePage, indexPage } from "./pages.ts"
import { matchPath, optionsProblem, safePath, splitEpisodeOptions } from "./site.ts"
import type { AnySite, Ctx, Reply } from "./site.ts"

export const TENANT_COOKIE = "core_tenant"
/** Header carrying the state token; without it the state API answers 403. */
export const STATE_TOKEN_HEADER = "x-core-state-token"
/** Header carrying the episode token; without it starting, resetting or ending an episode answers 403. */
export const EPISODE_TOKEN_HEADER = "x-core-episode-token"

export interface StartOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number
  readonly sites: ReadonlyArray<AnySite>
  /** Secret for the state API; a random one when absent. */
  readonly stateToken?: string
  /** Secret for starting, resetting and ending episodes; a random one when absent. */
  readonly episodeToken?: string
  /** Live episodes at most (default 2000): when full, the least recently used one is dropped for a new one. */
  readonly maxEpisodes?: number
  /** An episode with no request for this long is dropped (default 30 minutes). */
  readonly idleMs?: number
  /** Where handler crashes are reported (they also answer 500); stderr by default. */
  readonly onError?: (error: unknown, req: Request) => void
}

export interface SitesServer {
  readonly origin: string
  readonly port: number
  /** The site's home, e.g. "http://127.0.0.1:4312/shop/". */
  readonly siteUrl: (site: string) => string
  /** Only evaluation code gets this: it is what keeps an agent's browser away from the ground truth. */
  readonly stateToken: string
  /** The harness's secret for the episode routes: never given to a browser. */
  readonly episodeToken: string
  readonly episodes: Episodes
  readonly stop: () => Promise<void>
}

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } })

const readCookie = (req: Request, name: string): string | undefined => {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=")
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

const readEpisodeRequest = async (req: Request): Promise<{ site: unknown; seed: unknown; path: unknown }> => {
  const body: unknown = await req.json().catch(() => null)
  if (typeof body !== "object" || body === null) return { site: undefined, seed: undefined, path: undefined }
  const b = body as Record<string, unknown>
  return { site: b.site, seed: b.seed, path: b.path }
}

/** Constant-time, so response timing does not leak how much of a guessed token was right. */
const sameSecret = (given: string | null, secret: string): boolean => {
  if (given === null) return false
  const a = Buffer.from(given)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

export const createSitesServer = (options: StartOptions): SitesServer => {
  const list = options.sites
  const sites = new Map(list.map((s) => [s.name, s] as const))
  if (sites.size !== list.length) throw new Error("two sites share a name")
  const episodes = new Episodes(sites, {
    maxEpisodes: options.maxEpisodes ?? defaultLimits.maxEpisodes,
    idleMs: options.idleMs ?? defaultLimits.idleMs
  })
  const stateToken = options.stateToken ?? crypto.randomUUID()
  const episodeToken = options.episodeToken ?? crypto.randomUUID()

  /** The routes that start, reset and end episodes; null when the request is for none of them. */
  const episodeRoutes = async (req: Request, url: URL): Promise<Response | null> => {
    const path = url.pathname
    const create = path === "/__core/episodes" && req.method === "POST"
    const reset = req.method === "POST" ? matchPath("/__core/episodes/:tenant/reset", path) : null
    const one = req.method === "DELETE" ? matchPath("/__core/episodes/:tenant", path) : null
    if (!create && !reset && !one) return null
    if (!sameSecret(req.headers.get(EPISODE_TOKEN_HEADER), episodeToken))
      return json({ error: `episodes are started by the harness: send the ${EPISODE_TOKEN_HEADER} header` }, 403)
    if (reset) return episodes.reset(reset.tenant!) ? json({ tenant: reset.tenant }) : json({ error: "no such episode" }, 404)
    if (one) return episodes.delete(one.tenant!) ? new Response(null, { status: 204 }) : json({ error: "no such episode" }, 404)
    const r = await readEpisodeRequest(req)
    if (typeof r.site !== "string" || !sites.has(r.site))
      return json({ error: `site must be one of: ${[...sites.keys()].join(", ")}` }, 400)
    if (!isSeed(r.seed)) return json({ error: "seed must be an integer in [0, 2^32)" }, 400)
    if (r.path !== undefined && (typeof r.path !== "string" || safePath(r.path, "") === ""))
      return json({ error: "path must be a site-relative path starting with '/'" }, 400)
    const start = typeof r.path === "string" ? splitEpisodeOptions(r.path) : null
    const problem = start === null ? null : optionsProblem(sites.get(r.site)!, start.options)
    if (problem !== null) return json({ error: problem }, 400)
    if (!episodes.makeRoom()) return json({ error: "every live episode is pinned: no room for another" }, 503)
    const e = episodes.create(r.site, r.seed, { options: start?.options ?? {} })
    const enter = `/__core/enter/${e.tenant}${start === null ? "" : `?path=${encodeURIComponent(start.path)}`}`
    return json({ tenant: e.tenant, site: e.site.name, seed: e.seed, startUrl: `${url.origin}${enter}` }, 201)
  }

  const control = async (req: Request, url: URL): Promise<Response> => {
    const path = url.pathname
    if (path === "/__core/health") return json({ ok: true, sites: [...sites.keys()], episodes: episodes.size })
    if (path === "/__core/sites")
      return json([...sites.values()].map((s) => ({ name: s.name, title: s.title, url: `${url.origin}/${s.name}/` })))
    const episodeReply = await episodeRoutes(req, url)
    if (episodeReply) return episodeReply
    const enter = matchPath("/__core/enter/:tenant", path)
    if (enter && req.method === "GET") {
      const e = episodes.get(enter.tenant!)
      if (!e) return noEpisodePage("This episode does not exist or has ended.")
      const inside = safePath(url.searchParams.get("path") ?? "/", "")
      if (inside === "")
        return new Response("path must be a path inside the site\n", { status: 400, headers: { "content-type": "text/plain" } })
      const target = `/${e.site.name}${inside}`
      return new Response(null, {
        status: 303,
        headers: {
          location: target,
          "set-cookie": `${TENANT_COOKIE}=${e.tenant}; Path=/; HttpOnly; SameSite=Lax`,
          "cache-control": "no-store"
        }
      })
    }
    const state = matchPath("/__core/state/:tenant", path)
    if (state && req.method === "GET") {
      if (!sameSecret(req.headers.get(STATE_TOKEN_HEADER), stateToken))
        return json({ error: `the state API is for evaluation code only: send the ${STATE_TOKEN_HEADER} header` }, 403)
      const e = episodes.get(state.tenant!)
      if (!e) return json({ error: "no such episode" }, 404)
      const withBase = url.searchParams.get("base") === "1"
      return json({ tenant: e.tenant, site: e.site.name, seed: e.seed, state: e.state, ...(withBase ? { base: e.base } : {}) })
    }
    return json({ error: `no control route ${req.method} ${path}` }, 404)
  }

  const siteRequest = async (req: Request, url: URL, site: AnySite): Promise<Response> => {
    const prefix = `/${site.name}`
    if (url.pathname === prefix) return new Response(null, { status: 308, headers: { location: `${prefix}/${url.search}` } })
    const tenant = readCookie(req, TENANT_COOKIE)
    if (tenant === undefined) return noEpisodePage("No episode is active in this browser: there is no core_tenant cookie.")
    const e: Episode | undefined = episodes.get(tenant)
    if (!e) return noEpisodePage("This browser's episode does not exist or has ended.")
    if (e.site !== site) return noEpisodePage(`This browser's episode is for the ${e.site.title} site, not ${site.title}.`)
    const method = req.method === "HEAD" ? "GET" : req.method
    if (method !== "GET" && method !== "POST") return new Response("method not allowed", { status: 405 })
    const form = method === "POST" ? new URLSearchParams(await req.text()) : new URLSearchParams()
    const path = url.pathname.slice(prefix.length) || "/"
    const href = (p: string): string => `${prefix}${p}`
    const ctxFor = (params: Record<string, string>): Ctx<unknown, unknown> => ({
      req,
      url,
      path,
      params,
      query: url.searchParams,
      form,
      base: e.base,
      state: e.state,
      tenant: e.tenant,
      seed: e.seed,
      options: e.options,
      href,
      redirect: (p) => new Response(null, { status: 303, headers: { location: href(p), "cache-control": "no-store" } })
    })
    const toResponse = (r: Reply): Response => (r instanceof Html ? htmlResponse(r) : r)
    let pathMatched = false
    for (const route of site.routes) {
      const params = matchPath(route.path, path)
      if (!params) continue
      pathMatched = true
      if (route.method === method) return toResponse(route.handler(ctxFor(params)))
    }
    if (pathMatched) return new Response("method not allowed", { status: 405 })
    const nf = toResponse(site.notFound(ctxFor({})))
    return nf.status === 200 ? new Response(nf.body, { status: 404, headers: nf.headers }) : nf
  }

  // Filled in once the port is known; requests cannot arrive before.
  let hosts = new Set<string>()
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    fetch: async (req) => {
      if (!hosts.has((req.headers.get("host") ?? "").toLowerCase())) {
        return new Response(`misdirected request: this server answers only to ${[...hosts].join(", ")}\n`, {
          status: 421,
          headers: { "content-type": "text/plain" }
        })
      }
      const url = new URL(req.url)
      try {
        if (url.pathname === "/") return indexPage([...sites.values()])
        if (url.pathname.startsWith("/__core/")) return await control(req, url)
        const site = sites.get(url.pathname.split("/")[1] ?? "")
        if (site) return await siteRequest(req, url, site)
        return new Response("not found", { status: 404 })
      } catch (err) {
        ;(options.onError ?? ((e, r) => console.error(`sites: ${r.method} ${new URL(r.url).pathname}:`, e)))(err, req)
        return new Response("internal error", { status: 500 })
      }
    }
  })
  const origin = `http://127.0.0.1:${server.port}`
  hosts = new Set([`127.0.0.1:${server.port}`, `localhost:${server.port}`, `[::1]:${server.port}`])
  return {
    origin,
    port: server.port!,
    siteUrl: (name) => {
      if (!sites.has(name)) throw new Error(`unknown site '${name}'`)
      return `${origin}/${name}/`
    },
    stateToken,
    episodeToken,
    episodes,
    stop: () => server.stop(true)
  }
}
