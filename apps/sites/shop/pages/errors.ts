/** The shop's own 404, inside the normal shell so the agent can navigate away from it. */
import { html } from "../../framework/html.ts"
import { shopPage } from "../ui.ts"
import type { ShopCtx } from "../ui.ts"

export const notFound = (ctx: ShopCtx, why = "We could not find that page."): Response =>
  shopPage(ctx, {
    title: "Not found",
    status: 404,
    body: html`<h1>Page not found</h1><p>${why}</p><p><a href="${ctx.href("/")}">Back to the home page</a></p>`
  })
