/**
 * HTML built by a tagged template that escapes every interpolated value. Text from demos,
 * pages and models is hostile (an element named `<img src=x onerror=alert(1)>`), so nothing
 * reaches a page unescaped unless it is already `Html` — built here, or by `trusted` for
 * markup this package generates itself.
 *
 * @example
 * html`<td>${name}</td>`            // name is escaped
 * html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`
 */

export interface Html {
  readonly _tag: "Html"
  readonly text: string
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" }

/** Safe in element text and in quoted attribute values. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!)

const isHtml = (v: unknown): v is Html => typeof v === "object" && v !== null && (v as Html)._tag === "Html"

const part = (v: unknown): string => {
  if (v === null || v === undefined || v === false) return ""
  if (isHtml(v)) return v.text
  if (Array.isArray(v)) return v.map(part).join("")
  return escapeHtml(String(v))
}

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): Html => {
  let text = strings[0]!
  for (let i = 0; i < values.length; i++) text += part(values[i]) + strings[i + 1]!
  return { _tag: "Html", text }
}

/** Markup this package generated and escaped itself (an SVG drawn from escaped labels). Never page or model text. */
export const trusted = (text: string): Html => ({ _tag: "Html", text })
