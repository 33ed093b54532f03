/**
 * Scripted solutions of the travel suite: for every template, one script per path family
 * (ids as in suites/travel.json; the first family is the primary one, whose run is the
 * instance's expert demo). Targets are found by role + accessible name at run time.
 */
import type { TravelBase } from "../travel/types.ts"
import type { Step } from "./Runner.ts"
import type { Params } from "./Script.ts"

export type TravelScript = (p: Params, base: TravelBase) => ReadonlyArray<Step>

/** Template id → path family id → script. */
export const travelSolutions: Readonly<Record<string, Readonly<Record<string, TravelScript>>>> = {}
