/** The pure parts of replay: the diff, the seeded PRNG, the registry and the comparison. */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { JobCompleted, JobQueued, makeEvent, RunStarted, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import {
  compareDecisions,
  coreDeciders,
  decision,
  defineDecider,
  demoJobs,
  diffValues,
  formatDiff,
  makeDeciderRegistry,
  prng,
  seedOf,
  stamp,
  withDeciders
} from "../mod.ts"
import type { Rederived } from "../mod.ts"

describe("diffValues", () => {
  test("equal values have no diff, whatever their key order", () => {
    expect(diffValues({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toEqual([])
  })
  test("reports leaves by JSON path, absent sides left out", () => {
    const d = diffValues(
      { data: { n: 1, list: [1, 2], gone: true, "odd key": "x" } },
      { data: { n: 2, list: [1, 2, 3], "odd key": "y", added: { deep: 1 } } }
    )
    expect(d).toEqual([
      { path: "data.added", rederived: { deep: 1 } },
      { path: "data.gone", logged: true },
      { path: "data.list[2]", rederived: 3 },
      { path: "data.n", logged: 1, rederived: 2 },
      { path: 'data["odd key"]', logged: "x", rederived: "y" }
    ])
    expect(formatDiff(d)).toContain("  data.gone: true → (absent)")
  })
  test("a type change is one leaf", () => {
    expect(diffValues({ a: [1] }, { a: { 0: 1 } })).toEqual([{ path: "a", logged: [1], rederived: { 0: 1 } }])
    expect(diffValues(1, 2)).toEqual([{ path: "$", logged: 1, rederived: 2 }])
  })
})

describe("seeded PRNG", () => {
  const key = { runSeed: "42", round: 1, taskId: "t1", sample: 0, purpose: "explore" }
  test("same key, same draws; any part of the key changes them", () => {
    const draw = (k: typeof key) => {
      const r = prng(seedOf(k))
      return Array.from({ length: 8 }, () => r.next())
    }
    expect(draw(key)).toEqual(draw({ ...key }))
    for (const change of [{ runSeed: "43" }, { round: 2 }, { taskId: "t2" }, { sample: 1 }, { purpose: "sample" }]) {
      expect(draw({ ...key, ...change })).not.toEqual(draw(key))
    }
  })
  test("a known sequence: the PRNG is the same on every machine", () => {
    const r = prng("00000000000000000000000000000000")
    expect([r.next(), r.next(), r.next()]).toEqual([4035892905, 1363572419, 145230303])
  })
  test("int and float stay in range and spread out", () => {
    const r = prng(seedOf(key))
    const counts = Array(10).fill(0)
    for (let i = 0; i < 10_000; i++) {
      const f = r.float()
      expect(f >= 0 && f < 1).toBe(true)
      counts[r.int(0, 10)]++
    }
    for (const c of counts) expect(c).toBeGreaterThan(850)
    expect(() => r.int(3, 3)).toThrow(RangeError)
    expect(() => prng("xyz")).toThrow(TypeError)
  })
})

describe("decider registry", () => {
  const noop = defineDecider({
    name: "noop",
    version: "1",
    handles: ["JobQueued"],
    emits: ["JobCompleted"],
    decide: () => Effect.succeed([])
  })
  test("indexes deciders by handled type and collects what they emit", () => {
    const r = makeDeciderRegistry([demoJobs, noop])
    expect(r.handling("JobQueued").map((d) => d.name)).toEqual(["demo-jobs", "noop"])
    expect(r.handling("RunStarted").map((d) => d.name)).toEqual(["demo-jobs"])
    expect([...r.emits].sort()).toEqual(["JobCompleted", "JobQueued"])
  })
  test("a duplicate name is refused; withDeciders replaces by name", () => {
    expect(() => makeDeciderRegistry([noop, noop])).toThrow("registered twice")
    const v2 = { ...demoJobs, version: "2" }
    expect(withDeciders(coreDeciders, [v2]).deciders.find((d) => d.name === "demo-jobs")?.version).toBe("2")
  })
})

describe("compareDecisions", () => {
  const runId = "r1"
  const at = "2026-12-02T00:00:00.000Z"
  const started = makeEvent(RunStarted, {
    stream: runStream(runId, "run", runId),
    runId,
    causationId: null,
    ordinal: 0,
    recordedAt: at,
    data: { config: {}, configSources: {}, seed: "0", code: { commit: null, dirty: false }, tools: {}, command: "demo" }
  })
  const derive = (e: CoreEvent) => Effect.runSync(demoJobs.decide(null, e)).map((d) => stamp(d, runId, at))
  const queued = derive(started)
  const log: Array<CoreEvent> = [started, ...queued.flatMap((q) => [q, ...derive(q)])]
  const rederivedFrom = (events: ReadonlyArray<CoreEvent>): Array<Rederived> =>
    events.flatMap((e, causeIndex) => derive(e).map((event) => ({ causeIndex, decider: "demo-jobs", event })))
  const registry = makeDeciderRegistry([demoJobs])

  test("the demo decider re-derives its own log exactly, recordedAt aside", () => {
    const later = log.map((e) => ({ ...e, recordedAt: "2027-01-01T00:00:00.000Z" }) as CoreEvent)
    const r = compareDecisions({ events: log, registry, rederived: rederivedFrom(later), failures: [] })
    expect(r).toEqual({ decisionEvents: 6, rederived: 6, divergences: [] })
  })
  test("an event of a decision's type on a workspace stream is a fact someone else wrote, not a decision of the run", () => {
    const foreign = { ...log[3]!, id: "f".repeat(64), stream: "ws.trainer.nightly", runId: null } as CoreEvent
    const r = compareDecisions({ events: [...log, foreign], registry, rederived: rederivedFrom(log), failures: [] })
    expect(r).toEqual({ decisionEvents: 6, rederived: 6, divergences: [] })
    // The same event on the run's own stream is a decision nothing re-derives.
    const own = { ...foreign, stream: log[3]!.stream } as CoreEvent
    const missing = compareDecisions({ events: [...log, own], registry, rederived: rederivedFrom(log), failures: [] })
    expect(missing.divergences.map((d) => [d.kind, d.id])).toEqual([["missing", own.id]])
  })
  test("changed, missing and extra events, in log order", () => {
    const q1 = log[3]!
    const changed = { ...q1, data: { ...q1.data, params: { sample: 99 } } } as CoreEvent
    const unlogged = stamp(
      decision(JobCompleted, {
        stream: q1.stream,
        causationId: q1.id,
        ordinal: 1,
        data: { jobId: "x", outcome: "done", worker: "demo", attempts: 1, produced: [], error: null }
      }),
      runId,
      at
    )
    const events = log.filter((e) => e.id !== log[6]!.id).map((e) => (e.id === q1.id ? changed : e))
    const rederived = [...rederivedFrom(log), { causeIndex: 3, decider: "demo-jobs", event: unlogged }]
    const r = compareDecisions({ events, registry, rederived, failures: [] })
    expect(r.divergences.map((d) => [d.kind, d.id])).toEqual([
      ["changed", q1.id],
      ["extra", unlogged.id],
      ["extra", log[6]!.id]
    ])
    expect(r.divergences[0]!.diff).toEqual([
      { path: "data.params.blob", rederived: (q1.data as unknown as { params: { blob: string } }).params.blob },
      { path: "data.params.sample", logged: 99, rederived: 1 }
    ])
    const missing = compareDecisions({ events: log, registry, rederived: rederivedFrom(log).slice(1), failures: [] })
    expect(missing.divergences).toMatchObject([{ kind: "missing", id: log[1]!.id, decider: "demo-jobs" }])
  })
  test("--round keeps the decision events of that round only", () => {
    expect(compareDecisions({ events: log, registry, rederived: [], failures: [], round: 1 }).decisionEvents).toBe(6)
    expect(compareDecisions({ events: log, registry, rederived: [], failures: [], round: 2 })).toEqual({
      decisionEvents: 0,
      rederived: 0,
      divergences: []
    })
  })
  test("a failing decider is reported at the event it was handling", () => {
    const r = compareDecisions({
      events: log,
      registry,
      rederived: rederivedFrom(log).slice(3),
      failures: [{ causeIndex: 0, decider: "demo-jobs", error: new Error("boom") }]
    })
    expect(r.divergences[0]).toMatchObject({ kind: "failed", id: started.id, type: "RunStarted" })
    expect(r.divergences[0]!.reason).toContain("boom")
  })
})

test("JobQueued stays the demo's: a non-demo RunStarted queues nothing", () => {
  const other = makeEvent(RunStarted, {
    stream: runStream("r2", "run", "r2"),
    runId: "r2",
    causationId: null,
    ordinal: 0,
    recordedAt: "2026-12-02T00:00:00.000Z",
    data: { config: {}, configSources: {}, seed: "0", code: { commit: null, dirty: false }, tools: {}, command: "run" }
  })
  expect(Effect.runSync(demoJobs.decide(null, other))).toEqual([])
  expect(JobQueued.type).toBe("JobQueued")
})
