/**
 * The model policy as a `Policy`: the episode's view as the model reads it (the element
 * list as the environment's policy text, the set-of-marks image or screenshot, the
 * history) and one action from an OpenAI-compatible server. It draws nothing; its calls
 * are numbered from `calls`, two per step (an unusable answer is asked again once).
 *
 * @example
 * const action = yield* modelPolicy({ model, temperature: 1, topP: 1, causationId, calls: 0 }).act(view, draws) // needs Models
 */
import { Effect } from "effect"
import { policyView } from "@core/environment"
import type { Action } from "@core/events"
import type { ModelError, PromptNotFound, PromptVariableMissing } from "@core/models"
import type { Models } from "@core/engine"
import type { Policy } from "../Policy.ts"
import { modelPolicyAction } from "./ModelPolicy.ts"

export interface ModelPolicySpec {
  readonly model: string
  readonly temperature: number
  readonly topP: number
  /** The event being handled: the policy's calls are numbered under it. */
  readonly causationId: string
  /** The index of the episode's first call; step k asks with calls + 2k (and + 2k + 1 on a retry). */
  readonly calls: number
}

/** The model policy; named by its model, as trajectories record it. */
export const modelPolicy = (spec: ModelPolicySpec): Policy<ModelError | PromptNotFound | PromptVariableMissing, Models> => ({
  name: spec.model,
  // One set of rules: the prompt it asks with is versioned and recorded with every call.
  version: "1",
  act: (view) =>
    modelPolicyAction(
      {
        instruction: view.instruction,
        url: view.url,
        title: view.title,
        elementsText: policyView({ url: view.url, app: view.app, title: view.title, error: view.error }, view.elements).text,
        elementIds: new Map(view.elements.map((e) => [e.id, { role: e.role, name: e.name, text: e.text }])),
        screenshot: view.screenshot,
        marks: view.marks,
        history: view.history
      },
      {
        model: spec.model,
        temperature: spec.temperature,
        topP: spec.topP,
        causationId: spec.causationId,
        callIndex: spec.calls + view.step * 2
      }
    ).pipe(
      // An answer the policy could not phrase twice is a wasted step, as a person's slip would be.
      Effect.map((r) => r.action),
      Effect.catchTag("PolicyAnswerInvalid", () => Effect.succeed<Action>({ kind: "wait", ms: 0 }))
    )
})
