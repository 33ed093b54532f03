/**
 * Dataset records: given verified trajectories, when they become records, then each
 * format has the shape trainers read, ids are stable content digests, and preference pairs
 * come only from one shared state.
 */
import { describe, expect, test } from "bun:test"
import type { Action } from "@core/events"
import { digest } from "@core/events"
import { divergence, dpoRecord, policyAnswer, rolloutRecord, sealOf, sftRecords, stepRewards } from "../mod.ts"
import type { RecordStep, RecordTrajectory } from "../mod.ts"

const link = (name: string, id = "e1"): Action => ({ kind: "click", target: { role: "link", name, elementId: id, text: name } })
const complete: Action = { kind: "status", status: "complete" }
const at = (url: string, action: Action, screenshot: string | null = null, error: string | null = null): RecordStep => ({
  url,
  title: "Shop",
  view: `[e1] link "Kitchen"\n[e2] link "Electronics" (${url})`,
  screenshot,
  action,
  error
})
const png = "a".repeat(64)

const pass: RecordTrajectory = {
  trajectoryId: "r1-s0-shop-open-category-1",
  taskId: "shop-open-category-1",
  instruction: "Open the Kitchen category page.",
  steps: [at("http://s/shop/", link("Kitchen"), png), at("http://s/shop/category/5", complete)]
}
const fail: RecordTrajectory = {
  ...pass,
  trajectoryId: "r1-s1-shop-open-category-1",
  steps: [at("http://s/shop/", link("Electronics", "e2"), png), at("http://s/shop/category/3", complete)]
}

describe("sft", () => {
  test("given a passing trajectory, then one record per useful step: system, user with the page, history and one <image> per image, assistant with the action by element id", () => {
    const records = sftRecords({
      ...pass,
      steps: [...pass.steps.slice(0, 1), at("http://s/shop/category/5", link("Nowhere"), null, "no such element"), ...pass.steps.slice(1)]
    })
    expect(records.map((r) => r.format)).toEqual(["sft", "sft"])
    const [first, second] = records as [(typeof records)[0], (typeof records)[0]]
    const messages = first.body.messages as Array<{ role: string; content: string }>
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant"])
    expect(messages[1]!.content.startsWith("<image>\n# Task\n\nOpen the Kitchen category page.")).toBe(true)
    expect(JSON.parse(messages[2]!.content)).toEqual({ action: { kind: "click", element: "e1" } })
    expect(first.body.images).toEqual([png])
    expect(first.blobs).toEqual([png])
    expect(first.recordId).toBe(digest({ format: "sft", body: first.body }))
    // the failed step is in the history the next record shows, not a record of its own
    expect((second.body.messages as Array<{ content: string }>)[1]!.content).toContain(
      "2. Click on a UI element 'Nowhere' (link) on the screen. (error: no such element)"
    )
    expect(second.body.images).toEqual([])
  })

  test("the same example is the same id whatever trajectory it came from", () => {
    expect(sftRecords(pass)[0]!.recordId).toBe(sftRecords({ ...pass, trajectoryId: "other" })[0]!.recordId)
  })
})

describe("dpo", () => {
  test("given a pass and a fail from the same state, then the pair is the two actions taken there", () => {
    expect(divergence(pass.steps, fail.steps)).toBe(0)
    const r = dpoRecord(pass, fail)!
    expect(r.trajectoryIds).toEqual([pass.trajectoryId, fail.trajectoryId])
    expect(r.body.chosen).toEqual([{ role: "assistant", content: JSON.stringify({ action: { kind: "click", element: "e1" } }) }])
    expect(r.body.rejected).toEqual([{ role: "assistant", content: JSON.stringify({ action: { kind: "click", element: "e2" } }) }])
    expect((r.body.prompt as Array<unknown>).length).toBe(2)
  })

  test("given two runs that were never in the same state when they parted, or never parted, then no pair", () => {
    const elsewhere = { ...fail, steps: [at("http://s/shop/about", link("Electronics"))] }
    expect(dpoRecord(pass, elsewhere)).toBeNull()
    expect(dpoRecord(pass, { ...pass, trajectoryId: "twin" })).toBeNull()
  })
})

describe("rollout", () => {
  test("step rewards: each LF adds 1/n where it first held; a pass is worth 1, anything else the sum", () => {
    expect(stepRewards(3, [0, 2, -1])).toEqual([0.333333, 0, 0.333333])
    const r = rolloutRecord(fail, "partial", [1, -1])
    expect(r.body.reward).toBe(0.5)
    expect((r.body.steps as Array<{ reward: number; image: number | null }>).map((s) => [s.reward, s.image])).toEqual([
      [0, 0],
      [0.5, null]
    ])
    expect(rolloutRecord(pass, "pass", [0, 1]).body.reward).toBe(1)
  })
})

test("a seal counts per format and digests the sorted ids", () => {
  const records = [...sftRecords(pass), rolloutRecord(pass, "pass", [0, 1])]
  const seal = sealOf(records)
  expect(seal.counts).toEqual({ sft: 2, dpo: 0, rollout: 1 })
  expect(seal.contentDigest).toBe(sealOf([...records].reverse()).contentDigest)
  expect(
    policyAnswer({ kind: "type", target: { role: "searchbox", name: "Search", elementId: "e9", text: null }, text: "mug", submit: true })
  ).toEqual({ kind: "type", text: "mug", submit: true, element: "e9" })
  // A select answers with its option's value: the label a policy named it by is the record's, not the answer's.
  expect(
    policyAnswer({
      kind: "select",
      target: { role: "combobox", name: "Sort", elementId: "e3", text: null },
      value: "top",
      label: "Top score"
    })
  ).toEqual({ kind: "select", value: "top", element: "e3" })
})

describe("set-of-marks images", () => {
  const marks = "b".repeat(64)
  const marked: RecordTrajectory = { ...pass, steps: [{ ...pass.steps[0]!, marks }, pass.steps[1]!] }

  test("given a step with a marked screenshot, then the record carries both: images plain, marked_images marked, both blobs", () => {
    const [first] = sftRecords(marked)
    expect(first!.body.images).toEqual([png])
    expect(first!.body.marked_images).toEqual([marks])
    expect(first!.blobs).toEqual([png, marks])
    const rollout = rolloutRecord(marked, "pass", [0, 1])
    expect(rollout.body.marked_images).toEqual([marks])
  })

  test("given no marks, then no marked_images: the record and its id are what they were before marks existed", () => {
    const [first] = sftRecords(pass)
    expect("marked_images" in first!.body).toBe(false)
    expect(first!.recordId).toBe(sftRecords({ ...pass, steps: [{ ...pass.steps[0]!, marks: null }, pass.steps[1]!] })[0]!.recordId)
  })
})
