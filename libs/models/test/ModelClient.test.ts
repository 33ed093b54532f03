import { afterEach, expect, test } from "bun:test"
import { Cause, Effect, Exit, Schema } from "effect"
import { ModelCalled, runStream, sha256 } from "@core/events"
import { Models, recordedModels, requestDigest } from "@core/engine"
import type { ModelRequest } from "@core/engine"
import { ModelClient, modelCallId, modelOptionsFromConfig } from "../mod.ts"
import type { ModelClientOptions } from "../mod.ts"
import { completion, fakeServer, fixtureText, recorder } from "./FakeServer.ts"
import type { FakeServer } from "./FakeServer.ts"

const servers: Array<FakeServer> = []
const serve = (...args: Parameters<typeof fakeServer>) => {
  const s = fakeServer(...args)
  servers.push(s)
  return s
}
afterEach(() => {
  for (const s of servers.splice(0)) s.stop()
})

const causationId = sha256("DemoIngested demo-17")
const request: ModelRequest = {
  causationId,
  callIndex: 0,
  model: "qwen2.5-coder-7b-instruct",
  purpose: "key-steps",
  prompt: { name: "key-steps", version: "1", digest: sha256("key-steps prompt") },
  body: { messages: [{ role: "user", content: "Which steps are key?" }], temperature: 0, max_tokens: 64 }
}

const complete = (r: ModelRequest) => Models.use((models) => models.complete(r))

const run = <A, E>(options: ModelClientOptions<never>, effect: Effect.Effect<A, E, Models>) =>
  Effect.runPromiseExit(Effect.provide(effect, ModelClient.layer(options)))

const options = (
  server: FakeServer,
  rec: ReturnType<typeof recorder>,
  extra: Partial<ModelClientOptions<never>> = {}
): ModelClientOptions<never> => ({
  baseUrl: server.baseUrl,
  model: "fallback-model",
  apiKeyEnv: "CORE_TEST_NO_SUCH_KEY",
  runId: "run-1",
  record: rec.record,
  env: {},
  ...extra
})

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const found = exit.cause.reasons.find(Cause.isFailReason)
  if (!found) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return found.error
}

test("a completion round trip: the answer, the request sent, and its ModelCalled recorded", async () => {
  const server = serve(() => completion("greeting"))
  const rec = recorder()
  const exit = await run(options(server, rec), complete(request))

  expect(exit).toEqual(
    Exit.succeed({
      text: fixtureText("greeting"),
      finishReason: "stop",
      usage: { inputTokens: 42, outputTokens: 14 }
    })
  )
  expect(server.seen).toHaveLength(1)
  expect(server.seen[0]!.body as unknown).toEqual({ model: "qwen2.5-coder-7b-instruct", ...(request.body as object) })

  expect(rec.events).toHaveLength(1)
  const event = Schema.decodeUnknownSync(ModelCalled.schema)(rec.events[0])
  expect(event.id).toBe(modelCallId("run-1", causationId, 0))
  expect(event.stream).toBe(runStream("run-1", "model", causationId.slice(0, 16)))
  expect(event.causationId).toBe(causationId)
  expect(event.data.requestDigest).toBe(requestDigest(request))
  expect(event.data).toMatchObject({
    callIndex: 0,
    model: "qwen2.5-coder-7b-instruct",
    purpose: "key-steps",
    prompt: request.prompt,
    response: { text: fixtureText("greeting"), finishReason: "stop", usage: { inputTokens: 42, outputTokens: 14 } },
    error: null
  })
  expect(event.data.latencyMs).toBeGreaterThanOrEqual(0)
})

test("the recorded event answers again without a server; a changed request is a ModelRequestMismatch", async () => {
  const server = serve(() => completion("greeting"))
  const rec = recorder()
  const live = await run(options(server, rec), complete(request))
  server.stop()

  const replayed = await Effect.runPromiseExit(Effect.provide(complete(request), recordedModels(rec.asLog())))
  expect(replayed).toEqual(live)

  const changed = { ...request, body: { ...(request.body as object), temperature: 0.7 } }
  const mismatch = failureOf(await Effect.runPromiseExit(Effect.provide(complete(changed), recordedModels(rec.asLog()))))
  expect(mismatch._tag).toBe("ModelRequestMismatch")
  if (mismatch._tag === "ModelRequestMismatch") {
    expect(mismatch.recorded).toBe(requestDigest(request))
    expect(mismatch.requested).toBe(requestDigest(changed))
  }
})

test("500 twice, then 200: three requests, one success, one event", async () => {
  const server = serve((_, n) => (n < 2 ? new Response("upstream overloaded", { status: 500 }) : completion("greeting")))
  const rec = recorder()
  const exit = await run(options(server, rec, { retryBaseMs: 20 }), complete(request))
  expect(Exit.isSuccess(exit)).toBe(true)
  expect(server.seen).toHaveLength(3)
  expect(rec.events).toHaveLength(1)
  expect(rec.events[0]!.data.response?.text).toBe(fixtureText("greeting"))
})

test("429 is retried; 5xx past the retries fails with the status, recorded with response null", async () => {
  const limited = serve((_, n) =>
    n === 0 ? new Response("slow down", { status: 429, headers: { "retry-after": "0" } }) : completion("greeting")
  )
  const ok = await run(options(limited, recorder(), { retryBaseMs: 10 }), complete(request))
  expect(Exit.isSuccess(ok)).toBe(true)
  expect(limited.seen).toHaveLength(2)

  const down = serve(() => new Response("bad gateway", { status: 502, statusText: "Bad Gateway" }))
  const rec = recorder()
  const error = failureOf(await run(options(down, rec, { retries: 2, retryBaseMs: 10 }), complete(request)))
  expect(down.seen).toHaveLength(3)
  expect(error._tag).toBe("ModelCallFailed")
  expect(error.message).toContain("HTTP 502 Bad Gateway")
  expect(rec.events.map((e) => [e.data.response, e.data.error])).toEqual([[null, "HTTP 502 Bad Gateway: bad gateway (3 attempts)"]])
})

test("400 is not retried", async () => {
  const server = serve(() => Response.json({ error: { message: "max_tokens must be positive" } }, { status: 400 }))
  const rec = recorder()
  const error = failureOf(await run(options(server, rec), complete(request)))
  expect(server.seen).toHaveLength(1)
  expect(error._tag).toBe("ModelCallFailed")
  expect(error.message).toContain("HTTP 400")
  expect(error.message).toContain("max_tokens must be positive")
  expect(rec.events[0]!.data.error).toContain("(1 attempt)")
})

test("a server that never answers times out, each attempt, and the failure is recorded and replays", async () => {
  const server = serve(() => new Promise<Response>(() => {}))
  const rec = recorder()
  const started = performance.now()
  const exit = await run(options(server, rec, { timeoutMs: 150, retries: 1, retryBaseMs: 10 }), complete(request))
  const elapsed = performance.now() - started
  const error = failureOf(exit)

  expect(error._tag).toBe("ModelCallFailed")
  expect(error.message).toContain("timed out after 150 ms")
  expect(server.seen).toHaveLength(2)
  expect(elapsed).toBeGreaterThanOrEqual(300)
  expect(elapsed).toBeLessThan(5000)
  expect(rec.events).toHaveLength(1)
  expect(rec.events[0]!.data.response).toBeNull()
  expect(rec.events[0]!.data.error).toBe("timed out after 150 ms (2 attempts)")

  // Replay fails the same way, without a server.
  const replayed = failureOf(await Effect.runPromiseExit(Effect.provide(complete(request), recordedModels(rec.asLog()))))
  expect(replayed).toEqual(error)
})

test("an unreachable server is a network error, retried, then ModelCallFailed", async () => {
  const server = serve(() => completion("greeting"))
  server.stop()
  const rec = recorder()
  const error = failureOf(await run(options(server, rec, { retries: 1, retryBaseMs: 10 }), complete(request)))
  expect(error.message).toContain("network error")
  expect(rec.events[0]!.data.error).toMatch(/\(2 attempts\)$/)
})

test("the Authorization header is sent only when the env var the config names is set", async () => {
  const server = serve(() => completion("greeting"))
  await run(options(server, recorder(), { apiKeyEnv: "MODEL_KEY", env: { MODEL_KEY: "sk-test-123" } }), complete(request))
  await run(options(server, recorder(), { apiKeyEnv: "MODEL_KEY", env: {} }), complete(request))
  await run(options(server, recorder(), { apiKeyEnv: "MODEL_KEY", env: { MODEL_KEY: "" } }), complete(request))

  // The default is process.env, read at call time.
  const name = `CORE_MODELS_TEST_KEY_${process.pid}`
  const layer = ModelClient.layer({ ...options(server, recorder(), { apiKeyEnv: name }), env: undefined })
  process.env[name] = "sk-from-process-env"
  try {
    await Effect.runPromise(Effect.provide(complete(request), layer))
  } finally {
    delete process.env[name]
  }
  await Effect.runPromise(Effect.provide(complete(request), layer))

  expect(server.seen.map((s) => s.authorization)).toEqual(["Bearer sk-test-123", null, null, "Bearer sk-from-process-env", null])
})

test("a server echoing the key in an error does not get it into the log", async () => {
  const server = serve((seen) => new Response(`invalid key ${seen.authorization}`, { status: 401 }))
  const rec = recorder()
  await run(options(server, rec, { apiKeyEnv: "K", env: { K: "sk-secret-999" } }), complete(request))
  expect(rec.events[0]!.data.error).toBe("HTTP 401 Unauthorized: invalid key Bearer *** (1 attempt)")
})

test("a server echoing the key or another configured secret in its answer does not get them into the log", async () => {
  const KEY = "sk-secret-echoed-4242"
  const NATS_PASSWORD = "nats-pw-7fe2c9"
  const server = serve((seen) =>
    Response.json({
      choices: [{ message: { content: `you sent ${seen.authorization} and ${NATS_PASSWORD}` }, finish_reason: `stop ${KEY}` }]
    })
  )
  const rec = recorder()
  const secrets = { apiKeyEnv: "K", secretEnvs: ["NATS_PW"], env: { K: KEY, NATS_PW: NATS_PASSWORD } }
  const live = await run(options(server, rec, secrets), complete(request))

  const logged = JSON.stringify(rec.events)
  expect(logged).not.toContain(KEY)
  expect(logged).not.toContain(NATS_PASSWORD)
  expect(rec.events[0]!.data.response?.text).toBe("you sent Bearer *** and ***")
  // The caller sees what the log holds, so replay answers exactly as the live call did.
  expect(live).toEqual(Exit.succeed(rec.events[0]!.data.response!))
  const replayed = await Effect.runPromiseExit(Effect.provide(complete(request), recordedModels(rec.asLog())))
  expect(replayed).toEqual(live)
})

test("an empty request model falls back to the configured one; a malformed completion is not retried", async () => {
  const server = serve((_, n) => (n === 0 ? completion("greeting") : Response.json({ choices: [] })))
  const rec = recorder()
  await run(options(server, rec), complete({ ...request, model: "" }))
  expect(server.seen[0]!.body.model).toBe("fallback-model")
  expect(rec.events[0]!.data.model).toBe("fallback-model")

  const error = failureOf(await run(options(server, rec), complete({ ...request, callIndex: 1 })))
  expect(server.seen).toHaveLength(2)
  expect(error.message).toContain("malformed completion")
})

test("a failing record callback fails the call with ModelRecordFailed, never a ModelCallFailed", async () => {
  const server = serve(() => completion("greeting"))
  const exit = await Effect.runPromiseExit(
    Effect.provide(complete(request), ModelClient.layer({ ...options(server, recorder()), record: () => Effect.fail("store unavailable") }))
  )
  expect(Exit.isFailure(exit)).toBe(true)
  if (Exit.isFailure(exit)) {
    const defect = exit.cause.reasons.find(Cause.isDieReason)?.defect
    expect(defect).toBeInstanceOf(Error)
    expect((defect as Error).message).toContain("recording ModelCalled failed: store unavailable")
  }
})

test("modelOptionsFromConfig: null without a base URL, else the server to use", () => {
  const values = { "models.baseUrl": null, "models.model": null, "models.apiKeyEnv": "CORE_MODEL_API_KEY" }
  expect(modelOptionsFromConfig({ values })).toBeNull()
  expect(modelOptionsFromConfig({ values: { ...values, "models.baseUrl": "http://127.0.0.1:8000/v1", "models.model": "qwen" } })).toEqual({
    baseUrl: "http://127.0.0.1:8000/v1",
    model: "qwen",
    apiKeyEnv: "CORE_MODEL_API_KEY",
    secretEnvs: ["CORE_MODEL_API_KEY"]
  })
})
