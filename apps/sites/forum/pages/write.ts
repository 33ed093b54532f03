/** Writing posts: create (with field errors like the shop's checkout), edit own post, and delete own post after a confirmation page. */
import { html } from "../../framework/html.ts"
import { BODY_MAX, boardById, postById, tick, TITLE_MAX, validatePost } from "../model.ts"
import type { Errors } from "../model.ts"
import type { Post } from "../types.ts"
import { errorSummary, field, forumPage, selectField } from "../ui.ts"
import type { ForumCtx } from "../ui.ts"
import { forbidden, notFound } from "./errors.ts"

const labels = { board: "Board", title: "Title", body: "Body" }

interface Draft {
  board: string
  title: string
  body: string
}

const read = (ctx: ForumCtx): Draft => ({
  board: ctx.form.get("board") ?? "",
  title: (ctx.form.get("title") ?? "").trim(),
  body: (ctx.form.get("body") ?? "").trim()
})

const fields = (ctx: ForumCtx, d: Draft, errors: Errors, withBoard: boolean) => html`${
  withBoard &&
  selectField({
    name: "board",
    label: labels.board,
    value: d.board,
    errors,
    options: [{ value: "", text: "Choose a board" }, ...ctx.base.boards.map((b) => ({ value: b.id, text: b.name }))]
  })
}
${field({ name: "title", label: `${labels.title} (up to ${TITLE_MAX} characters)`, value: d.title, errors, maxlength: TITLE_MAX })}
${field({ name: "body", label: labels.body, value: d.body, errors, multiline: true, maxlength: BODY_MAX })}`

const submitForm = (ctx: ForumCtx, d: Draft, errors: Errors, status = 200): Response =>
  forumPage(ctx, {
    title: Object.keys(errors).length > 0 ? "Create post — please fix the errors" : "Create post",
    status,
    body: html`<h1>Create a post</h1>${errorSummary(errors, labels)}
<form method="post" action="${ctx.href("/submit")}" aria-label="Create post" novalidate>${fields(ctx, d, errors, true)}
<button type="submit">Publish post</button> <a href="${ctx.href(d.board !== "" && boardById(ctx.base, d.board) ? `/b/${d.board}` : "/")}">Cancel</a></form>`
  })

export const submitPage = (ctx: ForumCtx): Response => submitForm(ctx, { board: ctx.query.get("board") ?? "", title: "", body: "" }, {})

export const createPost = (ctx: ForumCtx): Response => {
  const d = read(ctx)
  const errors = validatePost(d, ctx.base)
  if (Object.keys(errors).length > 0) return submitForm(ctx, d, errors, 422)
  const post: Post = {
    id: `p${ctx.state.nextPost++}`,
    boardId: d.board,
    author: ctx.state.me,
    title: d.title,
    body: d.body,
    createdAt: tick(ctx.state),
    score: 0,
    edited: false
  }
  ctx.state.posts.push(post)
  return ctx.redirect(`/post/${post.id}?m=created`)
}

/** The post when it exists and is the signed-in user's; otherwise the page to show instead. */
const ownPost = (ctx: ForumCtx): Post | Response => {
  const p = postById(ctx.state, ctx.params.id ?? "")
  if (!p) return notFound(ctx, "There is no such post.")
  if (p.author !== ctx.state.me) return forbidden(ctx, "You can only change your own posts.", `/post/${p.id}`)
  return p
}

const editForm = (ctx: ForumCtx, p: Post, d: Draft, errors: Errors, status = 200): Response =>
  forumPage(ctx, {
    title: Object.keys(errors).length > 0 ? "Edit post — please fix the errors" : "Edit post",
    status,
    body: html`<h1>Edit your post</h1><p>In <a href="${ctx.href(`/b/${p.boardId}`)}">${boardById(ctx.base, p.boardId)?.name}</a></p>${errorSummary(errors, labels)}
<form method="post" action="${ctx.href(`/post/${p.id}/edit`)}" aria-label="Edit post" novalidate>${fields(ctx, d, errors, false)}
<button type="submit">Save changes</button> <a href="${ctx.href(`/post/${p.id}`)}">Cancel</a></form>`
  })

export const editPage = (ctx: ForumCtx): Response => {
  const p = ownPost(ctx)
  return p instanceof Response ? p : editForm(ctx, p, { board: p.boardId, title: p.title, body: p.body }, {})
}

export const savePost = (ctx: ForumCtx): Response => {
  const p = ownPost(ctx)
  if (p instanceof Response) return p
  const d = { ...read(ctx), board: p.boardId }
  const errors = validatePost({ title: d.title, body: d.body }, ctx.base)
  if (Object.keys(errors).length > 0) return editForm(ctx, p, d, errors, 422)
  if (d.title !== p.title || d.body !== p.body) {
    p.title = d.title
    p.body = d.body
    p.edited = true
  }
  return ctx.redirect(`/post/${p.id}?m=edited`)
}

export const deletePage = (ctx: ForumCtx): Response => {
  const p = ownPost(ctx)
  if (p instanceof Response) return p
  return forumPage(ctx, {
    title: "Delete post?",
    body: html`<h1>Delete “${p.title}”?</h1><p>This removes the post and its comments. It cannot be undone.</p>
<form method="post" action="${ctx.href(`/post/${p.id}/delete`)}" aria-label="Confirm deletion"><button type="submit">Yes, delete this post</button> <a href="${ctx.href(`/post/${p.id}`)}">No, keep it</a></form>`
  })
}

export const deletePost = (ctx: ForumCtx): Response => {
  const p = ownPost(ctx)
  if (p instanceof Response) return p
  const s = ctx.state
  const gone = new Set(s.comments.filter((c) => c.postId === p.id).map((c) => c.id))
  s.posts = s.posts.filter((x) => x.id !== p.id)
  s.comments = s.comments.filter((c) => c.postId !== p.id)
  s.votes = s.votes.filter((v) => !(v.kind === "post" ? v.id === p.id : gone.has(v.id)))
  s.deletedPostIds.push(p.id)
  return ctx.redirect(`/b/${p.boardId}?m=deleted`)
}
