/** Booking step 2: passenger or guest details with validation next to each field, prefill from a saved traveller, and saving a traveller. */
import { html } from "../../framework/html.ts"
import { personErrors } from "../model.ts"
import type { Draft, Person } from "../types.ts"
import { errorSummary, field, select, travelPage } from "../ui.ts"
import type { Errors, TravelCtx } from "../ui.ts"
import { personLabel, wizardPage } from "./wizard.ts"

const FIELDS = { name: "full name", email: "email", dob: "date of birth", passport: "passport number" } as const

/** Fields for one person; names are prefixed ("p1-name"…) so several people fit in one form. */
export const personFields = (prefix: string, p: Person, errors: Errors, passportRequired: boolean) =>
  html`${field({ name: `${prefix}name`, label: "Full name (as on passport)", value: p.name, errors, required: true, autocomplete: prefix === "p1-" ? "name" : undefined })}
${field({ name: `${prefix}email`, label: "Email", value: p.email, errors, type: "email", required: true, hint: "For example name@example.com" })}
${field({ name: `${prefix}dob`, label: "Date of birth", value: p.dob, errors, required: true, hint: "Format YYYY-MM-DD, for example 1990-04-25" })}
${field({ name: `${prefix}passport`, label: passportRequired ? "Passport number" : "Passport number (optional)", value: p.passport, errors, required: passportRequired, hint: "2 capital letters and 7 digits, for example AB1234567" })}`

export const readPerson = (form: URLSearchParams, prefix: string): Person => ({
  name: (form.get(`${prefix}name`) ?? "").trim(),
  email: (form.get(`${prefix}email`) ?? "").trim(),
  dob: (form.get(`${prefix}dob`) ?? "").trim(),
  passport: (form.get(`${prefix}passport`) ?? "").trim().toUpperCase()
})

const messages: Record<string, string> = { prefilled: "Details filled in from your saved traveller." }

const form = (ctx: TravelCtx, d: Draft, persons: ReadonlyArray<Person>, errors: Errors): Response => {
  const failed = Object.keys(errors).length > 0
  const labels: Record<string, string> = {}
  persons.forEach((_, i) => {
    for (const [k, v] of Object.entries(FIELDS)) labels[`p${i + 1}-${k}`] = `${personLabel(d, i)} ${v}`
  })
  const saved = ctx.state.travellers
  return wizardPage(ctx, d, 2, {
    status: failed ? 422 : 200,
    errors: failed,
    message: messages[ctx.query.get("m") ?? ""],
    body: html`${errorSummary(errors, labels)}
${
  saved.length > 0 &&
  html`<form method="post" action="${ctx.href("/booking/2/prefill")}" aria-labelledby="prefill-title"><h2 id="prefill-title">Use a saved traveller</h2>
<p>${select({ name: "traveller", label: "Saved traveller", value: saved[0]!.id, options: saved.map((t) => [t.id, t.name] as const) })}
${d.people > 1 && select({ name: "slot", label: "Fill in for", value: "1", options: persons.map((_, i) => [String(i + 1), personLabel(d, i)] as const) })}
<button type="submit">Fill in from saved traveller</button></p></form>`
}
<form method="post" action="${ctx.href("/booking/2")}" novalidate aria-labelledby="details-title"><h2 id="details-title">${d.kind === "flight" ? "Passenger details" : "Lead guest details"}</h2>
${persons.map(
  (p, i) => html`<fieldset><legend>${personLabel(d, i)}</legend>${personFields(`p${i + 1}-`, p, errors, d.kind === "flight")}
<p><input type="checkbox" id="p${i + 1}-save" name="p${i + 1}-save" value="1"> <label for="p${i + 1}-save">Save ${personLabel(d, i).toLowerCase()} to my saved travellers</label></p></fieldset>`
)}
<p><a href="${ctx.href("/booking/1")}">Back to step 1</a> <button type="submit">Continue to step 3</button></p></form>`
  })
}

export const detailsPage = (ctx: TravelCtx, d: Draft): Response => form(ctx, d, d.persons, {})

export const saveDetails = (ctx: TravelCtx, d: Draft): Response => {
  const persons = d.persons.map((_, i) => readPerson(ctx.form, `p${i + 1}-`))
  const errors: Record<string, string> = {}
  persons.forEach((p, i) => {
    for (const [k, v] of Object.entries(personErrors(ctx.base, p, d.kind === "flight"))) errors[`p${i + 1}-${k}`] = v
  })
  if (Object.keys(errors).length > 0) return form(ctx, d, persons, errors)
  d.persons = persons
  persons.forEach((p, i) => {
    const known = ctx.state.travellers.some((t) => t.name === p.name && t.dob === p.dob)
    if (ctx.form.get(`p${i + 1}-save`) === "1" && !known) ctx.state.travellers.push({ id: nextTravellerId(ctx), ...p })
  })
  d.step = Math.max(d.step, 3)
  return ctx.redirect("/booking/3")
}

export const nextTravellerId = (ctx: TravelCtx): string => `T-${1 + Math.max(0, ...ctx.state.travellers.map((t) => Number(t.id.slice(2))))}`

/** POST /booking/2/prefill: copy a saved traveller into one passenger slot. */
export const prefillDetails = (ctx: TravelCtx): Response => {
  const d = ctx.state.draft
  if (!d || d.step < 2) return ctx.redirect(d ? `/booking/${d.step}` : "/booking/1")
  const t = ctx.state.travellers.find((x) => x.id === ctx.form.get("traveller"))
  const slot = Number(ctx.form.get("slot") ?? "1")
  if (!t || !Number.isInteger(slot) || slot < 1 || slot > d.persons.length) {
    return travelPage(ctx, {
      title: "Could not fill in details",
      status: 422,
      body: html`<h1>Could not fill in details</h1><p role="alert">Choose a saved traveller and a passenger.</p><p><a href="${ctx.href("/booking/2")}">Back to step 2</a></p>`
    })
  }
  d.persons[slot - 1] = { name: t.name, email: t.email, dob: t.dob, passport: t.passport }
  return ctx.redirect("/booking/2?m=prefilled")
}
