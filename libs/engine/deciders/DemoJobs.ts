/**
 * The demo's job logic as a decider, so `bun core demo` runs are replayable: a demo run's
 * RunStarted queues three rollout jobs, and each queued demo job completes. Everything
 * it emits follows from the run id alone — the blob a job names is hashed, not read.
 *
 * @example
 * const queued = yield* demoJobs.decide(null, runStarted) // three JobQueued decisions
 */
import { Effect } from "effect"
import { JobCompleted, JobQueued, runStream, sha256 } from "@core/events"
import { decision, defineDecider } from "../Decider.ts"

export const DEMO_JOBS = 3
export const DEMO_TASK = "demo-task"

/** The blob the demo stores for a run; its hash is part of each job's parameters. */
export const demoBlob = (runId: string): Uint8Array => new TextEncoder().encode(`CORE demo blob for ${runId}\n`)

export const demoJobs = defineDecider({
  name: "demo-jobs",
  version: "1",
  handles: ["RunStarted", "JobQueued"],
  emits: ["JobQueued", "JobCompleted"],
  // A job of another task is none of its business: it decides nothing on it, so it never holds the others back.
  concurrent: (e) => e.type === "JobQueued" && e.data.taskId !== DEMO_TASK,
  decide: (_state, e) =>
    Effect.sync(() => {
      if (e.type === "RunStarted" && e.data.command === "demo" && e.runId !== null) {
        const runId = e.runId
        const blob = sha256(demoBlob(runId))
        return Array.from({ length: DEMO_JOBS }, (_, i) =>
          decision(JobQueued, {
            stream: runStream(runId, "job", `job-${i}`),
            causationId: e.id,
            ordinal: i,
            data: { jobId: `job-${i}`, kind: "rollout", round: 1, taskId: DEMO_TASK, params: { sample: i, blob } }
          })
        )
      }
      if (e.type === "JobQueued" && e.data.taskId === DEMO_TASK) {
        return [
          decision(JobCompleted, {
            stream: e.stream,
            causationId: e.id,
            ordinal: 0,
            data: { jobId: e.data.jobId, outcome: "done", worker: "demo", attempts: 1, produced: [], error: null }
          })
        ]
      }
      return []
    })
})
