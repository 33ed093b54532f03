/** The held-apart split of `train --run`: whole trajectories, about a tenth of the examples, the same every time. */
import { expect, test } from "bun:test"
import { holdApart } from "../HeldApart.ts"

const records = Array.from({ length: 60 }, (_, i) => ({ id: i, trajectoryIds: [`t${i % 20}`, "rejected"], examples: 1 + (i % 2) }))
const total = records.reduce((n, r) => n + r.examples, 0)

test("whole trajectories are held apart, within a tenth of the examples, in the records' own order", () => {
  const { train, held } = holdApart(records)
  const heldExamples = held.reduce((n, r) => n + r.examples, 0)
  expect(heldExamples).toBeGreaterThan(0)
  expect(heldExamples).toBeLessThanOrEqual(Math.ceil(total / 10))
  const heldTrajectories = new Set(held.map((r) => r.trajectoryIds[0]))
  // No trajectory is split between the two sides.
  expect(train.some((r) => heldTrajectories.has(r.trajectoryIds[0]))).toBe(false)
  expect([...train, ...held].sort((a, b) => a.id - b.id)).toEqual(records)
  expect(held.map((r) => r.id)).toEqual([...held.map((r) => r.id)].sort((a, b) => a - b))
})

test("a trajectory without examples (a rollout record's) is never held apart", () => {
  const rollouts = Array.from({ length: 20 }, (_, i) => ({ id: 100 + i, trajectoryIds: [`r${i}`], examples: 0 }))
  const { held } = holdApart([...records, ...rollouts])
  expect(held.length).toBeGreaterThan(0)
  expect(held.every((r) => r.examples > 0)).toBe(true)
})

test("the choice depends on the records alone: reordered, the same ones are held apart", () => {
  const ids = (rs: ReadonlyArray<{ id: number }>) => rs.map((r) => r.id).sort((a, b) => a - b)
  expect(ids(holdApart([...records].reverse()).held)).toEqual(ids(holdApart(records).held))
})

test("one trajectory alone is never held apart: there would be nothing to train on", () => {
  const one = [{ trajectoryIds: ["only"], examples: 5 }]
  expect(holdApart(one)).toEqual({ train: one, held: [] })
  expect(holdApart([])).toEqual({ train: [], held: [] })
  // A trajectory larger than the tenth is still held apart when it comes first, if another is left.
  const two = [
    { trajectoryIds: ["a"], examples: 5 },
    { trajectoryIds: ["b"], examples: 5 }
  ]
  expect(holdApart(two).held).toHaveLength(1)
})
