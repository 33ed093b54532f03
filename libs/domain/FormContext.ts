/**
 * The page a step acted on, as an LF's evidence of its context: the elements before it, the
 * URL it happened on without what an earlier button added (`pageContext`), and a form's
 * context read from its fields rather than its query (synthesis 8, `formContext`).
 *
 * @example
 * pageContext(demo, clickPublish) // "/forum/submit?board=books"
 * formContext(demo, clickPublish) // { page: "^/forum/submit(\\?.*)?$", check: "(urlMatches(…) || …hasElement(before, \"combobox\", \"Board\", …))" }
 */
import type { LfElement, LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { escapeRe, generalise, queryPairs, urlPattern } from "./UrlPattern.ts"

const js = (s: string): string => JSON.stringify(s)

/** The elements on the page before a step: the previous step's, or the trajectory's initial ones. */
export const elementsBefore = (t: LfTrajectory, s: LfStep): ReadonlyArray<LfElement> | null => {
  const at = t.steps.indexOf(s)
  return at > 0 ? t.steps[at - 1]!.elements : t.initialElements
}

/** Button-like clicks (not links) whose URL changed minted what they led to. */
export const mintedBy = (s: LfStep): boolean =>
  (s.action.kind === "click" || s.action.kind === "key" || (s.action.kind === "type" && s.action.submit)) &&
  s.action.role !== "link" &&
  s.urlAfter !== s.urlBefore

/**
 * The URL a click happened on, as evidence of its context. Query parameters a link or a
 * typed address led to are context (`/forum/submit?board=books`); those an earlier button
 * added are that button's result (`?added=cart`, `?m=saved`) and are left out, with the
 * page's path kept.
 */
export const pageContext = (t: LfTrajectory, s: LfStep): string => {
  const url = s.urlBefore!
  const at = t.steps.indexOf(s)
  const cameFrom = t.steps.slice(0, Math.max(0, at)).findLast((p) => p.urlAfter === url && p.urlAfter !== p.urlBefore)
  return cameFrom !== undefined && mintedBy(cameFrom) ? url.split("?")[0]! : url
}

/** Roles whose value a person sets and a form submits. */
const FIELD_ROLES = new Set(["combobox", "textbox", "searchbox", "spinbutton"])

/**
 * Version 8: a control pressed on a page whose query is its context (`/submit?board=books`),
 * when every query value shows as a field's value on the page it was pressed on (the Board
 * select reading "books"): the context is those fields, so the same form reached without the
 * query (a header's "Create post", its board chosen) is the same key step. A query that
 * names the parameter with another value still refuses it: the field may not be what the
 * control submits. Null when the page has no query or a value shows in no field.
 */
export const formContext = (t: LfTrajectory, s: LfStep): { readonly page: string; readonly check: string } | null => {
  const url = pageContext(t, s)
  const q = url.indexOf("?")
  const before = elementsBefore(t, s)
  if (q < 0 || before === null) return null
  const checks: Array<string> = []
  for (const { key, raw, value } of queryPairs(url)) {
    if (raw === "") continue
    const field = before.find((e) => FIELD_ROLES.has(e.role) && e.name.trim() !== "" && e.value !== null && e.value.trim() === value.trim())
    if (field === undefined) return null
    const k = escapeRe(key)
    checks.push(
      `(urlMatches(s.urlBefore, ${js(`[?&]${k}=${generalise(raw, false)}(&|$)`)}) || (!urlMatches(s.urlBefore, ${js(`[?&]${k}=`)}) && hasElement(before, ${js(field.role)}, ${js(field.name)}, { value: ${js(field.value!)} })))`
    )
  }
  return checks.length === 0 ? null : { page: urlPattern(url.slice(0, q)), check: checks.join(" &&\n      ") }
}

/** A `where` option over the step and the page before it: the form's fields, then any state evidence. */
export const formWhere = (check: string, state: string | undefined): string =>
  [
    "function (s, t) {",
    "      var at = t.steps.indexOf(s)",
    "      var before = at > 0 ? t.steps[at - 1] : { elements: t.initialElements }",
    `      return ${check}${state === undefined ? "" : ` &&\n      (${state})(s, t)`}`,
    "    }"
  ].join("\n")
