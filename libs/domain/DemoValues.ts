/**
 * The values a path must enter (data rules 7): what a task's demo typed or picked that its
 * instruction names. An expansion path that never enters one of them is a claim the label
 * functions of its terminal steps cannot see through — "Add" clicked on an empty entry row
 * ends the task's path as the demo's "Add" does — so expansion refuses it.
 *
 * Pure. A value counts as entered when an action of the trajectory carries it: the text it
 * typed, the option it picked, the answer it gave, or the name or text of the element it
 * clicked (a category picked from a list rather than typed).
 *
 * @example
 * const values = demoValues(`add a transaction: payee "Gull Point Pharmacy", payment 18.40`, demo.steps.map((s) => s.action))
 * // ["Gull Point Pharmacy", "18.40"]
 * valuesLeftOut(values, trajectory.steps.map((s) => s.action)) // ["Gull Point Pharmacy", "18.40"] for a trajectory that typed neither
 */
import type { Action } from "@core/events"
import type { LfAction } from "./LfTrajectory.ts"
import { normalizeText } from "./StrategyGraph.ts"

/** The texts a demo typed or picked that the instruction names, each once, as the demo wrote them. */
export const demoValues = (instruction: string, actions: ReadonlyArray<Action>): ReadonlyArray<string> => {
  const said = normalizeText(instruction)
  const entered = actions.flatMap((a) => (a.kind === "type" ? [a.text] : a.kind === "select" ? [a.value] : []))
  const named = entered.filter((v) => normalizeText(v) !== "" && said.includes(normalizeText(v)))
  return [...new Map(named.map((v) => [normalizeText(v), v])).values()]
}

/** What an action carries that a value may be found in. */
const carried = (a: LfAction): ReadonlyArray<string> =>
  a.kind === "type"
    ? [a.typed ?? ""]
    : a.kind === "select"
      ? [a.value ?? ""]
      : a.kind === "answer"
        ? [a.answer ?? ""]
        : a.kind === "click"
          ? [a.name ?? "", a.text ?? ""]
          : []

/** The values no action of the trajectory carries, in the order given. */
export const valuesLeftOut = (values: ReadonlyArray<string>, actions: ReadonlyArray<LfAction>): ReadonlyArray<string> => {
  const texts = actions.flatMap(carried).map(normalizeText)
  return values.filter((v) => !texts.some((t) => t.includes(normalizeText(v))))
}
