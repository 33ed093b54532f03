/** The shop's shell and shared pieces: header with search and category navigation, product lists, paging, form fields. */
import { documentHtml, html, htmlResponse } from "../framework/html.ts"
import type { Html, Part } from "../framework/html.ts"
import type { Ctx } from "../framework/site.ts"
import { cartCount, categoryName, formatPrice, ratingOf, reviewsOf } from "./model.ts"
import type { Product, ShopBase, ShopState } from "./types.ts"

export type ShopCtx = Ctx<ShopBase, ShopState>

/** An episode started with `search: "off"` has no search box and no search page: products are found by browsing. */
export const searchOff = (ctx: ShopCtx): boolean => ctx.options.search === "off"

const style = html`<style>
body{font-family:system-ui,sans-serif;margin:0;color:#222}header,main,footer{padding:0.75rem 1.5rem}
header{background:#f3f0ea;border-bottom:1px solid #ddd}header nav ul{list-style:none;padding:0;margin:0.5rem 0;display:flex;gap:1rem;flex-wrap:wrap}
.products{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:1rem}
.products li{border:1px solid #ddd;padding:0.75rem;border-radius:6px}.error{color:#b00020}[role=status]{background:#e8f5e9;padding:0.5rem}
textarea,input,select{max-width:100%;box-sizing:border-box}table{border-collapse:collapse}td,th{padding:0.3rem 0.6rem;border-bottom:1px solid #eee;text-align:left}
</style>`

export const stars = (rating: number | null, count: number): Html =>
  rating === null
    ? html`<span>No reviews yet</span>`
    : html`<span>Rated ${rating.toFixed(1)} out of 5 (${count} ${count === 1 ? "review" : "reviews"})</span>`

/** A whole page. `message` renders as a polite status announcement, the way real sites confirm an action. */
export const shopPage = (ctx: ShopCtx, opts: { title: string; body: Part; status?: number; message?: Part }): Response => {
  const { base, state, href } = ctx
  const body = html`<a href="#main" class="skip">Skip to content</a>
<header><a href="${href("/")}" aria-label="CORE Shop home"><strong>CORE Shop</strong></a>
${
  searchOff(ctx)
    ? ""
    : html`<form role="search" method="get" action="${href("/search")}"><label for="site-search">Search products</label>
<input id="site-search" name="q" type="search" value="${ctx.path === "/search" ? (ctx.query.get("q") ?? "") : ""}"> <button type="submit">Search</button></form>`
}
<nav aria-label="Account"><ul><li><a href="${href("/wishlist")}">Wish list (${state.wishlist.length})</a></li><li><a href="${href("/cart")}">Cart (${cartCount(state)})</a></li><li><a href="${href("/account")}">Account</a></li></ul>
<p>Signed in as ${state.user.name}</p></nav>
<nav aria-label="Categories"><ul>${base.categories.map((c) => html`<li><a href="${href(`/category/${c.id}`)}">${c.name}</a></li>`)}</ul></nav></header>
<main id="main">${opts.message !== undefined && opts.message !== null && opts.message !== "" ? html`<div role="status">${opts.message}</div>` : ""}${opts.body}</main>
<footer><p>CORE Shop — a bundled training site. Prices in US dollars.</p></footer>`
  return htmlResponse(documentHtml({ title: `${opts.title} | CORE Shop`, head: style, body }), opts.status ?? 200)
}

export const productList = (ctx: ShopCtx, products: ReadonlyArray<Product>, label: string): Html =>
  products.length === 0
    ? html`<p>No products found.</p>`
    : html`<ul class="products" aria-label="${label}">${products.map((p) => {
        const reviews = reviewsOf(ctx.base, ctx.state, p.id)
        return html`<li><h3><a href="${ctx.href(`/product/${p.id}`)}">${p.name}</a></h3><p>${formatPrice(p.price)}</p><p>${stars(ratingOf(reviews), reviews.length)}</p><p>${categoryName(ctx.base, p.categoryId)}</p></li>`
      })}</ul>`

export { pagination } from "../framework/paging.ts"

export type Errors = Readonly<Record<string, string>>

/** A labelled input whose error is tied to it with aria-describedby, so the agent hears which field is wrong. */
export const field = (opts: {
  name: string
  label: string
  value: string
  errors: Errors
  type?: string
  required?: boolean
  autocomplete?: string
  idPrefix?: string
}): Html => {
  const id = `${opts.idPrefix ?? ""}${opts.name}`
  const error = opts.errors[opts.name]
  return html`<p><label for="${id}">${opts.label}</label><br>
<input id="${id}" name="${opts.name}" type="${opts.type ?? "text"}" value="${opts.value}"${opts.required ? html` required aria-required="true"` : ""}${opts.autocomplete ? html` autocomplete="${opts.autocomplete}"` : ""}${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""}>
${error && html`<br><span id="${id}-error" class="error">${error}</span>`}</p>`
}

/** The summary at the top of a rejected form; each entry links to its field. */
export const errorSummary = (errors: Errors, labels: Readonly<Record<string, string>>, idPrefix = ""): Html => {
  const names = Object.keys(errors)
  if (names.length === 0) return html``
  return html`<div role="alert" aria-labelledby="error-summary-title"><h2 id="error-summary-title">There ${names.length === 1 ? "is a problem" : `are ${names.length} problems`}</h2>
<ul>${names.map((n) => html`<li><a href="#${idPrefix}${n}">${labels[n] ?? n}: ${errors[n]}</a></li>`)}</ul></div>`
}

/** A one-button form: the standard, script-free way to POST an action. */
export const actionButton = (
  ctx: ShopCtx,
  opts: { action: string; fields: Readonly<Record<string, string>>; label: string; ariaLabel?: string }
): Html =>
  html`<form method="post" action="${ctx.href(opts.action)}" class="inline">${Object.entries(opts.fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit"${opts.ariaLabel ? html` aria-label="${opts.ariaLabel}"` : ""}>${opts.label}</button></form>`
