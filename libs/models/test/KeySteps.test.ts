import { afterEach, expect, test } from "bun:test"
import { Effect } from "effect"
import { sha256 } from "@core/events"
import { recordedModels } from "@core/engine"
import { ModelClient, modelCallId, modelKeySteps, snapKeySteps } from "../mod.ts"
import type { StepDescription } from "../mod.ts"
import { descriptions, instruction } from "./Demo.ts"
import { completion, fakeServer, recorder } from "./FakeServer.ts"
import type { FakeServer } from "./FakeServer.ts"

let server: FakeServer | undefined
afterEach(() => server?.stop())

test("a JSON array of list numbers: duplicates and out-of-range numbers dropped, the answer step kept", () => {
  expect(snapKeySteps("[2, 2, 9, 0]", descriptions)).toEqual([1, 4])
  expect(snapKeySteps("[]", descriptions)).toEqual([4])
  expect(snapKeySteps('["4", "2"]', descriptions)).toEqual([1, 3, 4])
})

test("the last array counts, and reasoning inside <think> is ignored", () => {
  expect(snapKeySteps("Candidates were [1, 2, 3]; on reflection the answer is [4]", descriptions)).toEqual([3, 4])
  expect(snapKeySteps("<think>Maybe [1, 3]?</think>\n[2]", descriptions)).toEqual([1, 4])
})

test("numbers in prose, when there is no array", () => {
  expect(snapKeySteps("The key steps are 2 and 4.", descriptions)).toEqual([1, 3, 4])
})

test("quoted descriptions snap to the closest step; one matching no step is dropped", () => {
  const answer = [
    "\"Type text 'black garlic' into the search box\"",
    "“Click on the 'Black Garlic Ramen' recipe”",
    '"Log in with the administrator account"'
  ].join("\n")
  expect(snapKeySteps(answer, descriptions)).toEqual([1, 3, 4])
  expect(
    snapKeySteps(JSON.stringify(["2. Type text 'black garlic'", "Click on a UI element 'Black Garlic Ramen' on the screen."]), descriptions)
  ).toEqual([1, 3, 4])
})

test("a step repeated word for word is matched once per mention; a final click is not forced", () => {
  const twice: ReadonlyArray<StepDescription> = [
    { stepIndex: 0, kind: "click", text: "Click on a UI element 'Next' on the screen." },
    { stepIndex: 1, kind: "type", text: "Type text 'Ada' into the 'Name'." },
    { stepIndex: 2, kind: "click", text: "Click on a UI element 'Next' on the screen." }
  ]
  const next = "Click on a UI element 'Next' on the screen."
  expect(snapKeySteps(JSON.stringify([next, next]), twice)).toEqual([0, 2])
  expect(snapKeySteps(JSON.stringify([next]), twice)).toEqual([0])
  expect(snapKeySteps("[2]", twice)).toEqual([1])
})

test("modelKeySteps asks with the numbered list and snaps the recorded answer; replay gives the same", async () => {
  server = fakeServer(() => completion("keySteps"))
  const rec = recorder()
  const causationId = sha256("DemoIngested demo-17")
  const program = modelKeySteps({
    runId: "run-7",
    causationId,
    callIndex: 2,
    model: "qwen2.5-coder-7b-instruct",
    instruction,
    descriptions
  })
  const layer = ModelClient.layer({ baseUrl: server.baseUrl, model: "", apiKeyEnv: "NONE", env: {}, runId: "run-7", record: rec.record })
  const live = await Effect.runPromise(Effect.provide(program, layer))

  expect(live).toEqual({
    keySteps: [
      { stepIndex: 1, description: "Type text 'black garlic' into the 'Search in ALL RECIPES'." },
      { stepIndex: 3, description: "Click on a UI element 'Black Garlic Ramen' on the screen." },
      { stepIndex: 4, description: "Answer user's question with text: '25 minutes'." }
    ],
    modelCallIds: [modelCallId("run-7", causationId, 2)]
  })
  const sent = server.seen[0]!.body
  expect(sent.temperature).toBe(0)
  expect(sent.messages).toHaveLength(1)
  expect(sent.messages[0]!.content).toContain(`Task instruction:\n${instruction}`)
  expect(sent.messages[0]!.content).toContain("1. Click on a UI element 'Search' on the screen.\n2. Type text 'black garlic'")
  expect(sent.messages[0]!.content).not.toContain("{{")
  expect(rec.events.map((e) => [e.id, e.data.purpose, e.data.prompt.name, e.data.prompt.version])).toEqual([
    [modelCallId("run-7", causationId, 2), "key-steps", "key-steps", "1"]
  ])

  server.stop()
  expect(await Effect.runPromise(Effect.provide(program, recordedModels(rec.asLog())))).toEqual(live)
})
