/**
 * The driver decides on events as the log will give them back: given a decision whose data
 * holds its keys in another order than the event's schema, when a later decider writes that
 * data out (as the datasets decider writes an action into a record), then the live run and
 * its replay write the same bytes.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { JobCompleted, JobQueued, makeEvent, RunStarted, runStream } from "@core/events"
import type { CoreEvent } from "@core/events"
import { asStored, decision, defineDecider, drive, makeDeciderRegistry, replayRun } from "../mod.ts"
import { deciderRuntime } from "./support.ts"

const { rt, dispose } = deciderRuntime("core-driver-")
afterAll(dispose)

/** Queues a job with its data's keys in reverse, as a policy's sorted JSON would give an action. */
const queuer = defineDecider({
  name: "test-queuer",
  version: "1",
  handles: ["RunStarted"],
  emits: ["JobQueued"],
  decide: (_: null, e: CoreEvent) =>
    Effect.succeed([
      decision(JobQueued, {
        stream: runStream(e.runId!, "jobs", "j1"),
        causationId: e.id,
        ordinal: 0,
        data: { params: {}, taskId: "t", round: 1, kind: "rollout", jobId: "j1" } as any
      })
    ])
})

/** Writes the job's data out as text: what it holds depends on the data's key order. */
const writer = defineDecider({
  name: "test-writer",
  version: "1",
  handles: ["JobQueued"],
  emits: ["JobCompleted"],
  decide: (_: null, e: CoreEvent) =>
    Effect.succeed(
      e.type !== "JobQueued"
        ? []
        : [
            decision(JobCompleted, {
              stream: e.stream,
              causationId: e.id,
              ordinal: 0,
              data: { jobId: e.data.jobId, outcome: "done", worker: "test", attempts: 1, produced: [], error: JSON.stringify(e.data) }
            })
          ]
    )
})

test("a decider reading a decision sees it as stored, live as in replay", async () => {
  const registry = makeDeciderRegistry([queuer, writer])
  const runId = "driver-order"
  const started = makeEvent(RunStarted, {
    stream: runStream(runId, "run", runId),
    runId,
    causationId: null,
    ordinal: 0,
    recordedAt: "2026-12-04T12:00:00.000Z",
    data: { config: {}, configSources: {}, seed: "s", code: { commit: null, dirty: false }, tools: {}, command: "run" }
  })
  const { events } = await rt.runPromise(drive({ registry, runId, prior: [], start: [started] }))
  const completed = events.find((e) => e.type === "JobCompleted")!
  expect(completed.type === "JobCompleted" && JSON.parse(completed.data.error!)).toEqual({
    jobId: "j1",
    kind: "rollout",
    round: 1,
    taskId: "t",
    params: {}
  })
  expect(completed.type === "JobCompleted" && completed.data.error).toBe(
    JSON.stringify(asStored(events.find((e) => e.type === "JobQueued")!).data)
  )
  const replayed = await rt.runPromise(replayRun({ runId, registry }))
  expect(replayed.divergences).toEqual([])
})
