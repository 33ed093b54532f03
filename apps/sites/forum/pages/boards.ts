/** Browsing: the home page (boards and popular posts) and a board's posts, sorted by new or top, paged. */
import { html } from "../../framework/html.ts"
import { boardById, paginate, parseSort, popularPosts, sortPosts, SORTS } from "../model.ts"
import type { Sort } from "../model.ts"
import { forumPage, here, pagination, postList } from "../ui.ts"
import type { ForumCtx } from "../ui.ts"
import { notFound } from "./errors.ts"

export const sortSelect = (current: Sort, options: ReadonlyArray<Sort>) =>
  html`<label for="sort">Sort by</label> <select id="sort" name="sort">${options.map((s) => html`<option value="${s}"${s === current ? html` selected` : ""}>${SORTS[s]}</option>`)}</select>`

export const home = (ctx: ForumCtx): Response => {
  const { base, state } = ctx
  const popular = popularPosts(state.posts)
  return forumPage(ctx, {
    title: "Home",
    body: html`<h1>Welcome to CORE Forum</h1>
<section aria-labelledby="boards"><h2 id="boards">Boards</h2><ul aria-label="All boards">${base.boards.map((b) => {
      const n = state.posts.filter((p) => p.boardId === b.id).length
      return html`<li><a href="${ctx.href(`/b/${b.id}`)}">${b.name}</a> — ${b.description} (${n} ${n === 1 ? "post" : "posts"})</li>`
    })}</ul><p><a href="${ctx.href("/users")}">Browse all members</a></p></section>
<section aria-labelledby="popular"><h2 id="popular">Popular posts</h2>${postList(ctx, popular, "Popular posts", "/")}</section>`
  })
}

const BOARD_SORTS: ReadonlyArray<Sort> = ["new", "top"]

export const boardPage = (ctx: ForumCtx): Response => {
  const b = boardById(ctx.base, ctx.params.id ?? "")
  if (!b) return notFound(ctx, "There is no such board.")
  const sort = parseSort(ctx.query.get("sort"), BOARD_SORTS, "new")
  const paged = paginate(
    sortPosts(
      ctx.state.posts.filter((p) => p.boardId === b.id),
      sort
    ),
    ctx.query.get("page")
  )
  const m = ctx.query.get("m")
  return forumPage(ctx, {
    title: b.name,
    message: m === "deleted" ? "Your post has been deleted." : undefined,
    body: html`<nav aria-label="Breadcrumb"><ol><li><a href="${ctx.href("/")}">Home</a></li><li><a href="${ctx.href(`/b/${b.id}`)}" aria-current="page">${b.name}</a></li></ol></nav>
<h1>${b.name}</h1><p>${b.description}</p><p><a href="${ctx.href(`/submit?board=${b.id}`)}">Create a post in ${b.name}</a></p>
<form method="get" action="${ctx.href(`/b/${b.id}`)}" aria-label="Sort posts">${sortSelect(sort, BOARD_SORTS)} <button type="submit">Apply</button></form>
<p>${paged.total} ${paged.total === 1 ? "post" : "posts"}, page ${paged.page} of ${paged.pages}</p>
${postList(ctx, paged.items, `Posts in ${b.name}`, here(ctx))}${pagination(ctx, paged)}`
  })
}
