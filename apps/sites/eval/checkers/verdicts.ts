/** Building blocks every site's checkers share. EVALUATION CODE ONLY (see ../state.ts). */
import type { CheckInput, Verdict } from "./types.ts"

export const pass = (reason: string): Verdict => ({ success: true, reason })
export const fail = (reason: string): Verdict => ({ success: false, reason })

/** Equal ignoring case and surrounding space: how a person would compare two names. */
export const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase()

/** Every number in a free-text answer ("$1,234.50 each" → [1234.5]). */
export const numbers = (text: string): Array<number> => [...text.replaceAll(",", "").matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]))

/** The path of the agent's final URL, without query or fragment. */
export const finalPath = (input: CheckInput): string | null => {
  if (!input.finalUrl) return null
  try {
    return new URL(input.finalUrl, "http://x").pathname
  } catch {
    return null
  }
}

/** Navigation tasks: the state API records no navigation, so the final URL is the evidence. */
export const endedOn = (input: CheckInput, want: string, what: string): Verdict =>
  finalPath(input) === want
    ? pass(`ended on ${what}`)
    : fail(`expected to end on ${want} (${what}), ended on ${input.finalUrl ?? "no page"}`)

/** An answer task is done when the agent answered and did not call it infeasible; returns the answer or the failing verdict. */
export const answered = (input: CheckInput): string | Verdict => {
  if (input.status === "infeasible") return fail("the task is feasible, but the agent reported it infeasible")
  if (input.answer === undefined || input.answer === null || input.answer.trim() === "") return fail("no answer given")
  return input.answer
}
