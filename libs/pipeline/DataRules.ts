/**
 * What each version of the data rules ({@link DATA_RULES_VERSION}) does, asked by name: a
 * decider reads `dropsNoOpPaths(config.dataRules)` rather than comparing version literals,
 * so a new version says here which rules it keeps. Replay decides every run by the version
 * its RunStarted recorded.
 *
 * @example
 * if (dropsNoOpPaths(config.dataRules)) … // refuse a path whose extra steps did nothing
 */
import type { RunConfig } from "./RunConfig.ts"

export type DataRulesVersion = RunConfig["dataRules"]

/** Version 2 on: paths are told apart by their label functions, and a node with the same LF and kind is that node. */
export const identifiesPathsByMeaning = (v: DataRulesVersion): boolean => v !== "1"

/** Version 2 on: a verdict reads a page's form fields in any order and refuses a goal the trajectory undid before its claim. */
export const commutesAndRefusesUndone = (v: DataRulesVersion): boolean => v !== "1"

/** Version 4 on: a path that ends with an answer is reached by its answer alone (Expansion `answerAlone`). */
export const reachesAnswerAlone = (v: DataRulesVersion): boolean => !["1", "2", "3"].includes(v)

/** Version 5 on: expansion refuses a path whose extra key steps changed nothing (Expansion `noOpSteps`). */
export const dropsNoOpPaths = (v: DataRulesVersion): boolean => !["1", "2", "3", "4"].includes(v)
