import { afterEach, expect, test } from "bun:test"
import { Buffer } from "node:buffer"
import { Cause, Effect, Exit } from "effect"
import { sha256 } from "@core/events"
import { recordedModels, requestDigest } from "@core/engine"
import { imageRef, loadPrompt, ModelClient, promptRef } from "@core/models"
import type { ResolveImage } from "@core/models"
import { modelPolicyAction, parsePolicyAnswer } from "../../mod.ts"
import type { ModelPolicyInput, ModelPolicyOptions } from "../../mod.ts"
import { instruction } from "../../../models/test/Demo.ts"
import { completion, fakeServer, fixtureText, recorder } from "../../../models/test/FakeServer.ts"
import type { Fixture, FakeServer } from "../../../models/test/FakeServer.ts"

let server: FakeServer | undefined
afterEach(() => server?.stop())

// A PNG signature and a few bytes: the client never decodes the image, it only ships it.
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82, 1, 2, 3, 4])
const pngHash = sha256(png)
const pngUrl = `data:image/png;base64,${Buffer.from(png).toString("base64")}`

const elementIds: ModelPolicyInput["elementIds"] = new Map([
  ["e12", { role: "textbox", name: "Search in ALL RECIPES", text: "" }],
  ["e14", { role: "button", name: "Search", text: "" }],
  ["e31", { role: "link", name: "Black Garlic Ramen", text: "Black Garlic Ramen 25 min" }]
])

const input = (extra: Partial<ModelPolicyInput> = {}): ModelPolicyInput => ({
  instruction,
  url: "http://127.0.0.1:9000/recipes",
  title: "All Recipes",
  elementsText:
    '[e12] textbox "Search in ALL RECIPES"\n[e14] button "Search"\n[e31] link "Black Garlic Ramen" text="Black Garlic Ramen 25 min"',
  elementIds,
  screenshot: null,
  history: [],
  ...extra
})

const causationId = sha256("RolloutStep t-1 step 2")
const options: ModelPolicyOptions = { model: "qwen2.5-vl-7b-instruct", temperature: 1, topP: 0.9, causationId, callIndex: 0 }

const resolveFrom =
  (blobs: ReadonlyMap<string, Uint8Array>): ResolveImage =>
  (hash) => {
    const bytes = blobs.get(hash)
    return bytes ? Effect.succeed(bytes) : Effect.fail(new Error(`blob ${hash} not found\nin the store`))
  }

/** `resolveImage: null` builds a client without one. */
const live = (answers: ReadonlyArray<Fixture>, resolveImage: ResolveImage | null = resolveFrom(new Map([[pngHash, png]]))) => {
  server = fakeServer((_, n) => completion(answers[Math.min(n, answers.length - 1)]!))
  const rec = recorder()
  const layer = ModelClient.layer({
    baseUrl: server.baseUrl,
    model: "",
    apiKeyEnv: "NONE",
    env: {},
    runId: "run-9",
    record: rec.record,
    ...(resolveImage === null ? {} : { resolveImage })
  })
  return { rec, layer, server }
}

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const found = exit.cause.reasons.find(Cause.isFailReason)
  if (!found) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.error
}

test("a recorded completion becomes the action, its element id resolved to a target", async () => {
  const { rec, layer, server } = live(["policyType"])
  const history = [
    {
      action: { kind: "click" as const, target: { role: "link", name: "Recipes", elementId: "e3", text: null } },
      url: "http://127.0.0.1:9000/recipes",
      error: null
    }
  ]
  const decision = await Effect.runPromise(Effect.provide(modelPolicyAction(input({ history }), options), layer))

  expect(decision).toEqual({
    action: {
      kind: "type",
      target: { role: "textbox", name: "Search in ALL RECIPES", elementId: "e12", text: null },
      text: "black garlic ramen",
      submit: true
    },
    thought: "Search for the recipe by name.",
    callIndex: 0
  })
  const sent = server.seen[0]!.body
  expect([sent.temperature, sent.top_p, sent.max_tokens]).toEqual([1, 0.9, 512])
  expect(sent.messages.map((m) => m.role)).toEqual(["system", "user"])
  const system = sent.messages[0]!.content as string
  expect(system).toContain(`# Task\n\n${instruction}`)
  expect(system).toContain("URL: http://127.0.0.1:9000/recipes\nTitle: All Recipes")
  expect(system).toContain('[e14] button "Search"')
  expect(system).toContain('1. {"element":"e3","kind":"click"} on link "Recipes" → http://127.0.0.1:9000/recipes')
  expect(system).not.toContain("{{")
  // No screenshot: a plain-text user message, no image part.
  expect(typeof sent.messages[1]!.content).toBe("string")
  expect(rec.events.map((e) => [e.data.callIndex, e.data.purpose, e.data.prompt.name, e.data.prompt.version])).toEqual([
    [0, "policy", "policy", "1"]
  ])
})

test("the server gets the screenshot as a data: URL; ModelCalled and its digest hold only the sha256", async () => {
  const { rec, layer, server } = live(["policyType"])
  await Effect.runPromise(Effect.provide(modelPolicyAction(input({ screenshot: pngHash }), options), layer))

  const sent = server.seen[0]!.body
  expect(sent.messages[1]!.content).toEqual([
    { type: "text", text: expect.stringContaining("screenshot") },
    { type: "image_url", image_url: { url: pngUrl } }
  ])
  const event = rec.events[0]!
  expect(JSON.stringify(event)).not.toContain(Buffer.from(png).toString("base64"))
  // The digest is of the body as sent with the image part back in its hash form.
  const { model: _, ...wire } = sent
  const canonical = {
    ...wire,
    messages: [sent.messages[0], { role: "user", content: [(sent.messages[1]!.content as Array<unknown>)[0], imageRef(pngHash)] }]
  }
  const prompt = await Effect.runPromise(loadPrompt("policy"))
  expect(event.data.requestDigest).toBe(requestDigest({ model: options.model, prompt: promptRef(prompt), body: canonical }))
})

test("with a set-of-marks image the server gets it instead of the screenshot; without one, the screenshot as before", async () => {
  const marked = new Uint8Array([...png, 9, 9, 9])
  const markedHash = sha256(marked)
  const sentWith = async (extra: Partial<ModelPolicyInput>) => {
    const { rec, layer, server } = live(
      ["policyType"],
      resolveFrom(
        new Map([
          [pngHash, png],
          [markedHash, marked]
        ])
      )
    )
    await Effect.runPromise(Effect.provide(modelPolicyAction(input(extra), options), layer))
    server.stop()
    return { content: server.seen[0]!.body.messages[1]!.content, digest: rec.events[0]!.data.requestDigest }
  }
  const withMarks = await sentWith({ screenshot: pngHash, marks: markedHash })
  expect(withMarks.content).toEqual([
    { type: "text", text: "The current screenshot, with the elements marked by their ids. What is the next action?" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(marked).toString("base64")}` } }
  ])
  // No marks (an observation recorded without them) or null marks: the very request a plain screenshot always made.
  const plain = await sentWith({ screenshot: pngHash })
  expect(plain.content as unknown).toEqual([(withMarks.content as Array<unknown>)[0], { type: "image_url", image_url: { url: pngUrl } }])
  expect((await sentWith({ screenshot: pngHash, marks: null })).digest).toBe(plain.digest)
  expect(withMarks.digest).not.toBe(plain.digest)
})

test("a missing or altered image fails the call with a one-line reason, recorded, and nothing is sent", async () => {
  const missing = live(["policyType"], resolveFrom(new Map()))
  const error = failureOf(
    await Effect.runPromiseExit(Effect.provide(modelPolicyAction(input({ screenshot: pngHash }), options), missing.layer))
  )
  expect(error._tag).toBe("ModelCallFailed")
  expect(error.message).toContain(`image ${pngHash.slice(0, 12)} unavailable: blob ${pngHash} not found in the store`)
  expect(missing.server.seen).toHaveLength(0)
  expect(missing.rec.events.map((e) => [e.data.response, e.data.error])).toEqual([
    [null, `image ${pngHash.slice(0, 12)} unavailable: blob ${pngHash} not found in the store`]
  ])
  missing.server.stop()

  const altered = live(["policyType"], resolveFrom(new Map([[pngHash, new Uint8Array([1, 2, 3])]])))
  const changed = failureOf(
    await Effect.runPromiseExit(Effect.provide(modelPolicyAction(input({ screenshot: pngHash }), options), altered.layer))
  )
  expect(changed.message).toContain(`bytes hash to ${sha256(new Uint8Array([1, 2, 3])).slice(0, 12)}`)
  altered.server.stop()

  const unresolvable = live(["policyType"], null)
  const none = failureOf(
    await Effect.runPromiseExit(Effect.provide(modelPolicyAction(input({ screenshot: pngHash }), options), unresolvable.layer))
  )
  expect(none.message).toContain("the client has no resolveImage")
  expect(unresolvable.server.seen).toHaveLength(0)
})

test("an unusable answer, then a good one: the retry (callIndex + 1) carries the reason and is used; replay agrees", async () => {
  const { rec, layer, server } = live(["policyBadKind", "policyClick"])
  const program = modelPolicyAction(input({ screenshot: pngHash }), { ...options, callIndex: 4 })
  const decision = await Effect.runPromise(Effect.provide(program, layer))

  expect(decision).toEqual({
    action: { kind: "click", target: { role: "link", name: "Black Garlic Ramen", elementId: "e31", text: "Black Garlic Ramen 25 min" } },
    thought: "Open the Black Garlic Ramen recipe to read its time.",
    callIndex: 5
  })
  expect(rec.events.map((e) => [e.data.callIndex, e.causationId])).toEqual([
    [4, causationId],
    [5, causationId]
  ])
  const retry = server.seen[1]!.body.messages
  expect(retry.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"])
  expect(retry[2]!.content).toBe(fixtureText("policyBadKind"))
  expect(retry[3]!.content).toContain('Your answer could not be used: unknown action kind "tap"')
  expect(retry[1]!.content).toEqual(server.seen[0]!.body.messages[1]!.content)

  // Replay: no server, no blobs; the same two calls answer from the log.
  server.stop()
  expect(await Effect.runPromise(Effect.provide(program, recordedModels(rec.asLog())))).toEqual(decision)
  // Another screenshot is another request: a divergence, not a cache miss.
  const other = modelPolicyAction(input({ screenshot: sha256("another screen") }), { ...options, callIndex: 4 })
  const mismatch = failureOf(await Effect.runPromiseExit(Effect.provide(other, recordedModels(rec.asLog()))))
  expect(mismatch._tag).toBe("ModelRequestMismatch")
})

test("two unusable answers fail with PolicyAnswerInvalid naming the last call; replay fails the same way", async () => {
  const { rec, layer } = live(["policyBadKind", "truncated"])
  const program = modelPolicyAction(input(), options)
  const error = failureOf(await Effect.runPromiseExit(Effect.provide(program, layer)))
  expect(error._tag).toBe("PolicyAnswerInvalid")
  if (error._tag === "PolicyAnswerInvalid") {
    expect([error.callIndex, error.reason]).toEqual([1, "no JSON object in the answer"])
    expect(error.message).toBe(`policy answer of call 1 of ${causationId.slice(0, 12)} unusable: no JSON object in the answer`)
  }
  expect(rec.events.map((e) => e.data.callIndex)).toEqual([0, 1])
  expect(failureOf(await Effect.runPromiseExit(Effect.provide(program, recordedModels(rec.asLog()))))).toEqual(error)
})

test("parsePolicyAnswer: fenced, bare and loose shapes; the id forms a model uses", () => {
  const click31 = {
    kind: "click" as const,
    target: { role: "link", name: "Black Garlic Ramen", elementId: "e31", text: "Black Garlic Ramen 25 min" }
  }
  expect(
    parsePolicyAnswer('Thinking…\n```json\n{"thought": "open it", "action": {"kind": "click", "element": "e31"}}\n```', elementIds)
  ).toEqual({ action: click31, thought: "open it" })
  expect(parsePolicyAnswer('<think>maybe {"kind": "back"}</think>{"kind": "click", "target": {"elementId": "[e31]"}}', elementIds)).toEqual(
    { action: click31, thought: "" }
  )
  expect(parsePolicyAnswer('I will {carefully} act: {"thought": "t", "action": "click", "target": "e31"}', elementIds)).toEqual({
    action: click31,
    thought: "t"
  })
  expect(parsePolicyAnswer('{"action": {"kind": "scroll", "direction": "down"}}', elementIds)).toEqual({
    action: { kind: "scroll", target: null, direction: "down" },
    thought: ""
  })
  expect(parsePolicyAnswer('{"action": {"kind": "answer", "text": "25 minutes {approx}", "element": "e31"}}', elementIds)).toEqual({
    action: { kind: "answer", text: "25 minutes {approx}" },
    thought: ""
  })
  expect(parsePolicyAnswer('{"action": {"kind": "status", "status": "infeasible"}}', elementIds)).toEqual({
    action: { kind: "status", status: "infeasible" },
    thought: ""
  })
})

test("parsePolicyAnswer: unknown id, unknown kind, missing fields and no JSON are errors", () => {
  expect(parsePolicyAnswer('{"action": {"kind": "click", "element": "e99"}}', elementIds)).toEqual({
    error: 'unknown element id "e99": not in the element list'
  })
  expect(parsePolicyAnswer('{"action": {"kind": "click"}}', elementIds)).toEqual({
    error: 'click needs an "element" id from the element list'
  })
  expect(parsePolicyAnswer('{"action": {"kind": "fly", "element": "e31"}}', elementIds)).toEqual({
    error: expect.stringContaining('unknown action kind "fly" (one of click, long_press, type,')
  })
  expect(parsePolicyAnswer('{"action": {"kind": "type", "element": "e12"}}', elementIds)).toEqual({
    error: 'invalid type action: Missing key at ["text"]'
  })
  expect(parsePolicyAnswer('{"action": {"kind": "scroll", "direction": "sideways"}}', elementIds)).toEqual({
    error: expect.stringMatching(/^invalid scroll action: Expected "up" \| "down"/)
  })
  expect(parsePolicyAnswer('{"thought": "hmm"}', elementIds)).toEqual({ error: 'the JSON object has no "action"' })
  expect(parsePolicyAnswer("I would click the recipe.", elementIds)).toEqual({ error: "no JSON object in the answer" })
})
