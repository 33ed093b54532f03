import { describe, expect, test } from "bun:test"
import { Result } from "effect"
import { catalog, definitions } from "../Catalog.ts"
import type { CoreEvent } from "../Catalog.ts"
import { MAX_EVENT_BYTES } from "../Envelope.ts"
import { Action } from "../Trajectory.ts"
import { samples } from "./samples.ts"

const sampleOf = (type: string): CoreEvent | undefined => (samples as Record<string, CoreEvent>)[type]

describe("catalog", () => {
  test("every definition has a sample, and every sample a definition", () => {
    const missing = definitions.map((d) => d.type).filter((t) => sampleOf(t) === undefined)
    expect(missing).toEqual([])
    const orphans = Object.keys(samples).filter((t) => !definitions.some((d) => d.type === t))
    expect(orphans).toEqual([])
  })

  test("only current versions are listed, each type once", () => {
    const types = definitions.map((d) => d.type)
    expect(new Set(types).size).toBe(types.length)
    for (const d of definitions) expect(catalog.current.get(d.type)).toBe(d)
  })

  for (const definition of definitions) {
    test(`${definition.type} v${definition.version} round-trips through JSON`, () => {
      const event = sampleOf(definition.type)!
      expect(event.version).toBe(definition.version)
      const encoded = Result.getOrThrow(catalog.encode(event))
      expect(encoded.bytes).toBeLessThanOrEqual(MAX_EVENT_BYTES)
      expect(JSON.parse(encoded.json)).toEqual(JSON.parse(JSON.stringify(event)))
      const decoded = Result.getOrThrow(catalog.decodeJson(encoded.json))
      expect(decoded).toEqual(event)
      // And once more: decoding must not add or drop anything that a second encode would see.
      expect(Result.getOrThrow(catalog.encode(decoded)).json).toBe(encoded.json)
    })
  }

  test("the samples use every action kind, so each one is round-tripped", () => {
    const used = new Set<string>()
    const trajectory = samples.TrajectoryRecorded.data
    for (const s of trajectory.steps) used.add(s.action.kind)
    for (const s of samples.DemoIngested.data.steps) used.add(s.action.kind)
    expect([...used].sort()).toEqual([...Action.discriminants].sort())
  })

  test("encode refuses data that does not match its schema, in one line", () => {
    const bad = { ...samples.JobQueued, data: { ...samples.JobQueued.data, round: 1.5 } }
    const r = catalog.encode(bad)
    expect(Result.isFailure(r)).toBe(true)
    if (Result.isFailure(r)) {
      expect(r.failure._tag).toBe("InvalidEvent")
      expect(r.failure.message).not.toContain("\n")
    }
  })

  test("a non-hex blob hash is refused", () => {
    const step = samples.DemoIngested.data.steps[0]!
    const bad = {
      ...samples.DemoIngested,
      data: { ...samples.DemoIngested.data, steps: [{ ...step, observation: { ...step.observation, screenshot: "NOT-A-HASH" } }] }
    }
    expect(Result.isFailure(catalog.encode(bad))).toBe(true)
  })
})
