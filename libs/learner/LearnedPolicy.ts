/**
 * The learned policy as a `Policy`: it scores every candidate of the live view with the
 * trained weights and draws one (softmax at a low temperature, from the episode's seeded
 * draws), then fills in what the candidate leaves open — the text to type or the option to
 * select from the form plan that matched the field, else the instruction's quoted or named
 * value; an answer read off the page as the exploration policy reads it. A candidate it
 * cannot fill is set aside and another drawn. With no model yet it explores.
 *
 * @example
 * const action = yield* learnedPolicy({ model, exploration: { version: EXPLORATION.current } }).act(view, draws)
 */
import { Effect } from "effect"
import { explorationRulesAt } from "@core/domain"
import type { Action } from "@core/events"
import {
  answerFromPage,
  asksForChange,
  describeAction,
  explorationAction,
  explorationInput,
  formPlans,
  isQuestion,
  madeChange,
  softmaxDraw
} from "@core/policy"
import type { Draws, EpisodeView, ExplorationPolicyOptions, Policy, PolicyElement, PolicyInput } from "@core/policy"
import { FINAL_KINDS } from "./Candidates.ts"
import type { Candidate } from "./Candidates.ts"
import { stateFeatures } from "./Features.ts"
import { scoresOf } from "./Hashing.ts"
import { textFeatures, textOptions } from "./TextChoice.ts"
import { weightsOf } from "./Model.ts"
import type { LearnedModel } from "./Model.ts"
import { screenElements } from "./Screen.ts"
import type { Screen, ScreenElement } from "./Screen.ts"

/** What trajectories of the learned policy record as their policy. */
export const LEARNED_POLICY = "learned-v1"

/** Far lower than the exploration policy's 0.6: the scores are learned, so the policy mostly takes the best. */
const TEMPERATURE = 0.15

export interface LearnedPolicyOptions {
  /** The weights trained so far; null or absent: the policy explores. */
  readonly model?: LearnedModel | null
  /** The exploration policy it falls back to without a model, and whose rules read the view. */
  readonly exploration?: ExplorationPolicyOptions
}

export const screenOfView = (view: EpisodeView): Screen => ({
  instruction: view.instruction,
  url: view.url,
  title: view.title,
  elements: screenElements(view.elements),
  history: view.history.map((h) => describeAction(h.action)),
  step: view.step
})

const targetOf = (e: PolicyElement) => ({ role: e.role, name: e.name, elementId: e.id, text: e.text === "" ? null : e.text })

interface Filling {
  readonly input: PolicyInput
  readonly screen: Screen
  readonly model: LearnedModel
  /** The exploration policy's last step: an answer for a question (read off the page where it can), else complete. */
  readonly finish: () => Action
  /** The answer the page shows for the question, or null: an answer is offered only where there is one to read. */
  readonly read: string | null
  /** On the last step an answer is given even when nothing was read: it is the last chance. */
  readonly last: boolean
  /** The task asks for a change and the episode has made none yet: complete would claim what nothing backs. */
  readonly owed: boolean
}

/** The learned text for a field: the best-scored of its options (the text memory's among them); null when it has none. */
export const chooseText = (model: LearnedModel, screen: Screen, field: ScreenElement): string | null => {
  const options = textOptions(screen, field, model.texts ?? [])
  if (options.length === 0) return null
  const scores = scoresOf(weightsOf(model), textFeatures(screen, field, options))
  let best = 0
  for (let i = 1; i < options.length; i++) if (scores[i]! > scores[best]!) best = i
  return options[best]!.text
}

/** The action a winning candidate is, filled in; null when there is nothing to fill it with. */
const actionOf = (c: Candidate, f: Filling): Action | null => {
  const input = f.input
  switch (c.kind) {
    case "complete":
      return f.owed && !f.last ? null : { kind: "status", status: "complete" }
    case "infeasible":
      return { kind: "status", status: c.kind }
    case "back":
      return { kind: "back" }
    case "scroll":
      return { kind: "scroll", target: null, direction: "down" }
    case "answer": {
      if (f.read !== null) return { kind: "answer", text: f.read }
      const a = f.finish()
      return f.last && a.kind === "answer" && a.text.trim() !== "" ? a : null
    }
  }
  const element = input.elements.find((e) => e.id === c.element!.id)
  if (element === undefined) return null
  if (c.kind === "click") return { kind: "click", target: targetOf(element) }
  const planned = formPlans(input.instruction, input.elements)
    .flatMap((p) => p.matched)
    .find((f) => f.field.id === element.id)?.action
  if (c.kind === "select") return planned?.kind === "select" ? planned : null
  const text = chooseText(f.model, f.screen, c.element!)
  if (text === null || text === "") return null
  return { kind: "type", target: targetOf(element), text, ...(c.kind === "type-submit" ? { submit: true } : {}) }
}

/** The learned policy at the given weights. */
export const learnedPolicy = (options: LearnedPolicyOptions = {}): Policy => {
  const { version: explorationVersion, ...tuning } = options.exploration ?? {}
  const exploration = { ...tuning, rules: explorationRulesAt(explorationVersion) }
  const model = options.model ?? null
  return {
    name: LEARNED_POLICY,
    version: model === null ? "untrained" : model.version,
    act: (view, draws) =>
      Effect.sync(() => {
        const input = explorationInput(view, exploration.rules)
        if (model === null) return explorationAction(input, draws, exploration)
        return learnedAction(model, view, input, draws, {
          finish: () => explorationAction({ ...input, stepBudget: input.history.length + 1 }, draws, exploration),
          read: exploration.rules.readsAnswers
            ? answerFromPage(view.instruction, view.page, { namesOnly: exploration.rules.readsNamesNotWords })
            : null
        })
      })
  }
}

/**
 * A task that asks for a change, in an episode that has typed, picked, toggled or pressed no
 * button yet (a button is how most apps save: "Add to wish list", "Post review").
 */
const changeOwed = (view: EpisodeView): boolean =>
  !isQuestion(view.instruction) &&
  asksForChange(view.instruction) &&
  !madeChange(view.history) &&
  !view.history.some((h) => h.error === null && h.action.kind === "click" && h.action.target?.role === "button")

const learnedAction = (
  model: LearnedModel,
  view: EpisodeView,
  input: PolicyInput,
  draws: Draws,
  reading: Pick<Filling, "finish" | "read">
): Action => {
  const w = weightsOf(model)
  const screen = screenOfView(view)
  const f = stateFeatures(screen)
  const last = view.history.length >= view.stepBudget - 1
  const filling: Filling = { ...reading, input, screen, model, last, owed: changeOwed(view) }
  const scores = scoresOf(w, f)
  let open = f.candidates.map((c, i) => ({ c, score: scores[i]! })).filter(({ c }) => !last || FINAL_KINDS.has(c.kind))
  while (open.length > 0) {
    const pick = softmaxDraw(open, (x) => x.score, TEMPERATURE, draws)
    const action = actionOf(pick.c, filling)
    if (action !== null) return action
    open = open.filter((x) => x !== pick)
  }
  return { kind: "status", status: "complete" }
}
