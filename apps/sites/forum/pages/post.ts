/** The post page (body, votes, one-level comment threads), adding comments and replies, and voting. */
import { html } from "../../framework/html.ts"
import type { Html } from "../../framework/html.ts"
import { safePath } from "../../framework/site.ts"
import { boardName, castVote, commentById, commentsOf, COMMENT_MAX, formatDate, postById, tick, validateComment } from "../model.ts"
import type { Errors } from "../model.ts"
import type { Comment, Post } from "../types.ts"
import { errorSummary, field, forumPage, postMeta, voteButtons } from "../ui.ts"
import type { ForumCtx } from "../ui.ts"
import { notFound } from "./errors.ts"

const messages: Record<string, string> = {
  created: "Your post has been published.",
  edited: "Your post has been updated.",
  commented: "Your comment has been posted.",
  replied: "Your reply has been posted."
}

const snippet = (s: string): string => (s.length > 40 ? `${s.slice(0, 40).trimEnd()}…` : s)

const commentItem = (ctx: ForumCtx, p: Post, c: Comment, replies: ReadonlyArray<Comment>): Html =>
  html`<li><article id="comment-${c.id}" aria-label="Comment by ${c.author}"><p class="meta"><a href="${ctx.href(`/u/${c.author}`)}">${c.author}</a>, <time datetime="${new Date(c.createdAt).toISOString()}">${formatDate(c.createdAt)}</time></p>
<p>${c.body}</p><div>${voteButtons(ctx, "comment", c.id, `comment by ${c.author}: '${snippet(c.body)}'`, c.score, `/post/${p.id}#comment-${c.id}`)}${c.parentId === null && html` <a href="${ctx.href(`/post/${p.id}/reply/${c.id}`)}" aria-label="Reply to ${c.author}'s comment">Reply</a>`}</div></article>
${replies.length > 0 && html`<ul class="replies" aria-label="Replies to ${c.author}">${replies.map((r) => commentItem(ctx, p, r, []))}</ul>`}</li>`

const postBody = (ctx: ForumCtx, p: Post, errors: Errors, draft: string): Html => {
  const all = commentsOf(ctx.state, p.id)
  const top = all.filter((c) => c.parentId === null)
  const own = p.author === ctx.state.me
  return html`<nav aria-label="Breadcrumb"><ol><li><a href="${ctx.href("/")}">Home</a></li><li><a href="${ctx.href(`/b/${p.boardId}`)}">${boardName(ctx.base, p.boardId)}</a></li><li><a href="${ctx.href(`/post/${p.id}`)}" aria-current="page">${p.title}</a></li></ol></nav>
<article aria-labelledby="post-title"><h1 id="post-title">${p.title}</h1><p>${postMeta(ctx, p)}</p>
${p.body.split(/\n\s*\n/).map((para) => html`<p>${para}</p>`)}
<div>${voteButtons(ctx, "post", p.id, `post '${p.title}'`, p.score, `/post/${p.id}`)}</div>
${own && html`<p><a href="${ctx.href(`/post/${p.id}/edit`)}">Edit post</a> · <a href="${ctx.href(`/post/${p.id}/delete`)}">Delete post</a></p>`}</article>
<section aria-labelledby="comments"><h2 id="comments">Comments (${all.length})</h2>
${
  top.length === 0
    ? html`<p>No comments yet. Start the conversation!</p>`
    : html`<ul aria-label="Comments">${top.map((c) =>
        commentItem(
          ctx,
          p,
          c,
          all.filter((r) => r.parentId === c.id)
        )
      )}</ul>`
}
<h3 id="add-comment">Add a comment</h3>${errorSummary(errors, { body: "Your comment" }, "comment-")}
<form method="post" action="${ctx.href(`/post/${p.id}/comments`)}" aria-labelledby="add-comment" novalidate>
${field({ name: "body", label: `Your comment (up to ${COMMENT_MAX} characters)`, value: draft, errors, multiline: true, idPrefix: "comment-" })}
<button type="submit">Post comment</button></form></section>`
}

export const postPage = (ctx: ForumCtx): Response => {
  const p = postById(ctx.state, ctx.params.id ?? "")
  if (!p)
    return notFound(ctx, ctx.state.deletedPostIds.includes(ctx.params.id ?? "") ? "This post has been deleted." : "There is no such post.")
  return forumPage(ctx, { title: p.title, message: messages[ctx.query.get("m") ?? ""], body: postBody(ctx, p, {}, "") })
}

const replyForm = (ctx: ForumCtx, p: Post, parent: Comment, errors: Errors, draft: string, status = 200): Response =>
  forumPage(ctx, {
    title: Object.keys(errors).length > 0 ? "Reply — please fix the errors" : `Reply to ${parent.author}`,
    status,
    body: html`<nav aria-label="Breadcrumb"><ol><li><a href="${ctx.href(`/b/${p.boardId}`)}">${boardName(ctx.base, p.boardId)}</a></li><li><a href="${ctx.href(`/post/${p.id}`)}">${p.title}</a></li></ol></nav>
<h1>Reply to ${parent.author}</h1><blockquote aria-label="${parent.author}'s comment"><p>${parent.body}</p></blockquote>
${errorSummary(errors, { body: "Your reply" }, "reply-")}
<form method="post" action="${ctx.href(`/post/${p.id}/comments`)}" aria-labelledby="reply-title" novalidate><h2 id="reply-title">Your reply</h2><input type="hidden" name="parentId" value="${parent.id}">
${field({ name: "body", label: `Your reply (up to ${COMMENT_MAX} characters)`, value: draft, errors, multiline: true, idPrefix: "reply-" })}
<button type="submit">Post reply</button> <a href="${ctx.href(`/post/${p.id}#comment-${parent.id}`)}">Cancel</a></form>`
  })

/** Threads are one level deep: a reply to a reply joins its top-level comment's thread. */
const threadRoot = (ctx: ForumCtx, postId: string, id: string): Comment | undefined => {
  const c = commentById(ctx.state, id)
  if (!c || c.postId !== postId) return undefined
  return c.parentId === null ? c : commentById(ctx.state, c.parentId)
}

export const replyPage = (ctx: ForumCtx): Response => {
  const p = postById(ctx.state, ctx.params.id ?? "")
  const parent = p && threadRoot(ctx, p.id, ctx.params.cid ?? "")
  if (!p || !parent) return notFound(ctx, "There is no such comment.")
  return replyForm(ctx, p, parent, {}, "")
}

export const addComment = (ctx: ForumCtx): Response => {
  const p = postById(ctx.state, ctx.params.id ?? "")
  if (!p) return notFound(ctx, "There is no such post.")
  const body = (ctx.form.get("body") ?? "").trim()
  const parentId = ctx.form.get("parentId") ?? ""
  const parent = parentId === "" ? undefined : threadRoot(ctx, p.id, parentId)
  if (parentId !== "" && !parent) return notFound(ctx, "The comment you replied to no longer exists.")
  const error = validateComment(body)
  if (error) {
    if (parent) return replyForm(ctx, p, parent, { body: error }, body, 422)
    return forumPage(ctx, { title: `${p.title} — comment not posted`, status: 422, body: postBody(ctx, p, { body: error }, body) })
  }
  const id = `c${ctx.state.nextComment++}`
  ctx.state.comments.push({
    id,
    postId: p.id,
    parentId: parent?.id ?? null,
    author: ctx.state.me,
    body,
    createdAt: tick(ctx.state),
    score: 0
  })
  return ctx.redirect(`/post/${p.id}?m=${parent ? "replied" : "commented"}#comment-${id}`)
}

export const vote = (ctx: ForumCtx): Response => {
  const kind = ctx.form.get("kind")
  const id = ctx.form.get("id") ?? ""
  const dir = ctx.form.get("dir")
  if (
    (kind !== "post" && kind !== "comment") ||
    (dir !== "up" && dir !== "down") ||
    !castVote(ctx.state, kind, id, dir === "up" ? 1 : -1)
  ) {
    return notFound(ctx, "There is nothing to vote on here.")
  }
  const fallback = kind === "post" ? `/post/${id}` : `/post/${commentById(ctx.state, id)!.postId}#comment-${id}`
  return ctx.redirect(safePath(ctx.form.get("return"), fallback))
}
