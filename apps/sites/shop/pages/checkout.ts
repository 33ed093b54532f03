/** Checkout with server-side validation shown next to each field, and the order page that confirms it. */
import { html } from "../../framework/html.ts"
import { cartLines, cartSubtotal, formatPrice, SHIPPING_COST } from "../model.ts"
import type { Address, Order, ShippingMethod } from "../types.ts"
import { errorSummary, field, shopPage } from "../ui.ts"
import type { Errors, ShopCtx } from "../ui.ts"
import { notFound } from "./errors.ts"

const labels: Record<keyof Address | "shipping", string> = {
  fullName: "Full name",
  street: "Street address",
  city: "City",
  postalCode: "Postal code",
  shipping: "Shipping"
}

export const POSTAL_CODE = /^\d{5}$/

const checkoutForm = (ctx: ShopCtx, values: Address & { shipping: string }, errors: Errors, status = 200): Response => {
  const lines = cartLines(ctx.base, ctx.state)
  if (lines.length === 0) {
    return shopPage(ctx, {
      title: "Checkout",
      body: html`<h1>Checkout</h1><p>Your cart is empty. <a href="${ctx.href("/")}">Continue shopping</a></p>`
    })
  }
  const method = (m: ShippingMethod, text: string) =>
    html`<label><input type="radio" name="shipping" value="${m}"${values.shipping === m ? html` checked` : ""}> ${text}</label><br>`
  return shopPage(ctx, {
    title: Object.keys(errors).length > 0 ? "Checkout — please fix the errors" : "Checkout",
    status,
    body: html`<h1>Checkout</h1>
<section aria-labelledby="summary"><h2 id="summary">Order summary</h2><ul>${lines.map((l) => html`<li>${l.quantity} × ${l.product.name}: ${formatPrice(l.total)}</li>`)}</ul>
<p>Subtotal: ${formatPrice(cartSubtotal(ctx.base, ctx.state))}</p></section>
${errorSummary(errors, labels)}
<form method="post" action="${ctx.href("/checkout")}" aria-labelledby="address-title" novalidate><h2 id="address-title">Shipping address</h2>
${field({ name: "fullName", label: labels.fullName, value: values.fullName, errors, required: true, autocomplete: "name" })}
${field({ name: "street", label: labels.street, value: values.street, errors, required: true, autocomplete: "street-address" })}
${field({ name: "city", label: labels.city, value: values.city, errors, required: true, autocomplete: "address-level2" })}
${field({ name: "postalCode", label: `${labels.postalCode} (5 digits)`, value: values.postalCode, errors, required: true, autocomplete: "postal-code" })}
<fieldset><legend>Shipping method</legend>${method("standard", "Standard (free, 5–7 days)")}${method("express", `Express (${formatPrice(SHIPPING_COST.express)}, 1–2 days)`)}</fieldset>
<button type="submit">Place order</button></form>`
  })
}

export const checkoutPage = (ctx: ShopCtx): Response => {
  // Prefill from the last order, as real shops do; the first checkout starts from the account name.
  const last = ctx.state.orders.at(-1)?.address
  return checkoutForm(
    ctx,
    {
      fullName: last?.fullName ?? ctx.state.user.name,
      street: last?.street ?? "",
      city: last?.city ?? "",
      postalCode: last?.postalCode ?? "",
      shipping: "standard"
    },
    {}
  )
}

export const placeOrder = (ctx: ShopCtx): Response => {
  const v = (k: string): string => (ctx.form.get(k) ?? "").trim()
  const values = {
    fullName: v("fullName"),
    street: v("street"),
    city: v("city"),
    postalCode: v("postalCode"),
    shipping: v("shipping") || "standard"
  }
  const errors: Record<string, string> = {}
  if (values.fullName === "") errors.fullName = "Enter your full name."
  if (values.street === "") errors.street = "Enter your street address."
  if (values.city === "") errors.city = "Enter your city."
  if (values.postalCode === "") errors.postalCode = "Enter your postal code."
  else if (!POSTAL_CODE.test(values.postalCode)) errors.postalCode = "Postal code must be exactly 5 digits, like 94110."
  if (values.shipping !== "standard" && values.shipping !== "express") errors.shipping = "Choose a shipping method."
  const lines = cartLines(ctx.base, ctx.state)
  if (lines.length === 0 || Object.keys(errors).length > 0) return checkoutForm(ctx, values, errors, lines.length === 0 ? 200 : 422)
  const shipping = values.shipping as ShippingMethod
  const subtotal = cartSubtotal(ctx.base, ctx.state)
  const order: Order = {
    id: `O-${1001 + ctx.state.orders.length}`,
    lines: lines.map((l) => ({ productId: l.product.id, name: l.product.name, price: l.product.price, quantity: l.quantity })),
    subtotal,
    shippingCost: SHIPPING_COST[shipping],
    total: subtotal + SHIPPING_COST[shipping],
    shipping,
    address: { fullName: values.fullName, street: values.street, city: values.city, postalCode: values.postalCode }
  }
  ctx.state.orders.push(order)
  ctx.state.cart = []
  return ctx.redirect(`/orders/${order.id}?placed=1`)
}

export const orderPage = (ctx: ShopCtx): Response => {
  const o = ctx.state.orders.find((x) => x.id === ctx.params.id)
  if (!o) return notFound(ctx, "There is no such order in your account.")
  const placed = ctx.query.get("placed") === "1"
  return shopPage(ctx, {
    title: placed ? `Order ${o.id} confirmed` : `Order ${o.id}`,
    message: placed && html`Thank you! Your order <strong>${o.id}</strong> has been placed.`,
    body: html`<nav aria-label="Breadcrumb"><ol><li><a href="${ctx.href("/account")}">Account</a></li><li><a href="${ctx.href(`/orders/${o.id}`)}" aria-current="page">Order ${o.id}</a></li></ol></nav>
<h1>Order ${o.id}</h1>
<table><caption>Items in order ${o.id}</caption><thead><tr><th scope="col">Product</th><th scope="col">Price</th><th scope="col">Quantity</th></tr></thead><tbody>
${o.lines.map((l) => html`<tr><th scope="row"><a href="${ctx.href(`/product/${l.productId}`)}">${l.name}</a></th><td>${formatPrice(l.price)}</td><td>${l.quantity}</td></tr>`)}</tbody></table>
<p>Subtotal: ${formatPrice(o.subtotal)}</p><p>Shipping (${o.shipping}): ${formatPrice(o.shippingCost)}</p><p>Total: <strong>${formatPrice(o.total)}</strong></p>
<h2>Shipping to</h2><address>${o.address.fullName}<br>${o.address.street}<br>${o.address.city} ${o.address.postalCode}</address>
<p><a href="${ctx.href("/account")}">Back to your orders</a></p>`
  })
}
