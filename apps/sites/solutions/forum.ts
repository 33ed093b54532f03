/**
 * Scripted solutions of the forum suite: for every template, one script per path family
 * (ids as in suites/forum.json; the first family is the primary one, whose run is the
 * instance's expert demo). Targets are found by role + accessible name at run time.
 */
import type { ForumBase } from "../forum/types.ts"
import type { Step } from "./Runner.ts"
import type { Params } from "./Script.ts"

export type ForumScript = (p: Params, base: ForumBase) => ReadonlyArray<Step>

/** Template id → path family id → script. */
export const forumSolutions: Readonly<Record<string, Readonly<Record<string, ForumScript>>>> = {}
