import { afterEach, expect, test } from "bun:test"
import { Effect } from "effect"
import { canonicalJson, sha256 } from "@core/events"
import { recordedModels } from "@core/engine"
import { ModelClient, modelCallId, modelSynthesize, NO_CODE } from "../mod.ts"
import type { ModelSynthesizeInput, Verdict } from "../mod.ts"
import { instruction } from "./Demo.ts"
import { completion, fakeServer, recorder } from "./FakeServer.ts"
import type { Fixture, FakeServer } from "./FakeServer.ts"

let server: FakeServer | undefined
afterEach(() => server?.stop())

const causationId = sha256("KeyStepsIdentified demo-17")
const step = {
  action: { kind: "type", target: { role: "textbox", name: "Search in ALL RECIPES", elementId: "e12", text: null }, text: "black garlic" }
}
const apiDocs = "## validateType(t, text, field, opts)\nThe first step typing `text` into the field named `field`, or -1."
const firstLf = 'function labelFunction(t) {\n  return validateClick(t, "button", "Search")\n}'
const secondLf = 'function labelFunction(t) {\n  return validateType(t, "black garlic", "Search in ALL RECIPES")\n}'
const rejection = "held on the demo's prefix at step 0, before its key step 1"

const input = (validate: (code: string) => Effect.Effect<Verdict>, attempts?: number): ModelSynthesizeInput<never, never> => ({
  runId: "run-7",
  causationId,
  firstCallIndex: 3,
  model: "qwen2.5-coder-7b-instruct",
  instruction,
  keyStep: { stepIndex: 1, description: "Type text 'black garlic' into the 'Search in ALL RECIPES'.", step },
  context:
    "0. Click on a UI element 'Search' on the screen.\n1. (key step) Type text 'black garlic' into the 'Search in ALL RECIPES'.\n2. Scroll down on the screen.",
  apiDocs,
  validate,
  ...(attempts === undefined ? {} : { attempts })
})

const live = (answers: ReadonlyArray<Fixture>) => {
  server = fakeServer((_, n) => completion(answers[Math.min(n, answers.length - 1)]!))
  const rec = recorder()
  return {
    rec,
    layer: ModelClient.layer({ baseUrl: server.baseUrl, model: "", apiKeyEnv: "NONE", env: {}, runId: "run-7", record: rec.record })
  }
}

test("a rejected first candidate: its reason goes into the second prompt, whose code is accepted; replay agrees", async () => {
  const { rec, layer } = live(["lfFirst", "lfSecond"])
  const validated: Array<string> = []
  const validate = (code: string) =>
    Effect.sync((): Verdict => {
      validated.push(code)
      return code.includes("validateClick") ? { accepted: false, reason: rejection } : { accepted: true }
    })
  const result = await Effect.runPromise(Effect.provide(modelSynthesize(input(validate)), layer))

  expect(result).toEqual({
    code: secondLf,
    accepted: true,
    attempts: 2,
    reason: null,
    modelCallIds: [modelCallId("run-7", causationId, 3), modelCallId("run-7", causationId, 4)]
  })
  expect(validated).toEqual([firstLf, secondLf])
  const [first, second] = server!.seen.map((s) => s.body.messages[0]!.content)
  expect(first).toContain(apiDocs)
  expect(first).toContain(canonicalJson(step))
  expect(first).not.toContain("rejected")
  expect(second).toContain(rejection)
  expect(second).toContain(firstLf)
  expect(rec.events.map((e) => [e.data.callIndex, e.data.purpose])).toEqual([
    [3, "lf-synthesis"],
    [4, "lf-synthesis"]
  ])

  server!.stop()
  validated.length = 0
  const replayed = await Effect.runPromise(Effect.provide(modelSynthesize(input(validate)), recordedModels(rec.asLog())))
  expect(replayed).toEqual(result)
  expect(validated).toEqual([firstLf, secondLf])
})

test("no answer accepted: the last candidate and the last reason, after exactly `attempts` calls", async () => {
  const { layer } = live(["lfFirst", "truncated"])
  const result = await Effect.runPromise(
    Effect.provide(modelSynthesize(input(() => Effect.succeed({ accepted: false, reason: rejection }), 3)), layer)
  )
  expect(server!.seen).toHaveLength(3)
  expect(result).toMatchObject({ code: firstLf, accepted: false, attempts: 3, reason: NO_CODE })
  // The answer with no code is told so.
  expect(server!.seen[2]!.body.messages[0]!.content).toContain(`rejected: ${NO_CODE}`)
})

test("answers without any code give a null code", async () => {
  const { layer } = live(["truncated"])
  let calls = 0
  const result = await Effect.runPromise(
    Effect.provide(modelSynthesize(input(() => Effect.sync(() => (calls++, { accepted: true as const })), 2)), layer)
  )
  expect(result).toEqual({
    code: null,
    accepted: false,
    attempts: 2,
    reason: NO_CODE,
    modelCallIds: [modelCallId("run-7", causationId, 3), modelCallId("run-7", causationId, 4)]
  })
  expect(calls).toBe(0)
})

test("a model call that fails for good ends synthesis with ModelCallFailed", async () => {
  server = fakeServer(() => new Response("model not found", { status: 404 }))
  const layer = ModelClient.layer({
    baseUrl: server.baseUrl,
    model: "",
    apiKeyEnv: "NONE",
    env: {},
    runId: "run-7",
    record: () => Effect.void
  })
  const error = await Effect.runPromise(
    Effect.flip(Effect.provide(modelSynthesize(input(() => Effect.succeed({ accepted: true }))), layer))
  )
  expect(error._tag).toBe("ModelCallFailed")
  expect(server.seen).toHaveLength(1)
})
