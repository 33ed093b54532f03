/**
 * Deciders that share an `evolve` share its state: the driver and replay fold each event
 * once per distinct state, not once per decider. A two-round run is driven without a
 * browser — the bundled replay fixture's tasks and demos, every episode's environment
 * failing, so rollouts end as infra errors and the rounds still complete — with each
 * distinct `evolve` of the pipeline's registry wrapped in a counter; then it is replayed.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer, ManagedRuntime, Stream } from "effect"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectoryBlobStore } from "@core/blobstore"
import { makeEvent, RunStarted, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import {
  deciderStates,
  defineDecider,
  drive,
  EnvironmentFailed,
  makeDeciderRegistry,
  noModels,
  Observations,
  Randomness,
  readRunLog,
  replayRun
} from "@core/engine"
import type { AnyDecider, DeciderRegistry } from "@core/engine"
import { encodeRunConfig, labelSandbox, pipelineDeciders, runConfigOf } from "../mod.ts"

const FIXTURE = join(import.meta.dir, "..", "..", "..", "tests", "fixtures", "replay-run")
const RUN = "fold-once-2-rounds"

/** The registry with each distinct `evolve` replaced by one counting wrapper: sharing is kept. */
const counted = (registry: DeciderRegistry) => {
  const folds = new Map<AnyDecider["evolve"], Map<string, number>>()
  const wrappers = new Map<AnyDecider["evolve"], AnyDecider["evolve"]>()
  const deciders = registry.deciders.map((d) => {
    let wrapper = wrappers.get(d.evolve)
    if (wrapper === undefined) {
      const evolve = d.evolve
      const seen = new Map<string, number>()
      folds.set(evolve, seen)
      wrapper = (state: unknown, e: CoreEvent) => {
        seen.set(e.id, (seen.get(e.id) ?? 0) + 1)
        return evolve(state, e)
      }
      wrappers.set(evolve, wrapper)
    }
    return { ...d, evolve: wrapper }
  })
  return { registry: makeDeciderRegistry(deciders), folds: [...folds.values()] }
}

/** Every episode's environment breaks: the rollout retries, then records an infra error. */
const brokenEnvironment = Layer.succeed(
  Observations,
  Observations.of({
    reset: (trajectoryId, attempt = 0) => Effect.fail(new EnvironmentFailed({ trajectoryId, attempt, reason: "no browser in this test" })),
    act: (trajectoryId) => Effect.fail(new EnvironmentFailed({ trajectoryId, attempt: 0, reason: "no browser in this test" })),
    end: () => Effect.void
  })
)

const dir = mkdtempSync(join(tmpdir(), "core-fold-once-"))
cpSync(FIXTURE, dir, { recursive: true })
const rt = ManagedRuntime.make(
  Layer.mergeAll(
    EmbeddedStore.layer({ path: join(dir, "events.db") }),
    DirectoryBlobStore.layer({ dir: join(dir, "blobs") }),
    labelSandbox(),
    noModels,
    brokenEnvironment,
    Randomness.layer("fold-once")
  )
)
afterAll(async () => {
  await rt.dispose()
  rmSync(dir, { recursive: true, force: true })
})

/** The fixture run's RunStarted, as a new two-round run of the same tasks. */
const twoRoundStart = Effect.gen(function* () {
  const store = yield* EventStore
  const read = yield* Stream.runCollect(store.readAll({ filter: "run.*.run.*" }))
  const fixture = read.map((r) => r.event).find((e) => e.type === "RunStarted")!
  if (fixture.type !== "RunStarted") throw new Error("the fixture has no RunStarted")
  const config = { ...fixture.data.config, ...encodeRunConfig({ ...runConfigOf(fixture.data.config), rounds: 2 }) }
  const prior = (yield* Stream.runCollect(store.readAll({ filter: "ws.>" }))).map((r) => r.event)
  const started = makeEvent(RunStarted, {
    stream: runStream(RUN, "run", RUN),
    runId: RUN,
    causationId: null,
    ordinal: 0,
    recordedAt: "2026-12-04T12:00:00.000Z",
    data: { ...fixture.data, config }
  })
  return { prior, started }
})

describe("folding a two-round run", () => {
  test("given the pipeline's deciders, when a run is driven and then replayed, then each event is folded once per distinct state", async () => {
    const live = counted(pipelineDeciders)
    // Three distinct states: the run state seven deciders share, label inference's, and the stateless deciders'.
    expect(live.folds.length).toBe(3)
    const { prior, started } = await rt.runPromise(twoRoundStart)
    const { events } = await rt.runPromise(drive({ registry: live.registry, runId: RUN, prior, start: [started], concurrency: 2 }))
    expect(events.filter((e) => e.type === "RoundCompleted").map((e) => e.type === "RoundCompleted" && e.data.round)).toEqual([0, 1, 2])
    for (const seen of live.folds) {
      expect(seen.size).toBe(prior.length + events.length)
      expect([...seen.values()].every((n) => n === 1)).toBe(true)
    }

    const replayed = counted(pipelineDeciders)
    const report = await rt.runPromise(replayRun({ runId: RUN, registry: replayed.registry }))
    expect(report.divergences).toEqual([])
    const log = await rt.runPromise(readRunLog(RUN))
    for (const seen of replayed.folds) {
      expect(seen.size).toBe(log.events.length)
      expect([...seen.values()].every((n) => n === 1)).toBe(true)
    }
  }, 60_000)
})

describe("decider states", () => {
  const count = { a: 0, b: 0 }
  const evolveA = (s: number) => (count.a++, s + 1)
  const evolveB = (s: number) => (count.b++, s + 10)
  const none = () => Effect.succeed([])
  const deciders = [
    defineDecider({ name: "a1", version: "1", handles: [], emits: [], initial: 0, evolve: evolveA, decide: none }),
    defineDecider({ name: "a2", version: "1", handles: [], emits: [], initial: 0, evolve: evolveA, decide: none }),
    defineDecider({ name: "b", version: "1", handles: [], emits: [], initial: 0, evolve: evolveB, decide: none }),
    // Same evolve, another start: a state of its own.
    defineDecider({ name: "a-from-5", version: "1", handles: [], emits: [], initial: 5, evolve: evolveA, decide: none }),
    defineDecider({ name: "stateless", version: "1", handles: [], emits: [], decide: none })
  ]

  test("given deciders sharing an evolve and initial, when two events are folded, then they share one state folded once per event", () => {
    const states = deciderStates(makeDeciderRegistry(deciders))
    const e = {} as CoreEvent
    states.fold(e)
    states.fold(e)
    expect(deciders.map((d) => states.of(d))).toEqual([2, 2, 20, 7, null])
    expect(count).toEqual({ a: 4, b: 2 })
  })
})
