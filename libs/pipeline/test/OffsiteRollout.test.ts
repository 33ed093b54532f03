/**
 * Given a page with elements that lead off the app, when a rollout of exploration version 5
 * asks a policy for its next action, then no policy is offered them: the model's prompt
 * does not list them and an answer naming one is not an action; the explorer never clicks
 * one. A rollout of version 4 (a run recorded before) is offered every element, as it was.
 * The environment and the model are stand-ins: what is under test is what the rollout shows.
 */
import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import type { Action, Observation } from "@core/events"
import type { ElementInfo } from "@core/environment"
import { Models, Observations, Randomness } from "@core/engine"
import type { Observed } from "@core/engine"
import { rollout, trajectoryIdOf } from "../Rollout.ts"
import type { RolloutInput } from "../Rollout.ts"
import { noModels } from "@core/engine"
import { trainRetrieval } from "@core/policy"

const element = (id: string, role: string, name: string, offsite = false): ElementInfo => ({
  id,
  role,
  name,
  text: name,
  value: null,
  box: { x: 0, y: 0, width: 10, height: 10 },
  visible: true,
  inViewport: true,
  enabled: true,
  editable: false,
  checked: null,
  ...(offsite ? { offsite: true } : {})
})

const page = [element("e1", "link", "Kitchen"), element("e2", "link", "About us", true), element("e3", "button", "Subscribe", true)]

const observation: Observation = {
  url: "/shop",
  app: null,
  title: "Shop",
  screenshot: null,
  elements: "elements",
  aria: null,
  truncated: false,
  error: null
}
const observed: Observed = {
  observation,
  screenshot: null,
  elements: new TextEncoder().encode(JSON.stringify({ url: "/shop", elements: page })),
  aria: new TextEncoder().encode("")
}

/** The same page whatever is done: every action the rollout takes is kept. */
const stillPage = (taken: Array<Action>) =>
  Layer.succeed(
    Observations,
    Observations.of({
      reset: () => Effect.succeed(observed),
      act: (_, __, action) => Effect.sync(() => (taken.push(action), observed)),
      end: () => Effect.void
    })
  )

/** A model that always clicks `id`, keeping the prompts it was shown. */
const clicking = (id: string, prompts: Array<string>) =>
  Layer.succeed(
    Models,
    Models.of({
      complete: (request) =>
        Effect.sync(() => {
          prompts.push(JSON.stringify(request.body))
          return {
            text: JSON.stringify({ kind: "click", element: id }),
            finishReason: "stop",
            usage: { inputTokens: null, outputTokens: null }
          }
        })
    })
  )

const inputOf = (exploration: "4" | "5", policy: RolloutInput["policy"], sample = 0): RolloutInput => ({
  causationId: "run-offsite-cause",
  trajectoryId: trajectoryIdOf(1, "shop-about", sample),
  taskId: "shop-about",
  instruction: "Read about us and subscribe to the Kitchen news",
  round: 1,
  sample,
  stepBudget: 3,
  policy,
  exploration,
  stopBias: 0
})

const play = (input: RolloutInput, models: Layer.Layer<Models>, taken: Array<Action>) =>
  Effect.runPromise(rollout(input).pipe(Effect.provide(Layer.mergeAll(stillPage(taken), Randomness.layer("0".repeat(32)), models))))

const model = { kind: "model" as const, model: "stand-in", temperature: 0, topP: 1 }
const names = (taken: ReadonlyArray<Action>) => taken.flatMap((a) => ("target" in a && a.target !== null ? [a.target.name] : []))

describe("offsite elements in a rollout", () => {
  test("given a model that names an offsite element, then version 5 does not list it and takes no action on it; version 4 does both", async () => {
    const v5: Array<Action> = []
    const shown5: Array<string> = []
    await play(inputOf("5", model), clicking("e2", shown5), v5)
    expect(shown5.length).toBeGreaterThan(0)
    for (const p of shown5) expect(p).not.toContain("About us")
    expect(names(v5)).not.toContain("About us")

    const v4: Array<Action> = []
    const shown4: Array<string> = []
    await play(inputOf("4", model), clicking("e2", shown4), v4)
    expect(shown4[0]).toContain("About us")
    expect(names(v4)).toContain("About us")
  })

  test("given the explorer over many samples, then version 5 never clicks an offsite element; version 4 does", async () => {
    const explorer = { kind: "exploration" as const }
    const over = async (version: "4" | "5") => {
      const taken: Array<Action> = []
      for (let s = 0; s < 30; s++) await play(inputOf(version, explorer, s), noModels, taken)
      return names(taken)
    }
    const v5 = await over("5")
    expect(v5).toContain("Kitchen")
    expect(v5.filter((n) => n === "About us" || n === "Subscribe")).toEqual([])
    expect((await over("4")).filter((n) => n === "About us" || n === "Subscribe").length).toBeGreaterThan(0)
  })

  test("given a retrieval model that learned to click an offsite link here, then version 5 never takes it; version 4 does", async () => {
    const learned = trainRetrieval([
      {
        instruction: inputOf("5", model).instruction,
        url: "/shop",
        step: 0,
        history: [],
        action: { kind: "click", target: { role: "link", name: "About us", elementId: null, text: "About us" } }
      }
    ])
    const embedded = (version: "4" | "5") => ({ ...inputOf(version, { kind: "embedded" }), retrieval: learned })
    const v5: Array<Action> = []
    await play(embedded("5"), noModels, v5)
    expect(names(v5).filter((n) => n === "About us" || n === "Subscribe")).toEqual([])
    const v4: Array<Action> = []
    await play(embedded("4"), noModels, v4)
    expect(names(v4)[0]).toBe("About us")
  })
})
