/**
 * `--parallel N` plays N episodes at once only if every decider that handles a rollout or
 * explorer job says it may be decided beside its neighbours: one decider that does not
 * (because the job is none of its business) makes the driver decide them one by one, with
 * workers idle. Inference jobs stay one at a time.
 */
import { expect, test } from "bun:test"
import { pipelineDeciders } from "../Deciders.ts"
import { jobQueued } from "./specs/Events.ts"

const handledConcurrently = (e: ReturnType<typeof jobQueued>) => {
  const handlers = pipelineDeciders.handling(e.type)
  return {
    handlers: handlers.length,
    concurrent: handlers
      .filter((d) => d.concurrent?.(e) === true)
      .map((d) => d.name)
      .sort()
  }
}

test("every decider handling an episode job lets it be decided beside the next; an inference job is decided alone", () => {
  const rollout = jobQueued({
    jobId: "rollout-r1-s0-t",
    kind: "rollout",
    round: 1,
    taskId: "t",
    params: { trajectoryId: "r1-s0-t", sample: 0, stepBudget: 4 }
  })
  const explore = jobQueued({
    jobId: "explore-x1-s0-t",
    kind: "explore",
    round: 1,
    taskId: "t",
    params: { trajectoryId: "x1-s0-t", sample: 0, stepBudget: 4, fromStep: -1, prefix: [], avoid: null }
  })
  const infer = jobQueued({
    jobId: "infer-d",
    kind: "infer",
    round: 0,
    taskId: "t",
    params: { demoId: "d", contentDigest: "0".repeat(64) }
  })
  for (const e of [rollout, explore]) {
    const h = handledConcurrently(e)
    expect(h.concurrent.length).toBe(h.handlers)
    expect(h.handlers).toBeGreaterThan(1)
  }
  expect(handledConcurrently(infer).concurrent).not.toContain("label-inference")
})
