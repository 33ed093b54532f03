/**
 * The word-level readings the features share: stems (remembered, since a page's names repeat
 * across a run's states), names with the instruction's words abstracted, overlaps, buckets,
 * and the screen's elements as form filling reads them.
 *
 * @example
 * abstractName("Harbor Smart Tent", stemSet("Buy 3 of Harbor Smart Tent"), "Buy 3 of Harbor Smart Tent") // "@"
 */
import { policyElement, stemsOf } from "@core/policy"
import type { PolicyElement } from "@core/policy"
import type { Screen } from "./Screen.ts"

/**
 * A page's names repeat across the states of a run (the same menu on every page, the same
 * page in many trajectories): their stems are computed once. Bounded, since a follower
 * trains for as long as it runs.
 */
export const memo = <A>(limit: number, f: (s: string) => A): ((s: string) => A) => {
  const cache = new Map<string, A>()
  return (s) => {
    const known = cache.get(s)
    if (known !== undefined) return known
    if (cache.size >= limit) cache.clear()
    const value = f(s)
    cache.set(s, value)
    return value
  }
}

export const stemSet = memo(100_000, (s: string): ReadonlySet<string> => new Set(stemsOf(s)))

/**
 * A name as the procedure knows it, not the instance: lower-case, numbers as `#`, and the
 * words the instruction says as `@` ("Harbor Smart Tent" in "Buy 3 of Harbor Smart Tent" is
 * `@`), so "click the product the task names, then Add to cart" is one feature across
 * every product.
 */
const abstractOnce = (name: string, instruction: ReadonlySet<string>): string => {
  const words = name.toLowerCase().match(/[a-z]+|\d+/g) ?? []
  const out: Array<string> = []
  for (const w of words.slice(0, 8)) {
    const a = /^\d/.test(w) ? "#" : w.length > 2 && instruction.has(w.replace(/(?:es|s)$/, "")) ? "@" : w
    if (a !== out.at(-1) || (a !== "@" && a !== "#")) out.push(a)
  }
  return out.join(" ")
}

const abstracted = new Map<string, string>()

/** `abstractOnce`, remembered per instruction and name: a task's states share both. */
export const abstractName = (name: string, instruction: ReadonlySet<string>, key: string): string => {
  const k = `${key}\u0000${name}`
  const known = abstracted.get(k)
  if (known !== undefined) return known
  if (abstracted.size >= 200_000) abstracted.clear()
  const a = abstractOnce(name, instruction)
  abstracted.set(k, a)
  return a
}

/** The instruction's template words: its first three words that are neither values nor quoted. */
export const taskKey = (instruction: string): string =>
  (
    instruction
      .replace(/["“][^"”]*["”]/g, " ")
      .toLowerCase()
      .match(/[a-z]+/g) ?? []
  )
    .slice(0, 3)
    .join(" ")

export const overlapOf = (words: ReadonlySet<string>, with_: ReadonlySet<string>): number => {
  let n = 0
  for (const w of words) if (with_.has(w)) n++
  return n
}

export const bucket = (x: number, cuts: ReadonlyArray<number>): number => {
  let b = 0
  for (let i = 0; i < cuts.length; i++) if (x >= cuts[i]!) b++
  return b
}

const TEXT_FIELDS = new Set(["textbox", "searchbox", "spinbutton", "combobox"])

/** The screen's elements as form filling reads them (fields by role: the lines carry no editable flag). */
export const policyElementsOf = (screen: Screen): ReadonlyArray<PolicyElement> =>
  screen.elements.map((e) => policyElement({ ...e, box: null, editable: TEXT_FIELDS.has(e.role) }))
