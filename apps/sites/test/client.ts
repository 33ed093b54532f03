/** A tiny cookie-keeping HTTP client that behaves like a browser without JS: follows redirects, POSTs forms. */
import { EPISODE_TOKEN_HEADER, startSites } from "../mod.ts"
import type { SitesServer } from "../mod.ts"

export interface Page {
  readonly status: number
  /** Path + query of the final URL after redirects. */
  readonly path: string
  readonly text: string
}

export class Browser {
  private cookies = new Map<string, string>()
  constructor(readonly origin: string) {}

  async request(path: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Page> {
    let url = new URL(path, this.origin)
    let method = init.method ?? (init.form ? "POST" : "GET")
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined
    for (let hop = 0; hop < 10; hop++) {
      const headers: Record<string, string> = {}
      if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
      if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded"
      const res = await fetch(url, { method, headers, body, redirect: "manual" })
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(";")
        const eq = pair!.indexOf("=")
        this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1))
      }
      const location = res.headers.get("location")
      if (res.status >= 300 && res.status < 400 && location) {
        url = new URL(location, url)
        if (res.status === 303) {
          method = "GET"
          body = undefined
        }
        continue
      }
      return { status: res.status, path: url.pathname + url.search, text: await res.text() }
    }
    throw new Error(`too many redirects from ${path}`)
  }

  get(path: string): Promise<Page> {
    return this.request(path)
  }

  post(path: string, form: Record<string, string>): Promise<Page> {
    return this.request(path, { form })
  }
}

export const startEpisode = async (
  server: SitesServer,
  site: string,
  seed: number,
  path?: string
): Promise<{ tenant: string; browser: Browser; first: Page }> => {
  const res = await fetch(`${server.origin}/__core/episodes`, {
    method: "POST",
    headers: { "content-type": "application/json", [EPISODE_TOKEN_HEADER]: server.episodeToken },
    body: JSON.stringify({ site, seed, path })
  })
  if (res.status !== 201) throw new Error(`episode: ${res.status} ${await res.text()}`)
  const { tenant, startUrl } = (await res.json()) as { tenant: string; startUrl: string }
  const browser = new Browser(server.origin)
  const first = await browser.get(startUrl)
  return { tenant, browser, first }
}

export const withServer = (): { server: () => SitesServer; start: () => void; stop: () => Promise<void> } => {
  let s: SitesServer | undefined
  return {
    server: () => s!,
    start: () => {
      s = startSites({ port: 0 })
    },
    stop: async () => {
      await s?.stop()
    }
  }
}

/** Visible text of the page, tags stripped and whitespace collapsed, for "does the page say X" checks. */
export const textOf = (page: Page): string =>
  page.text
    .replace(/<style[\s\S]*?<\/style>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, " ")

/** The hrefs of links whose text contains `text`. */
export const linksTo = (page: Page, text: string): Array<string> =>
  [...page.text.matchAll(/<a [^>]*href="([^"]+)"[^>]*>([\s\S]*?)<\/a>/g)]
    .filter((m) => m[2]!.replace(/<[^>]+>/g, "").includes(text))
    .map((m) => m[1]!.replace(/&amp;/g, "&"))
