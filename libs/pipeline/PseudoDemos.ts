/**
 * An extrapolated task's pseudo-demo as the pipeline uses it: the parent trajectory's kept
 * steps (libs/domain PseudoDemo), each with the screen it was taken on, and the closing claim
 * added when the parent walked on. Label inference reads it as a trajectory; the dataset
 * turns each of its steps into an sft record.
 *
 * @example
 * const steps = pseudoDemoSteps(parent, { stepIndices: [3, 4], addsClosing: true })
 * steps.map((s) => s.action.kind) // ["click", "click", "status"]
 */
import { Effect } from "effect"
import type { Action, Observation } from "@core/events"
import { identifyKeySteps, prunePseudoDemo } from "@core/domain"
import type { ExtrapolationStep, PseudoDemoPlan } from "@core/domain"
import type { ExtrapolatedInfo, TrajectoryData } from "./RunState.ts"
import { loadRecordedTrajectory } from "./Trajectories.ts"

/** One step of a pseudo-demo: the screen before it, the action, and the screen after. */
export interface PseudoDemoStep {
  readonly before: Observation
  readonly action: Action
  readonly after: Observation
}

const COMPLETE: Action = { kind: "status", status: "complete" }

/** The plan a logged extrapolation recorded: its kept steps, or (before the data rules of version 2) a prefix. */
export const planOf = (x: Pick<ExtrapolatedInfo, "pseudoDemoSteps" | "pseudoDemoStepIndices" | "pseudoDemoAddsClosing">) =>
  ({
    stepIndices: x.pseudoDemoStepIndices ?? Array.from({ length: x.pseudoDemoSteps }, (_, i) => i),
    addsClosing: x.pseudoDemoAddsClosing
  }) satisfies PseudoDemoPlan

/** The pseudo-demo's steps, with the screens the parent saw: an added claim is made on the page the last kept step left. */
export const pseudoDemoSteps = (parent: TrajectoryData, plan: PseudoDemoPlan): ReadonlyArray<PseudoDemoStep> => {
  const steps = plan.stepIndices.flatMap((i) => {
    const step = parent.steps[i]
    if (step === undefined) return []
    return [{ before: i === 0 ? parent.initial : parent.steps[i - 1]!.observation, action: step.action, after: step.observation }]
  })
  const last = steps.at(-1)
  if (!plan.addsClosing || last === undefined) return steps
  return [...steps, { before: last.after, action: COMPLETE, after: { ...last.after, error: null } }]
}

/**
 * The pseudo-demo as a recorded trajectory, for label inference: it starts on the screen its
 * first step was taken on, and each step's page is the one the step before it left (the kept
 * steps form a chain, so the URLs agree).
 */
export const pseudoDemoTrajectory = (parent: TrajectoryData, plan: PseudoDemoPlan): TrajectoryData => {
  const steps = pseudoDemoSteps(parent, plan)
  return {
    ...parent,
    initial: steps[0]?.before ?? parent.initial,
    steps: steps.map((s) => ({ action: s.action, observation: s.after }))
  }
}

/** A recorded trajectory's steps with the page each was taken on. */
export const extrapolationSteps = (t: TrajectoryData): ReadonlyArray<ExtrapolationStep> =>
  t.steps.map((st, k) => ({
    action: st.action,
    urlBefore: k === 0 ? t.initial.url : t.steps[k - 1]!.observation.url,
    urlAfter: st.observation.url
  }))

/**
 * The pseudo-demo of a proposal (data rules 2): the steps that played the template's key
 * steps — for a model's intent, the steps key-step identification keeps — and the steps
 * leading to them, loops dropped, closed with a claim.
 */
export const planPseudoDemo = (
  data: TrajectoryData,
  x: { readonly steps: number; readonly matched: ReadonlyArray<number> | null },
  hashRouting: boolean
) =>
  Effect.gen(function* () {
    const steps = extrapolationSteps(data)
    if (x.matched !== null) return prunePseudoDemo(steps, { keySteps: x.matched, end: x.steps })
    const t = yield* loadRecordedTrajectory({ ...data, steps: data.steps.slice(0, x.steps) }, hashRouting)
    return prunePseudoDemo(steps, { keySteps: identifyKeySteps(t).map((k) => k.stepIndex), end: x.steps })
  })
