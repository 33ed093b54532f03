/** Member pages: the list of members and a profile with karma, posts and comments. */
import { html } from "../../framework/html.ts"
import { karmaOf, postById, sortPosts, userById } from "../model.ts"
import { forumPage, here, postList } from "../ui.ts"
import type { ForumCtx } from "../ui.ts"
import { notFound } from "./errors.ts"

export const usersPage = (ctx: ForumCtx): Response =>
  forumPage(ctx, {
    title: "Members",
    body: html`<h1>Members</h1><ul aria-label="Members">${ctx.base.users.map(
      (u) => html`<li><a href="${ctx.href(`/u/${u.id}`)}">${u.id}</a> (${u.displayName}) — ${karmaOf(ctx.state, u.id)} karma</li>`
    )}</ul>`
  })

export const userPage = (ctx: ForumCtx): Response => {
  const u = userById(ctx.base, ctx.params.id ?? "")
  if (!u) return notFound(ctx, "There is no such member.")
  const posts = sortPosts(
    ctx.state.posts.filter((p) => p.author === u.id),
    "new"
  )
  const comments = ctx.state.comments.filter((c) => c.author === u.id).reverse()
  const mine = u.id === ctx.state.me
  return forumPage(ctx, {
    title: mine ? "Your profile" : `${u.id}'s profile`,
    body: html`<h1>${u.id}</h1>${mine && html`<p>This is you.</p>`}
<dl><dt>Name</dt><dd>${u.displayName}</dd><dt>About</dt><dd>${u.bio}</dd><dt>Karma</dt><dd>${karmaOf(ctx.state, u.id)}</dd></dl>
<section aria-labelledby="user-posts"><h2 id="user-posts">Posts (${posts.length})</h2>${postList(ctx, posts, `Posts by ${u.id}`, here(ctx))}</section>
<section aria-labelledby="user-comments"><h2 id="user-comments">Comments (${comments.length})</h2>${
      comments.length === 0
        ? html`<p>No comments yet.</p>`
        : html`<ul aria-label="Comments by ${u.id}">${comments.map((c) => {
            const p = postById(ctx.state, c.postId)
            return html`<li><p>${c.body}</p><p class="meta">Score ${c.score} · on <a href="${ctx.href(`/post/${c.postId}#comment-${c.id}`)}">${p?.title ?? "a deleted post"}</a></p></li>`
          })}</ul>`
    }</section>`
  })
}
