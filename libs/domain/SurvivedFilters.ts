/**
 * Filters a choice survived (synthesis 10, data rules 11): a demo searched flights, set
 * "Nonstop only" and "Price: lowest first", applied them, and pressed "Select flight BW810"
 * on the filtered list, whose URL carries `stops=0&sort=price`. The unfiltered list the
 * demo saw before already showed "Select flight BW810": the filters only narrowed a list
 * the choice was on, so they were a way of finding it, not part of what was chosen. A way
 * that scanned the unfiltered list and pressed the same button made the same booking.
 *
 * The page a control was pressed on, read without those filters, is the latest earlier page
 * of the demo with the same path whose query is a part of that page's (every parameter it
 * sets, set alike; an empty one sets nothing) and that already showed a control of the same
 * role and name.
 *
 * @example
 * survivedPage(demo, selectBW810) // "/travel/flights?trip=oneway&from=prague&to=barcelona&date=2029-07-25&passengers=1"
 */
import type { LfStep, LfTrajectory } from "./LfTrajectory.ts"
import { queryPairs } from "./UrlPattern.ts"

/** The parameters a URL sets: an empty value sets nothing (`return=`, `airline=`). */
export const setParams = (url: string): ReadonlyMap<string, string> =>
  new Map(queryPairs(url).flatMap((p) => (p.raw === "" ? [] : [[p.key, p.raw] as const])))

export const pathOf = (url: string): string => url.split("?")[0]!

/** The URL `s`'s control was pressed on, without the filters it survived; null when it survived none. */
export const survivedPage = (t: LfTrajectory, s: LfStep): string | null => {
  const a = s.action
  if (a.kind !== "click" || a.role === null || a.name === null || s.urlBefore === null) return null
  const here = setParams(s.urlBefore)
  if (here.size === 0) return null
  const at = t.steps.indexOf(s)
  for (const p of t.steps.slice(0, Math.max(0, at)).reverse()) {
    const page = p.urlAfter
    if (page === null || pathOf(page) !== pathOf(s.urlBefore)) continue
    const there = setParams(page)
    const part = there.size < here.size && [...there].every(([k, v]) => here.get(k) === v)
    if (part && (p.elements ?? []).some((e) => e.role === a.role && e.name === a.name)) {
      return there.size === 0 ? pathOf(page) : `${pathOf(page)}?${[...there].map(([k, v]) => `${k}=${v}`).join("&")}`
    }
  }
  return null
}
