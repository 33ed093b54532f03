/**
 * `bun core infer`, `audit label-function` and `replay` through the real CLI, on a real
 * expert demo recorded in real Chromium (the scripted solution of one shop instance): the
 * embedded path, and the model path against an OpenAI-compatible server started here that
 * serves recorded completions — then replayed with that server gone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { core, expectOneLineError } from "./support/cli.ts"
import { chatServer } from "./support/chatServer.ts"

const INSTANCE = "shop-cheapest-in-category-1"
const DEMO = `${INSTANCE}-script`
const tmp = mkdtempSync(join(tmpdir(), "core-cli-infer-"))
const demos = join(tmp, "demos")
const jsonl = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))

/** A workspace (embedded store) with the shop tasks registered and the demo ingested. */
const workspace = async (name: string) => {
  const flags = ["--store", "embedded", "--data-dir", join(tmp, name)]
  expect((await core(["tasks", "register", "--suite", "shop", ...flags])).code).toBe(0)
  expect((await core(["ingest", demos, ...flags])).code).toBe(0)
  return flags
}

beforeAll(async () => {
  const r = await core(["solutions", "run", "--suite", "shop", "--instance", INSTANCE, "--out", demos])
  if (r.code !== 0) throw new Error(`solutions run failed: ${r.stderr.slice(-2000)}`)
}, 600_000)
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe("embedded backends", () => {
  let flags: Array<string>
  let run: any
  beforeAll(async () => {
    flags = await workspace("embedded")
    const r = await core(["infer", "--all", "--json", ...flags])
    expect(r.code).toBe(0)
    run = JSON.parse(r.stdout)
    expect(r.stderr).toContain("embedded backends (no model server configured)")
    expect(r.stderr).toContain(`infer: 1/1 ${DEMO}: `)
  }, 120_000)

  test("every key step of the demo gets a validated label function", async () => {
    expect(run).toMatchObject({ demos: 1, failed: 0, rejected: 0 })
    expect(run.key_steps).toBeGreaterThanOrEqual(3)
    expect(run.label_functions).toBe(run.key_steps)
    const events = jsonl((await core(["events", "tail", "--no-follow", "--filter", `run.${run.run_id}.>`, ...flags])).stdout)
    expect(events.map((e) => e.type)).toEqual([
      "RunStarted",
      "JobQueued",
      "StepsDescribed",
      "KeyStepsIdentified",
      ...Array(run.key_steps).fill("LabelFunctionInferred"),
      "JobCompleted"
    ])
    // A new infer run records its config from the schema, so it is decoded strictly, not upcast as an old run's.
    const started = events[0].data
    expect(started.config).toMatchObject({ "run.configVersion": 2, "infer.demos": "all", "run.tasks": [] })
    expect(started.configSources).toMatchObject({ "run.configVersion": "default", "infer.demos": "flag:--all" })
    const described = events.find((e) => e.type === "StepsDescribed")
    expect(described.data.descriptions[1].text).toBe("Select 'price-asc' in the 'Sort by'.")
    const keys = events.find((e) => e.type === "KeyStepsIdentified").data
    expect(keys).toMatchObject({ method: "embedded", taskId: INSTANCE, source: { kind: "demo", id: DEMO } })
    expect(keys.keySteps.at(-1)).toMatchObject({ reason: "final-status" })
    for (const lf of events.filter((e) => e.type === "LabelFunctionInferred")) {
      expect(lf.data.validation.onPrefix).toBe(false)
      expect(lf.data.validation.onDemoAtKeyStep).toBe(lf.data.keyStepIndex)
      expect(lf.data.inference).toMatchObject({ method: "embedded", modelCallIds: [] })
      expect(lf.data.code).toContain("function labelFunction(t)")
    }
    const done = events.at(-1)
    expect(done.data).toMatchObject({ outcome: "done", error: null })
    expect(done.data.produced).toHaveLength(2 + run.key_steps)
  })

  test("audit label-function shows the code, source demo, key step, validation and how it was inferred", async () => {
    const events = jsonl((await core(["events", "tail", "--no-follow", "--filter", `run.${run.run_id}.infer.>`, ...flags])).stdout)
    const lf = events.find((e) => e.type === "LabelFunctionInferred" && e.data.code.includes("Add to cart")).data
    const r = await core(["audit", "label-function", lf.lfId.slice(0, 10), "--json", ...flags])
    expect(r.code).toBe(0)
    const audit = JSON.parse(r.stdout)
    expect(audit).toMatchObject({
      lf_id: lf.lfId,
      task: INSTANCE,
      source: { kind: "demo", id: DEMO },
      run_id: run.run_id,
      code: lf.code,
      key_step: { index: lf.keyStepIndex, reason: "state-changing", method: "embedded" },
      inference: { method: "embedded" },
      validation: { onPrefix: false },
      model_calls: []
    })
    expect(audit.instruction).toContain("cheapest")
    const text = await core(["audit", "label-function", lf.lfId, ...flags])
    expect(text.stdout).toContain(`label function ${lf.lfId}`)
    expect(text.stdout).toContain('validateClick(t, "button", "Add to cart"')
    expectOneLineError(await core(["audit", "label-function", "abcdef123456", ...flags]), expect)
    expectOneLineError(await core(["audit", "label-function", "not-an-id", ...flags]), expect)
  })

  test("replay re-derives the inference run with no divergence", async () => {
    const r = await core(["replay", run.run_id, "--json", ...flags])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.divergences).toEqual([])
    expect(report.decision_events).toBe(4 + run.key_steps)
  }, 120_000)

  test("bad input: one-line errors", async () => {
    expectOneLineError(await core(["infer", ...flags]), expect)
    expectOneLineError(await core(["infer", "--all", "--demo", DEMO, ...flags]), expect)
    const unknown = await core(["infer", "--demo", "no-such-demo", ...flags])
    expectOneLineError(unknown, expect)
    expect(unknown.stderr).toContain("no demo no-such-demo in the workspace")
    const empty = await core(["infer", "--all", "--store", "embedded", "--data-dir", join(tmp, "empty")])
    expectOneLineError(empty, expect)
    expect(empty.stderr).toContain("no demos ingested yet")
  }, 60_000)
})

describe("a model server (serving recorded completions)", () => {
  const fixture = JSON.parse(readFileSync(join(import.meta.dir, "fixtures", "model-completions.json"), "utf8"))
  const seen: Array<string> = []
  const attempts = new Map<string, number>()
  const server = chatServer(({ text: prompt }) => {
    seen.push(prompt)
    if (prompt.includes("Decide which steps are KEY steps")) return fixture.keySteps
    const section = prompt.split("# The key step to check")[1]?.split("\n# ")[0] ?? ""
    const rule = fixture.labelFunctions.find((r: { match: string }) => section.includes(r.match))
    if (!rule) return "I cannot help with that."
    const n = attempts.get(rule.match) ?? 0
    attempts.set(rule.match, n + 1)
    return rule.answers[Math.min(n, rule.answers.length - 1)]
  })
  let flags: Array<string>
  let run: any
  beforeAll(async () => {
    flags = await workspace("model")
    const r = await core(["infer", "--demo", DEMO, "--json", "--model-base-url", server.url, "--model", "recorded-coder-3b", ...flags])
    if (r.code !== 0) throw new Error(r.stderr)
    run = JSON.parse(r.stdout)
  }, 120_000)
  afterAll(() => server.stop())

  test("the model picks the key steps and writes the LFs; a wrong LF is rejected and retried with the reason", async () => {
    expect(run).toMatchObject({ demos: 1, key_steps: 4, label_functions: 4, rejected: 0, failed: 0 })
    // 1 key-step call, 4 LFs, one of them on the second attempt.
    expect(seen).toHaveLength(6)
    const retry = seen.find((p) => p.includes("Your previous label function was rejected"))!
    expect(retry).toContain("false on its source demo")
    const events = jsonl((await core(["events", "tail", "--no-follow", "--filter", `run.${run.run_id}.>`, ...flags])).stdout)
    const calls = events.filter((e) => e.type === "ModelCalled")
    expect(calls).toHaveLength(6)
    expect(calls[0].data).toMatchObject({
      purpose: "key-steps",
      model: "recorded-coder-3b",
      prompt: { name: "key-steps", version: "1" },
      error: null
    })
    expect(calls[0].data.prompt.digest).toMatch(/^[0-9a-f]{64}$/)
    const keys = events.find((e) => e.type === "KeyStepsIdentified").data
    expect(keys.method).toBe("model")
    expect(keys.keySteps.map((k: any) => k.stepIndex)).toEqual([1, 2, 4, 5])
    const add = events.find((e) => e.type === "LabelFunctionInferred" && e.data.code.includes("Add to cart")).data
    expect(add.inference).toMatchObject({ method: "model", evidence: "model", attempts: 2 })
    expect(add.inference.modelCallIds).toHaveLength(2)
    const audit = JSON.parse((await core(["audit", "label-function", add.lfId, "--json", ...flags])).stdout)
    expect(audit.model_calls.map((c: any) => c.purpose)).toEqual(["lf-synthesis", "lf-synthesis"])
    expect(audit.model_calls[0].response).toContain("Add to wish list")
  })

  test("replay answers every model call from the log: no server needed, no divergence", async () => {
    server.stop()
    const before = seen.length
    const r = await core(["replay", run.run_id, "--json", ...flags])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).divergences).toEqual([])
    expect(seen.length).toBe(before)
  }, 120_000)
})

describe("a model server that answers nothing useful", () => {
  const server = chatServer(() => "I cannot help with that.")
  afterAll(() => server.stop())

  test("a key-step answer that names no step but the closing one leaves the embedded key steps, and the LFs fall back to embedded ones", async () => {
    const embeddedFlags = await workspace("refusing-model-baseline")
    const embeddedRun = JSON.parse((await core(["infer", "--all", "--json", ...embeddedFlags])).stdout)
    const embeddedEvents = jsonl(
      (await core(["events", "tail", "--no-follow", "--filter", `run.${embeddedRun.run_id}.>`, ...embeddedFlags])).stdout
    )
    const embeddedKeys = embeddedEvents.find((e) => e.type === "KeyStepsIdentified").data.keySteps.map((k: any) => k.stepIndex)

    const flags = await workspace("refusing-model")
    const r = await core(["infer", "--demo", DEMO, "--json", "--model-base-url", server.url, "--model", "unhelpful", ...flags])
    expect(r.code).toBe(0)
    const run = JSON.parse(r.stdout)
    const events = jsonl((await core(["events", "tail", "--no-follow", "--filter", `run.${run.run_id}.>`, ...flags])).stdout)
    const keys = events.find((e) => e.type === "KeyStepsIdentified").data
    // The model was asked (the audit shows its answer), and its answer did not stand.
    expect(keys.method).toBe("embedded")
    expect(keys.modelCallIds).toHaveLength(1)
    expect(keys.keySteps.map((k: any) => k.stepIndex)).toEqual(embeddedKeys)
    expect(embeddedKeys.length).toBeGreaterThan(1)
    const lfs = events.filter((e) => e.type === "LabelFunctionInferred")
    expect(lfs).toHaveLength(embeddedKeys.length)
    // Each LF: five model answers without code, then the embedded synthesizer's candidate.
    for (const lf of lfs) {
      expect(lf.data.inference.method).toBe("embedded")
      expect(lf.data.inference.modelCallIds).toHaveLength(5)
      expect(lf.data.inference.attempts).toBeGreaterThan(5)
    }
    expect(run).toMatchObject({ key_steps: embeddedKeys.length, label_functions: embeddedKeys.length, failed: 0 })
  }, 120_000)
})
