/**
 * A record saved under the name a form typed (synthesis 11, data rules 12): a wiki's demo
 * pressed "new tiddler", typed "Visitor Log" into the title, typed its text and pressed
 * "Confirm", which led to `/#Visitor%20Log`. The page the save led to is named by what the
 * form typed, so it says which record the save made; the page the form was on (the draft
 * of "New Tiddler") and the button that opened it are only a way there. Another way opens
 * the missing page `/#Visitor%20Log`, presses "Edit", finds the title already filled,
 * types the text and confirms: the same record.
 *
 * So the save is judged by where it led, not by the page it was pressed on; a field whose
 * value named the page holds where the field showed that value before such a save, however
 * it came there (typed, or filled by the page it was opened from); and on the goal-state
 * path the button that opened the form is the way, and the form's steps hold on any page.
 *
 * @example
 * namingSave(demo, typeTitle) // the "Confirm" step, whose page /#Visitor%20Log carries "Visitor Log"
 */
import { leaving } from "./LfTrajectory.ts"
import type { LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { normalizeText } from "./StrategyGraph.ts"
import { queryValue } from "./UrlPattern.ts"

/** Does `url` carry `value` as whole words? A value without a letter, or shorter than 3, names nothing by itself. */
export const carries = (url: string | null, value: string): boolean => {
  const v = normalizeText(value)
  if (url === null || v.length < 3 || !/\p{L}/u.test(v)) return false
  return ` ${normalizeText(queryValue(url).replace(/[^\p{L}\p{N}]+/gu, " "))} `.includes(` ${v.replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `)
}

/** A value typed over a field that stayed on its page: what a form sends. */
const fill = (s: LfStep): string | null => {
  const a = s.action
  if (a.kind !== "type" || a.mode === "insert" || a.submit || a.typed === null || s.urlAfter !== s.urlBefore) return null
  return a.typed.trim() === "" ? null : a.typed
}

/**
 * The save a fill named: the press (no link) that left the fill's page, when the page it
 * led to carries the value typed. Null otherwise.
 */
export const namingSave = (t: LfTrajectory, s: LfStep): LfStep | null => {
  const v = fill(s)
  const save = v === null ? undefined : leaving(t, s)
  if (save === undefined || save.action.kind !== "click" || save.action.role === null || save.action.role === "link") return null
  return carries(save.urlAfter, v!) ? save : null
}

/** Is `s` a save some fill on its page named (the page it led to carries a value typed there)? */
export const namedBySomeFill = (t: LfTrajectory, s: LfStep): boolean =>
  t.steps.some((p) => p.index < s.index && namingSave(t, p)?.index === s.index)

/**
 * The LF call that holds where the field showed the value before a later press of the save's
 * control that led to a page of `page` (the save's pattern).
 */
export const namedFieldCall = (field: { role: string; name: string; value: string }, save: LfStep, page: string): string => {
  const js = JSON.stringify
  return `validateElement(t, ${js(field.role)}, ${js(field.name)}, { value: ${js(field.value)} }, {
    where: function (s, t) {
      return t.steps.some(function (p) {
        return p.index > s.index && p.action.kind === "click" && norm(p.action.name) === norm(${js(save.action.name ?? "")}) && urlMatches(p.urlAfter, ${js(page)})
      })
    }
  })`
}

/** The notes LFs of a named save carry. */
export const NAMED_SAVE = "The page it led to is named by what the form typed: that says which record, not the page it was pressed on."
export const NAMED_FIELD = "Or the field showed the value before a save led to the page it named, however it came there."
