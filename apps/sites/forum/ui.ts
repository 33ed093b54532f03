/** The forum's shell and shared pieces: header with search and board navigation, post lists, votes, paging, form fields. */
import { documentHtml, html, htmlResponse } from "../framework/html.ts"
import type { Html, Part } from "../framework/html.ts"
import type { Ctx } from "../framework/site.ts"
import { boardName, commentsOf, formatDate, myVote } from "./model.ts"
import type { Errors } from "./model.ts"
import type { ForumBase, ForumState, Post, VoteKind } from "./types.ts"

export type ForumCtx = Ctx<ForumBase, ForumState>
export type { Errors } from "./model.ts"

/** An episode started with `search: "off"` has no search box and no search page: posts are found by browsing. */
export const searchOff = (ctx: ForumCtx): boolean => ctx.options.search === "off"

const style = html`<style>
body{font-family:system-ui,sans-serif;margin:0;color:#222}header,main,footer{padding:0.75rem 1.5rem}
header{background:#eef2f7;border-bottom:1px solid #d5dce6}header nav ul{list-style:none;padding:0;margin:0.5rem 0;display:flex;gap:1rem;flex-wrap:wrap}
.posts{list-style:none;padding:0}.posts>li{border-bottom:1px solid #e3e3e3;padding:0.5rem 0}.meta{color:#555;font-size:0.9em}
.replies{margin-left:2rem}.error{color:#b00020}[role=status]{background:#e8f5e9;padding:0.5rem}form.inline{display:inline}
</style>`

/** A whole page. `message` renders as a polite status announcement confirming the last action. */
export const forumPage = (ctx: ForumCtx, opts: { title: string; body: Part; status?: number; message?: Part }): Response => {
  const { base, state, href } = ctx
  const body = html`<a href="#main" class="skip">Skip to content</a>
<header><a href="${href("/")}" aria-label="CORE Forum home"><strong>CORE Forum</strong></a>
${
  searchOff(ctx)
    ? ""
    : html`<form role="search" method="get" action="${href("/search")}"><label for="site-search">Search posts</label>
<input id="site-search" name="q" type="search" value="${ctx.path === "/search" ? (ctx.query.get("q") ?? "") : ""}"> <button type="submit">Search</button></form>`
}
<nav aria-label="Account"><ul><li><a href="${href("/submit")}">Create post</a></li><li><a href="${href(`/u/${state.me}`)}">Your profile</a></li></ul>
<p>Signed in as ${state.me}</p></nav>
<nav aria-label="Boards"><ul>${base.boards.map((b) => html`<li><a href="${href(`/b/${b.id}`)}">${b.name}</a></li>`)}</ul></nav></header>
<main id="main">${opts.message !== undefined && opts.message !== null && opts.message !== "" ? html`<div role="status">${opts.message}</div>` : ""}${opts.body}</main>
<footer><p>CORE Forum — a bundled training site. Times are in UTC.</p></footer>`
  return htmlResponse(documentHtml({ title: `${opts.title} | CORE Forum`, head: style, body }), opts.status ?? 200)
}

/** Up and down buttons; the pressed one says so, and each names what it votes on. */
export const voteButtons = (ctx: ForumCtx, kind: VoteKind, id: string, what: string, score: number, back: string): Html => {
  const mine = myVote(ctx.state, kind, id)
  const button = (dir: "up" | "down", label: string, on: boolean) =>
    html`<form method="post" action="${ctx.href("/vote")}" class="inline"><input type="hidden" name="kind" value="${kind}"><input type="hidden" name="id" value="${id}"><input type="hidden" name="dir" value="${dir}"><input type="hidden" name="return" value="${back}"><button type="submit" aria-pressed="${on ? "true" : "false"}" aria-label="${label} ${what}">${label}</button></form>`
  return html`<div class="votes">${button("up", "Upvote", mine === 1)} <span>Score: ${score}</span> ${button("down", "Downvote", mine === -1)}</div>`
}

export const postMeta = (ctx: ForumCtx, p: Post): Html =>
  html`<span class="meta">in <a href="${ctx.href(`/b/${p.boardId}`)}">${boardName(ctx.base, p.boardId)}</a> by <a href="${ctx.href(`/u/${p.author}`)}">${p.author}</a>, <time datetime="${new Date(p.createdAt).toISOString()}">${formatDate(p.createdAt)}</time>${p.edited ? " (edited)" : ""}</span>`

export const postList = (ctx: ForumCtx, posts: ReadonlyArray<Post>, label: string, back: string): Html =>
  posts.length === 0
    ? html`<p>No posts found.</p>`
    : html`<ul class="posts" aria-label="${label}">${posts.map((p) => {
        const n = commentsOf(ctx.state, p.id).length
        return html`<li><article aria-labelledby="title-${p.id}"><h3 id="title-${p.id}"><a href="${ctx.href(`/post/${p.id}`)}">${p.title}</a></h3>
<p>${postMeta(ctx, p)} · <a href="${ctx.href(`/post/${p.id}#comments`)}">${n} ${n === 1 ? "comment" : "comments"}</a></p>
<div>${voteButtons(ctx, "post", p.id, `post '${p.title}'`, p.score, back)}</div></article></li>`
      })}</ul>`

/** The current path and query (minus any one-off message), to come back to after an action. */
export const here = (ctx: ForumCtx): string => {
  const q = new URLSearchParams(ctx.query)
  q.delete("m")
  return q.size > 0 ? `${ctx.path}?${q}` : ctx.path
}

export { pagination } from "../framework/paging.ts"

const describedBy = (id: string, error: string | undefined): Part => error && html` aria-invalid="true" aria-describedby="${id}-error"`
const errorText = (id: string, error: string | undefined): Part => error && html`<br><span id="${id}-error" class="error">${error}</span>`

/** A labelled input or textarea whose error is tied to it with aria-describedby. */
export const field = (opts: {
  name: string
  label: string
  value: string
  errors: Errors
  multiline?: boolean
  maxlength?: number
  idPrefix?: string
}): Html => {
  const id = `${opts.idPrefix ?? ""}${opts.name}`
  const error = opts.errors[opts.name]
  const max = opts.maxlength === undefined ? "" : html` maxlength="${opts.maxlength}"`
  const control = opts.multiline
    ? html`<textarea id="${id}" name="${opts.name}" rows="6" cols="60" required aria-required="true"${max}${describedBy(id, error)}>${opts.value}</textarea>`
    : html`<input id="${id}" name="${opts.name}" type="text" value="${opts.value}" required aria-required="true"${max}${describedBy(id, error)}>`
  return html`<p><label for="${id}">${opts.label}</label><br>${control}${errorText(id, error)}</p>`
}

/** A labelled select, with its error tied the same way. */
export const selectField = (opts: {
  name: string
  label: string
  value: string
  options: ReadonlyArray<{ value: string; text: string }>
  errors: Errors
}): Html => {
  const error = opts.errors[opts.name]
  return html`<p><label for="${opts.name}">${opts.label}</label><br><select id="${opts.name}" name="${opts.name}" required aria-required="true"${describedBy(opts.name, error)}>
${opts.options.map((o) => html`<option value="${o.value}"${o.value === opts.value ? html` selected` : ""}>${o.text}</option>`)}</select>${errorText(opts.name, error)}</p>`
}

/** The summary at the top of a rejected form; each entry links to its field. */
export const errorSummary = (errors: Errors, labels: Readonly<Record<string, string>>, idPrefix = ""): Html => {
  const names = Object.keys(errors)
  if (names.length === 0) return html``
  return html`<div role="alert" aria-labelledby="error-summary-title"><h2 id="error-summary-title">There ${names.length === 1 ? "is a problem" : `are ${names.length} problems`}</h2>
<ul>${names.map((n) => html`<li><a href="#${idPrefix}${n}">${labels[n] ?? n}: ${errors[n]}</a></li>`)}</ul></div>`
}
