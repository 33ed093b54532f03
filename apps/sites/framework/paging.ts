/** Pages of a list and the accessible paging links every site's lists share. */
import { html } from "./html.ts"
import type { Html } from "./html.ts"

export interface Paged<T> {
  readonly items: ReadonlyArray<T>
  readonly page: number
  readonly pages: number
  readonly total: number
}

/** Page `pageParam` (1-based, clamped; anything unparsable is page 1) of `items`. */
export const paginate = <T>(items: ReadonlyArray<T>, pageParam: string | null, pageSize: number): Paged<T> => {
  const pages = Math.max(1, Math.ceil(items.length / pageSize))
  const n = Number(pageParam ?? "1")
  const page = Number.isInteger(n) ? Math.min(Math.max(1, n), pages) : 1
  return { items: items.slice((page - 1) * pageSize, page * pageSize), page, pages, total: items.length }
}

/** Paging links that keep the other query parameters. */
export const pagination = (
  ctx: { readonly query: URLSearchParams; readonly path: string; readonly href: (path: string) => string },
  paged: Paged<unknown>
): Html => {
  if (paged.pages <= 1) return html``
  const link = (page: number): string => {
    const q = new URLSearchParams(ctx.query)
    q.set("page", String(page))
    return `${ctx.href(ctx.path)}?${q}`
  }
  return html`<nav aria-label="Pagination"><ul>
${paged.page > 1 && html`<li><a href="${link(paged.page - 1)}" rel="prev">Previous page</a></li>`}
${Array.from({ length: paged.pages }, (_, i) => i + 1).map((n) =>
  n === paged.page
    ? html`<li><a href="${link(n)}" aria-current="page" aria-label="Page ${n}">${n}</a></li>`
    : html`<li><a href="${link(n)}" aria-label="Page ${n}">${n}</a></li>`
)}
${paged.page < paged.pages && html`<li><a href="${link(paged.page + 1)}" rel="next">Next page</a></li>`}
</ul></nav>`
}
