/**
 * The label-inference decider driven live over a real embedded store, blob store and
 * sandbox, then replayed: given a registered task and an ingested demo, when an infer run
 * starts, then its events are the run's Semantic Code Abstraction — and replay re-derives
 * them, or names what a changed decider would have done differently.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { BlobStore } from "@core/blobstore"
import { DemoIngested, digest, makeEvent, RunStarted, runStream, TaskRegistered, workspaceStream } from "@core/events"
import type { Action, CoreEvent, DemoStep } from "@core/events"
import { EventStore } from "@core/eventstore"
import { drive, replayRun, withDeciders } from "@core/engine"
import { labelInference, pipelineDeciders } from "../mod.ts"
import { deciderRuntime } from "./support.ts"

const AT = "2026-12-02T12:00:00.000Z"
const { rt, dispose } = deciderRuntime("core-pipeline-")
afterAll(dispose)

const page = (...elements: Array<[string, string, Partial<{ value: string; checked: boolean }>?]>) =>
  JSON.stringify({
    url: "x",
    elements: elements.map(([role, name, more]) => ({
      id: "e1",
      role,
      name,
      text: name,
      value: null,
      checked: null,
      visible: true,
      ...more
    }))
  })

const target = (role: string, name: string) => ({ role, name, elementId: "e7", text: name })
const steps: Array<[Action, string, string, string]> = [
  [
    { kind: "type", target: target("searchbox", "Search"), text: "kettle", submit: true },
    "/",
    "/search?q=kettle",
    page(["link", "Kettle"])
  ],
  [{ kind: "click", target: target("link", "Kettle") }, "/search?q=kettle", "/product/kettle", page(["button", "Add to cart"])],
  [{ kind: "click", target: target("button", "Add to cart") }, "/product/kettle", "/product/kettle?added=cart", page(["link", "Cart (1)"])],
  [{ kind: "status", status: "complete" }, "/product/kettle?added=cart", "/product/kettle?added=cart", page(["link", "Cart (1)"])]
]

/** A demo that ends on a page it had already visited: no LF can witness reaching it. */
const roundTrip: Array<[Action, string, string, string]> = [
  [{ kind: "click", target: target("link", "Books") }, "/", "/books", page(["link", "Home"])],
  [{ kind: "click", target: target("link", "Home") }, "/books", "/", page(["link", "Books"])],
  [{ kind: "click", target: target("link", "Books") }, "/", "/books", page(["link", "Home"])],
  [{ kind: "status", status: "complete" }, "/books", "/books", page(["link", "Home"])]
]

const seed = (demoId: string, withBlobs = true, recorded = steps) =>
  rt.runPromise(
    Effect.gen(function* () {
      const blobs = yield* BlobStore
      const store = yield* EventStore
      const demoSteps: Array<DemoStep> = []
      for (const [action, before, after, elements] of recorded) {
        const bytes = new TextEncoder().encode(`${elements}${withBlobs ? "" : demoId}`)
        const hash = withBlobs ? yield* blobs.put(bytes) : digest(`${demoId}:${before}`)
        demoSteps.push({
          action,
          observation: { screenshot: null, elements: hash, aria: null },
          urlBefore: `http://shop${before}`,
          urlAfter: `http://shop${after}`,
          appBefore: null,
          appAfter: null
        })
      }
      const taskId = `kettle-${demoId}`
      const task = makeEvent(TaskRegistered, {
        stream: workspaceStream("task", taskId),
        runId: null,
        causationId: null,
        ordinal: 0,
        recordedAt: AT,
        data: {
          taskId,
          site: "shop",
          suite: "test",
          template: null,
          instruction: "Add the kettle to the cart.",
          siteSeed: 1,
          checker: null,
          platform: "web",
          startUrl: "http://shop/",
          app: null
        }
      })
      const demo = makeEvent(DemoIngested, {
        stream: workspaceStream("demo", demoId),
        runId: null,
        causationId: null,
        ordinal: 0,
        recordedAt: AT,
        data: {
          demoId,
          taskId,
          source: { kind: "file", ref: "test" },
          steps: demoSteps,
          contentDigest: digest({ taskId, steps: demoSteps })
        }
      })
      yield* store.append(task.stream, [task], { expectedRevision: 0 })
      yield* store.append(demo.stream, [demo], { expectedRevision: 0 })
      return [task, demo] as Array<CoreEvent>
    })
  )

/** A demo that answers with a place's name, after opening its page. */
const answered: Array<[Action, string, string, string]> = [
  [{ kind: "click", target: target("link", "Workshop") }, "/", "/workshop", page(["heading", "Workshop"])],
  [{ kind: "answer", text: "Workshop" }, "/workshop", "/workshop", page(["heading", "Workshop"])]
]

const inferRun = (runId: string, prior: ReadonlyArray<CoreEvent>, demos: unknown, config: Record<string, unknown> = {}) =>
  rt.runPromise(
    Effect.gen(function* () {
      const started = makeEvent(RunStarted, {
        stream: runStream(runId, "run", runId),
        runId,
        causationId: null,
        ordinal: 0,
        recordedAt: AT,
        data: {
          config: { "infer.demos": demos, "models.baseUrl": null, ...config },
          configSources: {},
          seed: "s",
          code: { commit: null, dirty: false },
          tools: {},
          command: "infer"
        }
      })
      return (yield* drive({ registry: pipelineDeciders, runId, prior, start: [started] })).events
    })
  )

describe("label inference, live then replayed", () => {
  let prior: Array<CoreEvent>
  let events: ReadonlyArray<CoreEvent>
  beforeAll(async () => {
    prior = [...(await seed("kettle-1")), ...(await seed("broken-1", false))]
    events = await inferRun("infer-t1", prior, "all")
  })

  test("given a demo, when the run starts, then a job per demo and the demo's key steps each get an LF", () => {
    const job = events.filter((e) => e.stream === "run.infer-t1.infer.kettle-1").map((e) => e.type)
    expect(job).toEqual([
      "JobQueued",
      "StepsDescribed",
      "KeyStepsIdentified",
      "LabelFunctionInferred",
      "LabelFunctionInferred",
      "LabelFunctionInferred",
      "JobCompleted"
    ])
    const keys = events.find((e) => e.type === "KeyStepsIdentified")!
    expect(keys.type === "KeyStepsIdentified" && keys.data.keySteps.map((k) => [k.stepIndex, k.reason])).toEqual([
      [0, "state-changing"],
      [2, "state-changing"],
      [3, "final-status"]
    ])
    const lfs = events.flatMap((e) => (e.type === "LabelFunctionInferred" ? [e.data] : []))
    expect(lfs.map((l) => l.validation)).toEqual([0, 2, 3].map((k) => ({ onDemoAtKeyStep: k, onPrefix: false, onFailures: [] })))
    expect(lfs[1]!.code).toContain(`urlBefore: "^/product/kettle(\\\\?.*)?$"`)
  })

  test("a demo whose blobs are gone fails its job with the reason, and no LF is made up", () => {
    const broken = events.filter((e) => e.stream === "run.infer-t1.infer.broken-1")
    expect(broken.map((e) => e.type)).toEqual(["JobQueued", "JobCompleted"])
    const done = broken[1]!
    expect(done.type === "JobCompleted" && done.data.outcome).toBe("failed")
    expect(done.type === "JobCompleted" && done.data.error).toContain("broken-1")
  })

  test("replay re-derives every decision; a changed decider is named with the events it would change", async () => {
    const same = await rt.runPromise(replayRun({ runId: "infer-t1", registry: pipelineDeciders }))
    expect(same.divergences).toEqual([])
    expect(same.decisionEvents).toBe(events.filter((e) => e.type !== "RunStarted").length)

    // What if the decider stopped inferring the final status LF?
    const skipStatus = {
      ...labelInference,
      version: "2-what-if",
      decide: (s: any, e: CoreEvent) =>
        Effect.map(labelInference.decide(s, e), (ds) =>
          ds.filter((d) => !(d.definition.type === "LabelFunctionInferred" && (d.data as any).keyStepIndex === 3))
        )
    }
    const changed = await rt.runPromise(replayRun({ runId: "infer-t1", registry: withDeciders(pipelineDeciders, [skipStatus]) }))
    expect(changed.divergences.map((d) => [d.kind, d.type])).toContainEqual(["missing", "LabelFunctionInferred"])
    expect(changed.divergences[0]!.decider).toBe("label-inference")
  })

  test("a key step no candidate can witness is rejected with the last candidate and the reason", async () => {
    const more = await seed("books-1", true, roundTrip)
    const run = await inferRun("infer-t3", [...prior, ...more], ["books-1"])
    const rejected = run.flatMap((e) => (e.type === "LabelFunctionRejected" ? [e.data] : []))
    expect(rejected).toHaveLength(1)
    expect(rejected[0]).toMatchObject({ keyStepIndex: 2, attempts: 1, reason: "state: held at step 0, before its key step 2" })
    expect(rejected[0]!.candidateCode).toContain(String.raw`validateUrl(t, "^/books(\\?.*)?$")`)
    expect(run.filter((e) => e.type === "LabelFunctionInferred")).toHaveLength(1)
    const replayed = await rt.runPromise(replayRun({ runId: "infer-t3", registry: pipelineDeciders }))
    expect(replayed.divergences).toEqual([])
  })

  test("--demo selects one demo; a demo ingested after the run does not change its replay", async () => {
    const one = await inferRun("infer-t2", prior, ["kettle-1"])
    expect(one.filter((e) => e.type === "JobQueued")).toHaveLength(1)
    await seed("kettle-2")
    const again = await rt.runPromise(replayRun({ runId: "infer-t1", registry: pipelineDeciders }))
    expect(again.divergences).toEqual([])
  })

  test("a run without infer.synthesis infers as version 1 did; one that records version 2 gets its code; both replay", async () => {
    const more = await seed("answer-1", true, answered)
    const answerLf = async (runId: string, config: Record<string, unknown>) => {
      const run = await inferRun(runId, [...prior, ...more], ["answer-1"], config)
      const replayed = await rt.runPromise(replayRun({ runId, registry: pipelineDeciders }))
      const lf = run.flatMap((e) => (e.type === "LabelFunctionInferred" && e.data.keyStepIndex === 1 ? [e.data.code] : []))
      return { lf, divergences: replayed.divergences }
    }
    expect(await answerLf("infer-v1", {})).toEqual({ lf: [expect.stringContaining(`validateAnswer(t, "Workshop")`)], divergences: [] })
    expect(await answerLf("infer-v2", { "infer.synthesis": "2" })).toEqual({
      lf: [expect.stringContaining(String.raw`validateAnswer(t, /(^|\W)Workshop(\W|$)/i)`)],
      divergences: []
    })
  })
})
