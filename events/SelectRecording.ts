/**
 * A select as logs, demos and datasets hold it: by the value of the option it picked. A
 * person's demo is recorded by the option's value ("top"); a policy reading the page's
 * accessibility snapshot names the option by its label ("Top score"). Recorded alike, one
 * label function checks both. The label the policy asked for is kept beside the value, so
 * replay can tell that the same option was asked for again.
 *
 * @example
 * resolvedSelect({ kind: "select", target, value: "Top score" }, "top")
 * // { kind: "select", target, value: "top", label: "Top score" }
 */
import { canonicalJson } from "./Canonical.ts"
import type { Action } from "./Trajectory.ts"

type SelectAction = Extract<Action, { kind: "select" }>

/** The record of `action` once the environment found the option it names: `optionValue` is that option's value. */
export const resolvedSelect = (action: SelectAction, optionValue: string): SelectAction =>
  optionValue === action.value ? action : { ...action, value: optionValue, label: action.value }

/** Replay's check for a resolved select: the decider asks for a select on the same target by the label the record kept. */
export const matchesResolvedSelect = (recorded: Action, requested: Action): boolean =>
  recorded.kind === "select" &&
  requested.kind === "select" &&
  recorded.label !== undefined &&
  requested.label === undefined &&
  requested.value === recorded.label &&
  canonicalJson(recorded.target) === canonicalJson(requested.target)
