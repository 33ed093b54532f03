/**
 * Server-rendered HTML without a framework: a tagged template that escapes every
 * interpolated value unless it is already `Html`, so user input (reviews, names) can never
 * inject markup into what the agent sees.
 */

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

/** What may be interpolated; `false`, `null` and `undefined` render nothing, so `${cond && html`…`}` works. */
export type Part = Html | string | number | boolean | null | undefined | ReadonlyArray<Part>

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => entities[c]!)

const render = (p: Part): string => {
  if (p === null || p === undefined || typeof p === "boolean") return ""
  if (p instanceof Html) return p.value
  if (Array.isArray(p)) return p.map(render).join("")
  return escapeHtml(String(p))
}

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Part>): Html => {
  let out = strings[0] ?? ""
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "")
  return new Html(out)
}

/** Trusted markup only (never user input). */
export const raw = (s: string): Html => new Html(s)

/** A complete page; `lang` and `<title>` matter because the agent's snapshot starts from them. */
export const documentHtml = (opts: { title: string; body: Html; head?: Html }): string =>
  `<!doctype html>\n${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${opts.title}</title>${opts.head}</head><body>${opts.body}</body></html>`.value}`

export const htmlResponse = (page: string | Html, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(typeof page === "string" ? page : page.value, {
    status,
    // State changes between requests, so a cached page would show the agent stale state.
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...headers }
  })
