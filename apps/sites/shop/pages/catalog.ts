/** Browsing and finding: the home page, category listings with paging and sorting, and search with filters. */
import { html } from "../../framework/html.ts"
import { paginate, parseFilters, parseSort, search, sortProducts, SORTS, topRated } from "../model.ts"
import type { Sort } from "../model.ts"
import { pagination, productList, searchOff, shopPage } from "../ui.ts"
import type { ShopCtx } from "../ui.ts"
import { notFound } from "./errors.ts"

const sortSelect = (current: Sort, options: ReadonlyArray<Sort>) =>
  html`<label for="sort">Sort by</label> <select id="sort" name="sort">${options.map((s) => html`<option value="${s}"${s === current ? html` selected` : ""}>${SORTS[s]}</option>`)}</select>`

export const home = (ctx: ShopCtx): Response => {
  const { base, state } = ctx
  // "Top rated" gives the home page its own route to products, besides search and categories.
  const top = topRated(base, state)
  return shopPage(ctx, {
    title: "Home",
    body: html`<h1>Welcome to CORE Shop</h1>
<section aria-labelledby="cats"><h2 id="cats">Shop by category</h2><ul>${base.categories.map(
      (c) => html`<li><a href="${ctx.href(`/category/${c.id}`)}">${c.name}</a> — ${c.blurb}</li>`
    )}</ul></section>
<section aria-labelledby="top"><h2 id="top">Top rated</h2>${productList(ctx, top, "Top rated products")}</section>`
  })
}

const CATEGORY_SORTS: ReadonlyArray<Sort> = ["name", "price-asc", "price-desc", "rating"]

export const category = (ctx: ShopCtx): Response => {
  const { base, state } = ctx
  const c = base.categories.find((x) => x.id === ctx.params.id)
  if (!c) return notFound(ctx, "There is no such category.")
  const sort = parseSort(ctx.query.get("sort"), "name")
  const items = base.products.map((p, i) => ({ p, i, s: 0 })).filter((x) => x.p.categoryId === c.id)
  const paged = paginate(
    sortProducts(base, state, items, CATEGORY_SORTS.includes(sort) ? sort : "name").map((x) => x.p),
    ctx.query.get("page")
  )
  return shopPage(ctx, {
    title: c.name,
    body: html`<nav aria-label="Breadcrumb"><ol><li><a href="${ctx.href("/")}">Home</a></li><li><a href="${ctx.href(`/category/${c.id}`)}" aria-current="page">${c.name}</a></li></ol></nav>
<h1>${c.name}</h1><p>${c.blurb}</p>
<form method="get" action="${ctx.href(`/category/${c.id}`)}">${sortSelect(sort, CATEGORY_SORTS)} <button type="submit">Apply</button></form>
<p>${paged.total} products, page ${paged.page} of ${paged.pages}</p>
${productList(ctx, paged.items, `${c.name} products`)}${pagination(ctx, paged)}`
  })
}

export const searchPage = (ctx: ShopCtx): Response => {
  if (searchOff(ctx)) return notFound(ctx, "Search is not available.")
  const { base, state } = ctx
  const f = parseFilters(ctx.query)
  const paged = paginate(search(base, state, f), ctx.query.get("page"))
  const heading = f.q === "" ? "All products" : `Results for “${f.q}”`
  return shopPage(ctx, {
    title: f.q === "" ? "Search" : `Search: ${f.q}`,
    body: html`<h1>${heading}</h1>
<form method="get" action="${ctx.href("/search")}" aria-label="Search filters">
<p><label for="q">Keywords</label> <input id="q" name="q" type="search" value="${f.q}"></p>
<p><label for="category">Category</label> <select id="category" name="category"><option value="">All categories</option>${base.categories.map(
      (c) => html`<option value="${c.id}"${c.id === f.category ? html` selected` : ""}>${c.name}</option>`
    )}</select></p>
<fieldset><legend>Price (US dollars)</legend><label for="min">Minimum price</label> <input id="min" name="min" type="number" min="0" step="1" value="${f.min ?? ""}">
<label for="max">Maximum price</label> <input id="max" name="max" type="number" min="0" step="1" value="${f.max ?? ""}"></fieldset>
<p>${sortSelect(f.sort, Object.keys(SORTS) as Array<Sort>)}</p>
<button type="submit">Apply filters</button></form>
<p>${paged.total} ${paged.total === 1 ? "result" : "results"}${paged.pages > 1 ? `, page ${paged.page} of ${paged.pages}` : ""}</p>
${productList(ctx, paged.items, "Search results")}${pagination(ctx, paged)}`
  })
}
