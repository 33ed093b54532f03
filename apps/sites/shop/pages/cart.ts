/** Cart and wish list: pages and their POST actions (each action redirects, so forms work without JS). */
import { html } from "../../framework/html.ts"
import { safePath } from "../../framework/site.ts"
import { cartLines, cartSubtotal, formatPrice, productById } from "../model.ts"
import { actionButton, productList, shopPage } from "../ui.ts"
import type { ShopCtx } from "../ui.ts"

const MAX_QUANTITY = 99

/** A quantity from a form: missing means 1, out of range is clamped, garbage is null. */
const quantity = (raw: string | null, fallback: number): number | null => {
  if (raw === null || raw.trim() === "") return fallback
  const n = Number(raw)
  return Number.isInteger(n) ? Math.min(Math.max(n, 0), MAX_QUANTITY) : null
}

const cartMessages: Record<string, string> = {
  added: "Added to your cart.",
  updated: "Your cart has been updated.",
  removed: "Item removed from your cart.",
  quantity: "Quantity must be a whole number."
}

export const cartPage = (ctx: ShopCtx): Response => {
  const lines = cartLines(ctx.base, ctx.state)
  return shopPage(ctx, {
    title: "Cart",
    message: cartMessages[ctx.query.get("m") ?? ""],
    body: html`<h1>Your cart</h1>${
      lines.length === 0
        ? html`<p>Your cart is empty. <a href="${ctx.href("/")}">Continue shopping</a></p>`
        : html`<table><caption>Items in your cart</caption><thead><tr><th scope="col">Product</th><th scope="col">Price</th><th scope="col">Quantity</th><th scope="col">Total</th><th scope="col">Actions</th></tr></thead><tbody>
${lines.map(
  (
    l
  ) => html`<tr><th scope="row"><a href="${ctx.href(`/product/${l.product.id}`)}">${l.product.name}</a></th><td>${formatPrice(l.product.price)}</td>
<td><form method="post" action="${ctx.href("/cart/update")}"><input type="hidden" name="productId" value="${l.product.id}"><label for="qty-${l.product.id}">Quantity for ${l.product.name}</label>
<input id="qty-${l.product.id}" name="quantity" type="number" min="0" max="${MAX_QUANTITY}" value="${l.quantity}"> <button type="submit" aria-label="Update quantity for ${l.product.name}">Update</button></form></td>
<td>${formatPrice(l.total)}</td><td>${actionButton(ctx, { action: "/cart/remove", fields: { productId: l.product.id }, label: "Remove", ariaLabel: `Remove ${l.product.name} from cart` })}</td></tr>`
)}</tbody></table>
<p>Subtotal: <strong>${formatPrice(cartSubtotal(ctx.base, ctx.state))}</strong></p>
<p><a href="${ctx.href("/checkout")}">Proceed to checkout</a></p>`
    }`
  })
}

export const cartAdd = (ctx: ShopCtx): Response => {
  const p = productById(ctx.base, ctx.form.get("productId") ?? "")
  if (!p) return ctx.redirect("/cart")
  const q = quantity(ctx.form.get("quantity"), 1)
  if (q === null || q === 0) return ctx.redirect(`/product/${p.id}`)
  const line = ctx.state.cart.find((l) => l.productId === p.id)
  if (line) line.quantity = Math.min(line.quantity + q, MAX_QUANTITY)
  else ctx.state.cart.push({ productId: p.id, quantity: q })
  return ctx.redirect(safePath(ctx.form.get("return"), "/cart?m=added"))
}

export const cartUpdate = (ctx: ShopCtx): Response => {
  const id = ctx.form.get("productId") ?? ""
  const q = quantity(ctx.form.get("quantity"), 1)
  if (q === null) return ctx.redirect("/cart?m=quantity")
  if (q === 0) ctx.state.cart = ctx.state.cart.filter((l) => l.productId !== id)
  else {
    const line = ctx.state.cart.find((l) => l.productId === id)
    if (line) line.quantity = q
  }
  return ctx.redirect(q === 0 ? "/cart?m=removed" : "/cart?m=updated")
}

export const cartRemove = (ctx: ShopCtx): Response => {
  const id = ctx.form.get("productId") ?? ""
  ctx.state.cart = ctx.state.cart.filter((l) => l.productId !== id)
  return ctx.redirect("/cart?m=removed")
}

export const wishlistPage = (ctx: ShopCtx): Response => {
  const items = ctx.state.wishlist.flatMap((id) => {
    const p = productById(ctx.base, id)
    return p ? [p] : []
  })
  return shopPage(ctx, {
    title: "Wish list",
    message:
      ctx.query.get("m") === "removed"
        ? "Removed from your wish list."
        : ctx.query.get("m") === "added"
          ? "Added to your cart."
          : undefined,
    body: html`<h1>Your wish list</h1>${
      items.length === 0
        ? html`<p>Your wish list is empty.</p>`
        : html`${productList(ctx, items, "Wish list")}<h2>Manage</h2><ul aria-label="Wish list actions">${items.map(
            (
              p
            ) => html`<li>${p.name}: ${actionButton(ctx, { action: "/cart/add", fields: { productId: p.id, quantity: "1", return: "/wishlist?m=added" }, label: "Add to cart", ariaLabel: `Add ${p.name} to cart` })}
${actionButton(ctx, { action: "/wishlist/remove", fields: { productId: p.id, return: "/wishlist?m=removed" }, label: "Remove", ariaLabel: `Remove ${p.name} from wish list` })}</li>`
          )}</ul>`
    }`
  })
}

export const wishlistAdd = (ctx: ShopCtx): Response => {
  const p = productById(ctx.base, ctx.form.get("productId") ?? "")
  if (p && !ctx.state.wishlist.includes(p.id)) ctx.state.wishlist.push(p.id)
  return ctx.redirect(safePath(ctx.form.get("return"), "/wishlist"))
}

export const wishlistRemove = (ctx: ShopCtx): Response => {
  const id = ctx.form.get("productId") ?? ""
  ctx.state.wishlist = ctx.state.wishlist.filter((w) => w !== id)
  return ctx.redirect(safePath(ctx.form.get("return"), "/wishlist?m=removed"))
}
