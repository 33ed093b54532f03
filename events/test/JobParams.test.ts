/**
 * Each job kind's parameters have a schema: what the pipeline's deciders queue decodes,
 * explorer jobs queued before rejoining existed included, and another decider's job of the
 * same kind (the demo command's placeholder rollouts) is told apart rather than misread.
 */
import { describe, expect, test } from "bun:test"
import { decodeJobParams, ExploreParams, InferParams, RolloutParams } from "../mod.ts"

const click = { kind: "click", target: { role: "link", name: "Boards", elementId: "3", text: null } } as const

describe("job parameters", () => {
  test("given a rollout job's parameters, when decoded, then they come back typed", () => {
    expect(decodeJobParams(RolloutParams, { trajectoryId: "r1-t-s0", stepBudget: 12, sample: 0 })).toEqual({
      trajectoryId: "r1-t-s0",
      stepBudget: 12,
      sample: 0
    })
  })

  test("given an explorer job's parameters with and without rejoin, when decoded, then both decode and rejoin stays absent where it was", () => {
    const old = { trajectoryId: "r1-t-x0", stepBudget: 12, sample: 0, fromStep: -1, prefix: [], avoid: null }
    expect(decodeJobParams(ExploreParams, old)).toEqual(old)
    const now = {
      ...old,
      fromStep: 0,
      prefix: [click],
      avoid: { role: "link", name: "Boards" },
      rejoin: [{ urlBefore: "http://forum.local/", action: click }]
    }
    expect(decodeJobParams(ExploreParams, now)).toEqual(now)
  })

  test("given the demo command's rollout job or an explorer without its start, when decoded as the pipeline's, then they do not fit", () => {
    expect(decodeJobParams(RolloutParams, { sample: 0, blob: "ab".repeat(32) })).toBeNull()
    expect(decodeJobParams(ExploreParams, { trajectoryId: "r1-t-x0", stepBudget: 12, sample: 0 })).toBeNull()
  })

  test("given an infer job's parameters, when decoded, then the demo and its digest come back", () => {
    expect(decodeJobParams(InferParams, { demoId: "d1", contentDigest: "c".repeat(64) })).toEqual({
      demoId: "d1",
      contentDigest: "c".repeat(64)
    })
    expect(decodeJobParams(InferParams, { demoId: "d1" })).toBeNull()
  })
})
