/**
 * One loopback Bun server for every bundled site, each under its own path prefix, plus the
 * `/__core/…` control routes (episodes, state API). Only the browser's `core_tenant` cookie
 * says which episode a site request belongs to, so one browser context = one episode.
 */
import { Episodes, isSeed } from "./episodes.ts"
import type { Episode } from "./episodes.ts"
import { Html, htmlResponse } from "./html.ts"
import { noEpisodePage, indexPage } from "./pages.ts"
import { matchPath, safePath } from "./site.ts"
import type { AnySite, Ctx, Reply } from "./site.ts"

export const TENANT_COOKIE = "core_tenant"
/** Header carrying the state token; without it the state API answers 403. */
export const STATE_TOKEN_HEADER = "x-core-state-token"

export interface StartOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number
  readonly sites: ReadonlyArray<AnySite>
  /** Secret for the state API; a random one when absent. */
  readonly stateToken?: string
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

const readEpisodeRequest = async (req: Request): Promise<{ site: unknown; seed: unknown; path: unknown; form: boolean }> => {
  const type = req.headers.get("content-type") ?? ""
  if (type.includes("application/x-www-form-urlencoded")) {
    const f = new URLSearchParams(await req.text())
    const seed = f.get("seed")
    return { site: f.get("site"), seed: seed === null || seed.trim() === "" ? null : Number(seed), path: f.get("path") ?? undefined, form: true }
  }
  const body: unknown = await req.json().catch(() => null)
  if (typeof body !== "object" || body === null) return { site: undefined, seed: undefined, path: undefined, form: false }
  const b = body as Record<string, unknown>
  return { site: b.site, seed: b.seed, path: b.path, form: false }
}

export const createSitesServer = (options: StartOptions): SitesServer => {
  const list = options.sites
  const sites = new Map(list.map((s) => [s.name, s] as const))
  if (sites.size !== list.length) throw new Error("two sites share a name")
  const episodes = new Episodes(sites)
  const stateToken = options.stateToken ?? crypto.randomUUID()

  const control = async (req: Request, url: URL): Promise<Response> => {
    const path = url.pathname
    if (path === "/__core/health") return json({ ok: true, sites: [...sites.keys()], episodes: episodes.size })
    if (path === "/__core/sites") return json([...sites.values()].map((s) => ({ name: s.name, title: s.title, url: `${url.origin}/${s.name}/` })))
    if (path === "/__core/episodes" && req.method === "POST") {
      const r = await readEpisodeRequest(req)
      if (typeof r.site !== "string" || !sites.has(r.site)) return json({ error: `site must be one of: ${[...sites.keys()].join(", ")}` }, 400)
      if (!isSeed(r.seed)) return json({ error: "seed must be an integer in [0, 2^32)" }, 400)
      if (r.path !== undefined && (typeof r.path !== "string" || safePath(r.path, "") === "")) return json({ error: "path must be a site-relative path starting with '/'" }, 400)
      const e = episodes.create(r.site, r.seed)
      const enter = `/__core/enter/${e.tenant}${typeof r.path === "string" ? `?path=${encodeURIComponent(r.path)}` : ""}`
      if (r.form) return new Response(null, { status: 303, headers: { location: enter } })
      return json({ tenant: e.tenant, site: e.site.name, seed: e.seed, startUrl: `${url.origin}${enter}` }, 201)
    }
    const enter = matchPath("/__core/enter/:tenant", path)
    if (enter && req.method === "GET") {
      const e = episodes.get(enter.tenant!)
      if (!e) return noEpisodePage("This episode does not exist or has ended.")
      const target = `/${e.site.name}${safePath(url.searchParams.get("path"), "/")}`
      return new Response(null, {
        status: 303,
        headers: { location: target, "set-cookie": `${TENANT_COOKIE}=${e.tenant}; Path=/; HttpOnly; SameSite=Lax`, "cache-control": "no-store" }
      })
    }
    const reset = matchPath("/__core/episodes/:tenant/reset", path)
    if (reset && req.method === "POST") return episodes.reset(reset.tenant!) ? json({ tenant: reset.tenant }) : json({ error: "no such episode" }, 404)
    const one = matchPath("/__core/episodes/:tenant", path)
    if (one && req.method === "DELETE") return episodes.delete(one.tenant!) ? new Response(null, { status: 204 }) : json({ error: "no such episode" }, 404)
    const state = matchPath("/__core/state/:tenant", path)
    if (state && req.method === "GET") {
      if (req.headers.get(STATE_TOKEN_HEADER) !== stateToken) return json({ error: `the state API is for evaluation code only: send the ${STATE_TOKEN_HEADER} header` }, 403)
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
      req, url, path, params, query: url.searchParams, form, base: e.base, state: e.state, tenant: e.tenant, seed: e.seed, href,
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

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    fetch: async (req) => {
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
  return {
    origin,
    port: server.port!,
    siteUrl: (name) => {
      if (!sites.has(name)) throw new Error(`unknown site '${name}'`)
      return `${origin}/${name}/`
    },
    stateToken,
    episodes,
    stop: () => server.stop(true)
  }
}
