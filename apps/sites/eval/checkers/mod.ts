/**
 * The ground-truth checker registry: every checker a suite may name (the names and the
 * parameters they need are declared in `../../suites/vocabulary.ts`; this record must
 * cover exactly those, or it does not compile). EVALUATION CODE ONLY (see ../state.ts).
 */
import type { CheckerName } from "../../suites/vocabulary.ts"
import { forumCheckers } from "./forum.ts"
import { shopCheckers } from "./shop.ts"
import { travelCheckers } from "./travel.ts"
import type { CheckInput, Checker, Verdict } from "./types.ts"

export type { CheckInput, Checker, Verdict } from "./types.ts"

export const checkers: Readonly<Record<CheckerName, Checker>> = { ...shopCheckers, ...forumCheckers, ...travelCheckers }

/** Runs the named checker. A checker that throws (state API down, bad parameters) is a rejected promise, never a verdict. */
export const check = (name: string, input: CheckInput): Promise<Verdict> => {
  const checker = (checkers as Readonly<Record<string, Checker>>)[name]
  return checker ? checker(input) : Promise.reject(new Error(`unknown checker '${name}' (known: ${Object.keys(checkers).join(", ")})`))
}
