/**
 * A value as the app shows it afterwards (synthesis 10, data rules 11): the record a change
 * made, read where the demo saw it again. A shop's demo typed 3 into "Quantity" on a
 * product's page and added it to the cart; the cart page it opened later showed a field
 * "Quantity for Acme Classic Puzzle Book" holding 3. That field is the outcome, whatever
 * way it came there: another way adds the book first and sets 3 in the cart, and never
 * types into "Quantity" at all.
 *
 * An echo of a filled field (typed over, or an option chosen) is the first element, on a
 * page the demo reached after leaving the field's page, of the field's role, holding the
 * field's value, whose name is the field's name and more (the item it is for). Only a page
 * a step loaded counts (its URL changed): a field typed into and not yet saved shows the
 * value too, and says nothing of what the app holds.
 *
 * @example
 * echoOf(demo, typeQuantity) // { stepIndex: 7, role: "spinbutton", name: "Quantity for Acme Classic Puzzle Book", value: "3", page: "/shop/cart" }
 */
import type { LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { normalizeText } from "./StrategyGraph.ts"
import { urlPattern } from "./UrlPattern.ts"

export interface Echo {
  /** The demo step after which the page showed it. */
  readonly stepIndex: number
  readonly role: string
  readonly name: string
  readonly value: string
  /** The URL that step loaded (path + query). */
  readonly page: string
}

const words = (s: string): ReadonlyArray<string> =>
  normalizeText(s)
    .split(" ")
    .filter((w) => w !== "")

/** Is `name` the field's name and more: every word of it, in order at its start, then at least one word it lacks? */
const namedFor = (name: string, field: string): boolean => {
  const n = words(name)
  const f = words(field)
  return f.length > 0 && n.length > f.length && f.every((w, i) => n[i] === w)
}

/** What a fill left in its field: the text typed over it, or the option's value the field shows after. */
const filled = (s: LfStep): { role: string; name: string; value: string } | null => {
  const a = s.action
  if (a.role === null || a.name === null || a.name.trim() === "") return null
  if (a.kind === "type" && a.mode !== "insert" && !a.submit && a.typed !== null && a.typed.trim() !== "")
    return { role: a.role, name: a.name, value: a.typed }
  if (a.kind !== "select") return null
  const own = s.elements?.find((e) => e.role === a.role && e.name === a.name)
  return own === undefined || own.value === null || own.value.trim() === "" ? null : { role: a.role, name: a.name, value: own.value }
}

/** The echo of the fill at `s` later in `t`, or null when the demo never showed one. */
export const echoOf = (t: LfTrajectory, s: LfStep): Echo | null => {
  const field = filled(s)
  if (field === null || s.urlAfter !== s.urlBefore) return null
  const at = t.steps.indexOf(s)
  const left = t.steps.findIndex((p, i) => i > at && p.urlAfter !== null && p.urlAfter !== p.urlBefore)
  if (left < 0) return null
  const value = normalizeText(field.value)
  for (const p of t.steps.slice(left)) {
    if (p.urlAfter === null || p.urlAfter === p.urlBefore) continue
    const e = p.elements?.find(
      (x) => x.role === field.role && x.value !== null && normalizeText(x.value) === value && namedFor(x.name, field.name)
    )
    if (e !== undefined) return { stepIndex: p.index, role: e.role, name: e.name, value: e.value!, page: p.urlAfter }
  }
  return null
}

/** Does the page after `s` show an element named for the field `key` names (its role, its name and more): the echo a match was read off? */
export const showsEchoOf = (s: LfStep, key: { readonly role: string | null; readonly name: string | null }): boolean =>
  key.role !== null && key.name !== null && (s.elements ?? []).some((e) => e.role === key.role && namedFor(e.name, key.name!))

/**
 * The LF call that holds where a page a step loaded shows the echo: on the echo's page (its
 * path; a query such as `?m=updated` is how it was reached, not what it holds).
 */
export const echoCall = (e: Echo): string => {
  const js = JSON.stringify
  const path = e.page.split("?")[0]!
  return `validateElement(t, ${js(e.role)}, ${js(e.name)}, { value: ${js(e.value)} }, {
    urlAfter: ${js(urlPattern(path))},
    where: function (s) { return s.urlAfter !== s.urlBefore }
  })`
}

/** The note an LF with an echo carries. */
export const ECHOED = "Or the app shows the value afterwards, in the field it keeps for the item, on a page a step loaded."
