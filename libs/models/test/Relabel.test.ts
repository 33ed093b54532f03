/**
 * The "relabel" call against a real HTTP server: what the prompt shows the model, how its
 * answer is read (the reference's rejection rules), what is recorded — and that replay
 * answers from the record with the same request.
 */
import { afterEach, expect, test } from "bun:test"
import { Effect } from "effect"
import { sha256 } from "@core/events"
import { recordedModels } from "@core/engine"
import { loadPrompt, ModelClient, modelCallId, modelRelabel } from "../mod.ts"
import type { ModelRelabelInput } from "../mod.ts"
import { fakeServer, recorder } from "./FakeServer.ts"
import type { FakeServer } from "./FakeServer.ts"

let server: FakeServer | undefined
afterEach(() => server?.stop())

const causationId = sha256("RoundCompleted 1")
const input: ModelRelabelInput = {
  runId: "run-9",
  causationId,
  callIndex: 2,
  model: "qwen2.5-7b-instruct",
  site: "shop",
  instruction: "Open the Electronics category page.",
  steps: [
    {
      text: "Click on a UI element 'Kitchen' on the screen.",
      urlBefore: "http://127.0.0.1:4000/shop/",
      urlAfter: "http://127.0.0.1:4000/shop/category/5"
    },
    {
      text: "Scroll down on the screen.",
      urlBefore: "http://127.0.0.1:4000/shop/category/5",
      urlAfter: "http://127.0.0.1:4000/shop/category/5"
    }
  ],
  screen: 'heading "Kitchen"\nlink "Blue Mug"'
}

const answering = (content: string) => {
  server = fakeServer((seen) =>
    Response.json({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1764700000,
      model: seen.body.model,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
    })
  )
  const rec = recorder()
  return {
    rec,
    layer: ModelClient.layer({ baseUrl: server.baseUrl, model: "", apiKeyEnv: "NONE", env: {}, runId: "run-9", record: rec.record })
  }
}

test("an intent: the prompt shows the given task, each step with its pages, and the last screen; the call is recorded and replays", async () => {
  const { rec, layer } = answering("The agent went to Kitchen.\nIntent: Open the Kitchen category page.")
  const result = await Effect.runPromise(Effect.provide(modelRelabel(input), layer))
  const prompt = await Effect.runPromise(loadPrompt("relabel"))
  expect(result).toEqual({
    relabelled: { kind: "intent", intent: "Open the Kitchen category page." },
    answer: "The agent went to Kitchen.\nIntent: Open the Kitchen category page.",
    promptDigest: prompt.digest,
    modelCallId: modelCallId("run-9", causationId, 2)
  })
  const sent = String(server!.seen[0]!.body.messages[0]!.content)
  expect(sent).toContain("on the shop site")
  expect(sent).toContain("Open the Electronics category page.")
  expect(sent).toContain(
    "1. Click on a UI element 'Kitchen' on the screen. (on http://127.0.0.1:4000/shop/ → http://127.0.0.1:4000/shop/category/5)"
  )
  expect(sent).toContain("2. Scroll down on the screen. (on http://127.0.0.1:4000/shop/category/5)")
  expect(sent).toContain('heading "Kitchen"')
  expect(sent).not.toMatch(/\{\{\w+\}\}/)
  expect(server!.seen[0]!.body.temperature).toBe(0)
  expect(rec.events.map((e) => [e.data.purpose, e.data.callIndex, e.data.prompt.digest])).toEqual([["relabel", 2, prompt.digest]])

  server!.stop()
  const replayed = await Effect.runPromise(Effect.provide(modelRelabel(input), recordedModels(rec.asLog())))
  expect(replayed).toEqual(result)
})

test("an answer marked INVALID is a rejection by the reference's rule, with the answer kept", async () => {
  const { layer } = answering("INVALID")
  const result = await Effect.runPromise(Effect.provide(modelRelabel(input), layer))
  expect(result.relabelled).toEqual({ kind: "rejected", rule: "invalid", text: "INVALID" })
  expect(result.answer).toBe("INVALID")
})

test("a replay whose trajectory differs from the recorded one is refused, not answered", async () => {
  const { rec, layer } = answering("Intent: Open the Kitchen category page.")
  await Effect.runPromise(Effect.provide(modelRelabel(input), layer))
  const other = { ...input, steps: input.steps.slice(0, 1) }
  const error = await Effect.runPromise(Effect.flip(Effect.provide(modelRelabel(other), recordedModels(rec.asLog()))))
  expect(error._tag).toBe("ModelRequestMismatch")
})
