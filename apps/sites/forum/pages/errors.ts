/** The forum's own 404 and 403, inside the normal shell so the agent can navigate away from them. */
import { html } from "../../framework/html.ts"
import { forumPage } from "../ui.ts"
import type { ForumCtx } from "../ui.ts"

export const notFound = (ctx: ForumCtx, why = "We could not find that page."): Response =>
  forumPage(ctx, {
    title: "Not found",
    status: 404,
    body: html`<h1>Page not found</h1><p>${why}</p><p><a href="${ctx.href("/")}">Back to the home page</a></p>`
  })

export const forbidden = (ctx: ForumCtx, why: string, back: string): Response =>
  forumPage(ctx, {
    title: "Not allowed",
    status: 403,
    body: html`<h1>Not allowed</h1><p role="alert">${why}</p><p><a href="${ctx.href(back)}">Go back</a></p>`
  })
