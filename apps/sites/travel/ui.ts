/** The travel site's shell and shared pieces: header navigation, form fields tied to their errors, small forms. */
import { documentHtml, html, htmlResponse } from "../framework/html.ts"
import type { Html, Part } from "../framework/html.ts"
import type { Ctx } from "../framework/site.ts"
import type { TravelBase, TravelState } from "./types.ts"

export type TravelCtx = Ctx<TravelBase, TravelState>
export type Errors = Readonly<Record<string, string>>

const style = html`<style>
body{font-family:system-ui,sans-serif;margin:0;color:#1d2a33}header,main,footer{padding:0.75rem 1.5rem}
header{background:#e6f0f7;border-bottom:1px solid #c8d8e4}header nav ul{list-style:none;padding:0;margin:0.5rem 0;display:flex;gap:1rem;flex-wrap:wrap}
.results{list-style:none;padding:0}.results>li{border:1px solid #ccd;padding:0.6rem;margin:0.5rem 0;border-radius:6px}
.error{color:#b00020}[role=status]{background:#e8f5e9;padding:0.5rem}form.inline{display:inline}
table{border-collapse:collapse}td,th{padding:0.3rem 0.6rem;border-bottom:1px solid #eee;text-align:left}
</style>`

/** A whole page. `message` renders as a polite status announcement confirming an action. */
export const travelPage = (ctx: TravelCtx, opts: { title: string; body: Part; status?: number; message?: Part }): Response => {
  const { state, href } = ctx
  const body = html`<a href="#main" class="skip">Skip to content</a>
<header><a href="${href("/")}" aria-label="CORE Travel home"><strong>CORE Travel</strong></a>
<nav aria-label="Main"><ul><li><a href="${href("/flights")}">Flights</a></li><li><a href="${href("/hotels")}">Hotels</a></li>
<li><a href="${href("/trips")}">My trips (${state.bookings.filter((b) => b.status === "confirmed").length})</a></li><li><a href="${href("/travellers")}">Saved travellers</a></li>
${state.draft && html`<li><a href="${href(`/booking/${state.draft.step}`)}">Booking in progress</a></li>`}</ul>
<p>Signed in as ${state.user.name}</p></nav></header>
<main id="main">${opts.message !== undefined && opts.message !== null && opts.message !== "" ? html`<div role="status">${opts.message}</div>` : ""}${opts.body}</main>
<footer><p>CORE Travel — a bundled training site. Prices in US dollars; all times local.</p></footer>`
  return htmlResponse(documentHtml({ title: `${opts.title} | CORE Travel`, head: style, body }), opts.status ?? 200)
}

/** A labelled input whose error is tied to it with aria-describedby, so the agent hears which field is wrong. */
export const field = (opts: {
  name: string
  label: string
  value: string
  errors: Errors
  type?: string
  required?: boolean
  autocomplete?: string
  hint?: string
  errorKey?: string
}): Html => {
  const id = opts.name
  const error = opts.errors[opts.errorKey ?? opts.name]
  const described = [opts.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ")
  return html`<p><label for="${id}">${opts.label}</label><br>
${opts.hint && html`<span id="${id}-hint">${opts.hint}</span><br>`}<input id="${id}" name="${opts.name}" type="${opts.type ?? "text"}" value="${opts.value}"${opts.required ? html` required aria-required="true"` : ""}${opts.autocomplete ? html` autocomplete="${opts.autocomplete}"` : ""}${error ? html` aria-invalid="true"` : ""}${described ? html` aria-describedby="${described}"` : ""}>
${error && html`<br><span id="${id}-error" class="error">${error}</span>`}</p>`
}

/** A labelled select; `options` are [value, text] pairs. */
export const select = (opts: {
  name: string
  label: string
  value: string
  options: ReadonlyArray<readonly [string, string]>
  id?: string
  errors?: Errors
}): Html => {
  const id = opts.id ?? opts.name
  const error = opts.errors?.[opts.name]
  return html`<label for="${id}">${opts.label}</label> <select id="${id}" name="${opts.name}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ""}>${opts.options.map(
    ([v, t]) => html`<option value="${v}"${v === opts.value ? html` selected` : ""}>${t}</option>`
  )}</select>${error && html` <span id="${id}-error" class="error">${error}</span>`}`
}

/** A radio group in a fieldset with a legend; its error is tied to the fieldset. */
export const radios = (opts: {
  name: string
  legend: string
  value: string
  options: ReadonlyArray<readonly [string, Part]>
  errors?: Errors
}): Html => {
  const error = opts.errors?.[opts.name]
  return html`<fieldset${error ? html` aria-invalid="true" aria-describedby="${opts.name}-error"` : ""}><legend>${opts.legend}</legend>${opts.options.map(
    ([v, t], i) =>
      html`<label><input type="radio" id="${i === 0 ? opts.name : `${opts.name}-${v}`}" name="${opts.name}" value="${v}"${v === opts.value ? html` checked` : ""}> ${t}</label><br>`
  )}${error && html`<span id="${opts.name}-error" class="error">${error}</span>`}</fieldset>`
}

/** The summary at the top of a rejected form; each entry links to its field. */
export const errorSummary = (errors: Errors, labels: Readonly<Record<string, string>>): Html => {
  const names = Object.keys(errors)
  if (names.length === 0) return html``
  return html`<div role="alert" aria-labelledby="error-summary-title"><h2 id="error-summary-title">There ${names.length === 1 ? "is a problem" : `are ${names.length} problems`}</h2>
<ul>${names.map((n) => html`<li><a href="#${n}">${labels[n] ?? n}: ${errors[n]}</a></li>`)}</ul></div>`
}

/** A one-button form: the standard, script-free way to POST an action. */
export const actionButton = (
  ctx: TravelCtx,
  opts: { action: string; fields: Readonly<Record<string, string>>; label: string; ariaLabel?: string }
): Html =>
  html`<form method="post" action="${ctx.href(opts.action)}" class="inline">${Object.entries(opts.fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit"${opts.ariaLabel ? html` aria-label="${opts.ariaLabel}"` : ""}>${opts.label}</button></form>`

export const breadcrumb = (ctx: TravelCtx, items: ReadonlyArray<readonly [string, string]>): Html =>
  html`<nav aria-label="Breadcrumb"><ol>${items.map(([path, text], i) => html`<li><a href="${ctx.href(path)}"${i === items.length - 1 ? html` aria-current="page"` : ""}>${text}</a></li>`)}</ol></nav>`

export const notFound = (ctx: TravelCtx, why = "We could not find that page."): Response =>
  travelPage(ctx, {
    title: "Not found",
    status: 404,
    body: html`<h1>Page not found</h1><p>${why}</p><p><a href="${ctx.href("/")}">Back to the home page</a></p>`
  })
