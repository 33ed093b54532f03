/** The account page (profile and order history) and the settings form. */
import { html } from "../../framework/html.ts"
import { formatPrice } from "../model.ts"
import { errorSummary, field, shopPage } from "../ui.ts"
import type { Errors, ShopCtx } from "../ui.ts"

export const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/

export const accountPage = (ctx: ShopCtx): Response => {
  const { user, orders } = ctx.state
  return shopPage(ctx, {
    title: "Your account",
    message: ctx.query.get("m") === "settings" ? "Your settings have been saved." : undefined,
    body: html`<h1>Your account</h1>
<section aria-labelledby="profile"><h2 id="profile">Profile</h2><dl><dt>Name</dt><dd>${user.name}</dd><dt>Email</dt><dd>${user.email}</dd></dl>
<p><a href="${ctx.href("/account/settings")}">Edit account settings</a></p><p><a href="${ctx.href("/wishlist")}">View wish list</a></p></section>
<section aria-labelledby="orders"><h2 id="orders">Order history</h2>${
      orders.length === 0
        ? html`<p>You have not placed any orders yet.</p>`
        : html`<ul aria-label="Orders">${[...orders].reverse().map(
            (
              o
            ) => html`<li><a href="${ctx.href(`/orders/${o.id}`)}">Order ${o.id}</a> — ${o.lines.reduce((n, l) => n + l.quantity, 0)} items, total ${formatPrice(o.total)}
<ul>${o.lines.map((l) => html`<li><a href="${ctx.href(`/product/${l.productId}`)}">${l.name}</a> × ${l.quantity}</li>`)}</ul></li>`
          )}</ul>`
    }</section>`
  })
}

const labels = { name: "Name", email: "Email address" }

const settingsForm = (ctx: ShopCtx, values: { name: string; email: string }, errors: Errors, status = 200): Response =>
  shopPage(ctx, {
    title: Object.keys(errors).length > 0 ? "Account settings — please fix the errors" : "Account settings",
    status,
    body: html`<h1>Account settings</h1>${errorSummary(errors, labels)}
<form method="post" action="${ctx.href("/account/settings")}" novalidate aria-label="Account settings">
${field({ name: "name", label: labels.name, value: values.name, errors, required: true, autocomplete: "name" })}
${field({ name: "email", label: labels.email, value: values.email, errors, type: "email", required: true, autocomplete: "email" })}
<button type="submit">Save settings</button> <a href="${ctx.href("/account")}">Cancel</a></form>`
  })

export const settingsPage = (ctx: ShopCtx): Response => settingsForm(ctx, ctx.state.user, {})

export const saveSettings = (ctx: ShopCtx): Response => {
  const values = { name: (ctx.form.get("name") ?? "").trim(), email: (ctx.form.get("email") ?? "").trim() }
  const errors: Record<string, string> = {}
  if (values.name === "") errors.name = "Enter your name."
  else if (values.name.length > 60) errors.name = "Keep your name under 60 characters."
  if (values.email === "") errors.email = "Enter your email address."
  else if (!EMAIL.test(values.email)) errors.email = "Enter an email address like name@example.com."
  if (Object.keys(errors).length > 0) return settingsForm(ctx, values, errors, 422)
  ctx.state.user = values
  return ctx.redirect("/account?m=settings")
}
