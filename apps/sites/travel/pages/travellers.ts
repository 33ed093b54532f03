/** Saved travellers: list, add and edit; step 2 of the booking wizard can fill a passenger in from one. */
import { html } from "../../framework/html.ts"
import { personErrors } from "../model.ts"
import type { Person, Traveller } from "../types.ts"
import { errorSummary, notFound, travelPage } from "../ui.ts"
import type { Errors, TravelCtx } from "../ui.ts"
import { nextTravellerId, personFields, readPerson } from "./details.ts"

const labels = { name: "Full name", email: "Email", dob: "Date of birth", passport: "Passport number" }
const messages: Record<string, string> = { added: "Traveller saved.", updated: "Traveller updated." }
const empty: Person = { name: "", email: "", dob: "", passport: "" }

const travellerForm = (ctx: TravelCtx, action: string, title: string, values: Person, errors: Errors, button: string) =>
  html`${errorSummary(errors, labels)}<form method="post" action="${ctx.href(action)}" novalidate aria-labelledby="traveller-form-title"><h2 id="traveller-form-title">${title}</h2>
${personFields("", values, errors, false)}<button type="submit">${button}</button></form>`

const listPage = (ctx: TravelCtx, values: Person, errors: Errors, status = 200): Response =>
  travelPage(ctx, {
    title: status === 422 ? "Saved travellers — please fix the errors" : "Saved travellers",
    status,
    message: messages[ctx.query.get("m") ?? ""],
    body: html`<h1>Saved travellers</h1><p>Saved travellers can be filled in at the passenger details step of a booking.</p>
${
  ctx.state.travellers.length === 0
    ? html`<p>No saved travellers.</p>`
    : html`<ul aria-label="Saved travellers">${ctx.state.travellers.map(
        (t) =>
          html`<li>${t.name} · ${t.email} · born ${t.dob}${t.passport && ` · passport ${t.passport}`} <a href="${ctx.href(`/travellers/${t.id}`)}" aria-label="Edit ${t.name}">Edit</a></li>`
      )}</ul>`
}
${travellerForm(ctx, "/travellers", "Add a traveller", values, errors, "Save traveller")}`
  })

export const travellersPage = (ctx: TravelCtx): Response => listPage(ctx, empty, {})

const check = (ctx: TravelCtx): { values: Person; errors: Record<string, string> } => {
  const values = readPerson(ctx.form, "")
  return { values, errors: personErrors(ctx.base, values, false) }
}

export const addTraveller = (ctx: TravelCtx): Response => {
  const { values, errors } = check(ctx)
  if (Object.keys(errors).length > 0) return listPage(ctx, values, errors, 422)
  ctx.state.travellers.push({ id: nextTravellerId(ctx), ...values })
  return ctx.redirect("/travellers?m=added")
}

const editPage = (ctx: TravelCtx, t: Traveller, values: Person, errors: Errors, status = 200): Response =>
  travelPage(ctx, {
    title: status === 422 ? `Edit ${t.name} — please fix the errors` : `Edit ${t.name}`,
    status,
    body: html`<h1>Edit traveller ${t.name}</h1>${travellerForm(ctx, `/travellers/${t.id}`, "Traveller details", values, errors, "Save changes")}<p><a href="${ctx.href("/travellers")}">Back to saved travellers</a></p>`
  })

export const travellerPage = (ctx: TravelCtx): Response => {
  const t = ctx.state.travellers.find((x) => x.id === ctx.params.id)
  return t ? editPage(ctx, t, t, {}) : notFound(ctx, "There is no such saved traveller.")
}

export const updateTraveller = (ctx: TravelCtx): Response => {
  const t = ctx.state.travellers.find((x) => x.id === ctx.params.id)
  if (!t) return notFound(ctx, "There is no such saved traveller.")
  const { values, errors } = check(ctx)
  if (Object.keys(errors).length > 0) return editPage(ctx, t, values, errors, 422)
  Object.assign(t, values)
  return ctx.redirect("/travellers?m=updated")
}
