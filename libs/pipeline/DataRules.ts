/**
 * What each version of the data rules ({@link DATA_RULES_VERSION}) does, asked by name: a
 * decider reads `dropsNoOpPaths(config.dataRules)` rather than comparing version literals,
 * so a new version says here which rules it keeps. Replay decides every run by the version
 * its RunStarted recorded.
 *
 * @example
 * if (dropsNoOpPaths(config.dataRules)) … // refuse a path whose extra steps did nothing
 */
import { versioned } from "@core/domain"
import type { RunConfig } from "./RunConfig.ts"

export type DataRulesVersion = RunConfig["dataRules"]

const since = versioned<DataRulesVersion>(["1", "2", "3", "4", "5", "6", "7"]).since

/** Version 2 on: paths are told apart by their label functions, and a node with the same LF and kind is that node. */
export const identifiesPathsByMeaning = since("2")

/** Version 2 on: a verdict reads a page's form fields in any order and refuses a goal the trajectory undid before its claim. */
export const commutesAndRefusesUndone = since("2")

/** Version 4 on: a path that ends with an answer is reached by its answer alone (Expansion `answerAlone`). */
export const reachesAnswerAlone = since("4")

/** Version 5 on: expansion refuses a path whose extra key steps changed nothing (Expansion `noOpSteps`). */
export const dropsNoOpPaths = since("5")

/**
 * Version 6 on: a partial trajectory that solved its task by expansion's rule, and that a
 * path its round added accepts, counts as a pass (`TrajectoryPromoted`) — the run that
 * taught the graph a way is itself data of that way, as the method's expansion intends.
 */
export const promotesSolvedPartials = since("6")

/**
 * Version 7 on: expansion refuses a path whose trajectory never enters a value the task's
 * demo typed or picked from its instruction (`demoValues`, `valuesLeftOut`). On a budget
 * app an explorer that clicked "Add" on an empty entry row met the terminal steps of the
 * demo's path, added a path with no typing in it, and was promoted: the one false pass of
 * its run.
 */
export const refusesPathsWithoutValues = since("7")
