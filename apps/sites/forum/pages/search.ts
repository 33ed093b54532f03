/** Search over post titles and bodies, filtered by board and sorted by relevance, new or top. */
import { html } from "../../framework/html.ts"
import { paginate, parseFilters, searchPosts } from "../model.ts"
import { forumPage, here, pagination, postList, searchOff } from "../ui.ts"
import { notFound } from "./errors.ts"
import type { ForumCtx } from "../ui.ts"
import { sortSelect } from "./boards.ts"

export const searchPage = (ctx: ForumCtx): Response => {
  if (searchOff(ctx)) return notFound(ctx, "Search is not available.")
  const f = parseFilters(ctx.query)
  const paged = paginate(searchPosts(ctx.state, f), ctx.query.get("page"))
  return forumPage(ctx, {
    title: f.q === "" ? "Search" : `Search: ${f.q}`,
    body: html`<h1>${f.q === "" ? "All posts" : `Results for “${f.q}”`}</h1>
<form method="get" action="${ctx.href("/search")}" aria-label="Search filters">
<p><label for="q">Keywords</label> <input id="q" name="q" type="search" value="${f.q}"></p>
<p><label for="board">Board</label> <select id="board" name="board"><option value="">All boards</option>${ctx.base.boards.map(
      (b) => html`<option value="${b.id}"${b.id === f.board ? html` selected` : ""}>${b.name}</option>`
    )}</select></p>
<p>${sortSelect(f.sort, ["relevance", "new", "top"])}</p>
<button type="submit">Apply filters</button></form>
<p>${paged.total} ${paged.total === 1 ? "result" : "results"}${paged.pages > 1 ? `, page ${paged.page} of ${paged.pages}` : ""}</p>
${postList(ctx, paged.items, "Search results", here(ctx))}${pagination(ctx, paged)}`
  })
}
