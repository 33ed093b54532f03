/** The product page (details, add to cart, wish list, reviews) and posting a review. */
import { html } from "../../framework/html.ts"
import { categoryName, formatPrice, productById, ratingOf, reviewsOf } from "../model.ts"
import type { Product } from "../types.ts"
import { actionButton, errorSummary, field, shopPage, stars } from "../ui.ts"
import type { Errors, ShopCtx } from "../ui.ts"
import { notFound } from "./errors.ts"

const messages: Record<string, string> = {
  cart: "Added to your cart.",
  wishlist: "Added to your wish list.",
  unwishlist: "Removed from your wish list.",
  review: "Thank you! Your review has been posted."
}

const reviewLabels = { rating: "Rating", title: "Review title", body: "Review" }

const productBody = (ctx: ShopCtx, p: Product, errors: Errors, values: Readonly<Record<string, string>>): ReturnType<typeof html> => {
  const reviews = reviewsOf(ctx.base, ctx.state, p.id)
  const wished = ctx.state.wishlist.includes(p.id)
  const back = `/product/${p.id}`
  const ratingError = errors.rating
  return html`<nav aria-label="Breadcrumb"><ol><li><a href="${ctx.href("/")}">Home</a></li><li><a href="${ctx.href(`/category/${p.categoryId}`)}">${categoryName(ctx.base, p.categoryId)}</a></li><li><a href="${ctx.href(back)}" aria-current="page">${p.name}</a></li></ol></nav>
<article aria-labelledby="product-name"><h1 id="product-name">${p.name}</h1>
<p>Price: <strong>${formatPrice(p.price)}</strong></p><p>${stars(ratingOf(reviews), reviews.length)}</p><p>${p.description}</p>
<form method="post" action="${ctx.href("/cart/add")}"><input type="hidden" name="productId" value="${p.id}"><input type="hidden" name="return" value="${back}?added=cart">
<label for="quantity">Quantity</label> <input id="quantity" name="quantity" type="number" min="1" max="99" value="1"> <button type="submit">Add to cart</button></form>
${
  wished
    ? html`<p>In your <a href="${ctx.href("/wishlist")}">wish list</a>.</p>${actionButton(ctx, { action: "/wishlist/remove", fields: { productId: p.id, return: `${back}?added=unwishlist` }, label: "Remove from wish list" })}`
    : actionButton(ctx, {
        action: "/wishlist/add",
        fields: { productId: p.id, return: `${back}?added=wishlist` },
        label: "Add to wish list"
      })
}
</article>
<section aria-labelledby="reviews"><h2 id="reviews">Customer reviews</h2>
${
  reviews.length === 0
    ? html`<p>No reviews yet. Be the first!</p>`
    : html`<ul aria-label="Reviews">${reviews.map(
        (r) =>
          html`<li><article aria-label="Review by ${r.author}"><h3>${r.title}</h3><p>${r.rating} out of 5 stars, by ${r.author}</p><p>${r.body}</p></article></li>`
      )}</ul>`
}
<h3 id="write-review">Write a review</h3>
${errorSummary(errors, reviewLabels, "review-")}
<form method="post" action="${ctx.href(`/product/${p.id}/reviews`)}" aria-labelledby="write-review" novalidate>
<fieldset${ratingError ? html` aria-invalid="true" aria-describedby="review-rating-error"` : ""}><legend>Rating</legend>${[
    5, 4, 3, 2, 1
  ].map(
    (n) =>
      html`<label><input type="radio" name="rating" value="${n}"${values.rating === String(n) ? html` checked` : ""}> ${n} ${n === 1 ? "star" : "stars"}</label> `
  )}${ratingError && html`<span id="review-rating-error" class="error">${ratingError}</span>`}</fieldset>
${field({ name: "title", label: "Review title", value: values.title ?? "", errors, idPrefix: "review-", required: true })}
<p><label for="review-body">Review</label><br><textarea id="review-body" name="body" rows="4" cols="50" required aria-required="true"${errors.body ? html` aria-invalid="true" aria-describedby="review-body-error"` : ""}>${values.body ?? ""}</textarea>
${errors.body && html`<br><span id="review-body-error" class="error">${errors.body}</span>`}</p>
<button type="submit">Post review</button></form></section>`
}

export const productPage = (ctx: ShopCtx): Response => {
  const p = productById(ctx.base, ctx.params.id ?? "")
  if (!p) return notFound(ctx, "There is no such product.")
  return shopPage(ctx, { title: p.name, message: messages[ctx.query.get("added") ?? ""], body: productBody(ctx, p, {}, {}) })
}

export const postReview = (ctx: ShopCtx): Response => {
  const p = productById(ctx.base, ctx.params.id ?? "")
  if (!p) return notFound(ctx, "There is no such product.")
  const values = {
    rating: ctx.form.get("rating") ?? "",
    title: (ctx.form.get("title") ?? "").trim(),
    body: (ctx.form.get("body") ?? "").trim()
  }
  const errors: Record<string, string> = {}
  if (!/^[1-5]$/.test(values.rating)) errors.rating = "Choose a rating from 1 to 5 stars."
  if (values.title === "") errors.title = "Enter a title."
  else if (values.title.length > 80) errors.title = "Keep the title under 80 characters."
  if (values.body.length < 10) errors.body = "Write at least 10 characters."
  if (Object.keys(errors).length > 0) {
    return shopPage(ctx, { title: `${p.name} — review not posted`, status: 422, body: productBody(ctx, p, errors, values) })
  }
  const n = ctx.state.reviews.length + 1
  ctx.state.reviews.push({
    id: `${p.id}-u${n}`,
    productId: p.id,
    author: ctx.state.user.name,
    rating: Number(values.rating),
    title: values.title,
    body: values.body
  })
  return ctx.redirect(`/product/${p.id}?added=review#reviews`)
}
