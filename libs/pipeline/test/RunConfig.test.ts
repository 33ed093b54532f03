/**
 * A run's config as its RunStarted records it and its deciders read it back (by a resume,
 * a replay, an evaluation): new runs record every key under the schema and read back the
 * same config; runs logged before the schema read back exactly as they always did — the
 * reading of that time is kept below, verbatim, as the reference.
 */
import { describe, expect, test } from "bun:test"
import { SYNTHESIS, versionOf } from "@core/domain"
import { demoCount, encodeRunConfig, RUN_CONFIG_VERSION_KEY, runConfigOf } from "../RunConfig.ts"
import type { RunConfig } from "../RunConfig.ts"

describe("run.platform read back from RunStarted", () => {
  test("given each platform a run records, when its config is read, then the same platform comes back", () => {
    for (const platform of ["web", "mobile-web", "android"] as const)
      expect(runConfigOf({ "run.platform": platform }).platform).toBe(platform)
  })

  test("given a run logged without the key, or with a value no platform has, when its config is read, then it played on the web", () => {
    expect(runConfigOf({}).platform).toBe("web")
    expect(runConfigOf({ "run.platform": "ios" }).platform).toBe("web")
  })
})

/** How runs logged before the schema were read (RunState's and label inference's readers), kept as they were. */
const legacy = (config: Readonly<Record<string, unknown>>) => {
  const int = (v: unknown, fallback: number): number => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : fallback)
  const num = (v: unknown, fallback: number): number => (typeof v === "number" && Number.isFinite(v) ? v : fallback)
  const strings = (v: unknown): ReadonlyArray<string> => (Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : [])
  const model = config["models.model"]
  const guide = config["infer.lfGuide"]
  const inferModel = config["models.baseUrl"] ? config["models.model"] : null
  return {
    tasks: strings(config["run.tasks"]),
    rounds: int(config["run.rounds"], 1),
    samples: int(config["run.samples"], 5),
    stepBudget: int(config["run.stepBudget"], 12),
    policy:
      config["run.policy"] === "model" && typeof model === "string"
        ? { kind: "model", model, temperature: num(config["run.temperature"], 1), topP: num(config["run.topP"], 1) }
        : config["run.policy"] === "embedded"
          ? { kind: "embedded" }
          : { kind: "exploration" },
    expandPerTask: int(config["run.expandPerTask"], 2),
    explorePerTask: int(config["run.explorePerTask"], 3),
    extrapolatePerTask: int(config["run.extrapolatePerTask"], 1),
    extrapolatedSamples: int(config["run.extrapolatedSamples"], 2),
    heldOut: strings(config["run.heldOut"]),
    platform: config["run.platform"] === "mobile-web" || config["run.platform"] === "android" ? config["run.platform"] : "web",
    hashRouting: config["app.hashRouting"] === true,
    synthesis: versionOf(SYNTHESIS, config["infer.synthesis"]),
    lfGuide: typeof guide === "string" ? guide : "1",
    model: config["models.baseUrl"] && typeof model === "string" ? model : null,
    inferModel: typeof inferModel === "string" ? inferModel : null,
    inferDemos: (demos: ReadonlyMap<string, unknown>) => {
      const wanted = config["infer.demos"]
      if (wanted === "all") return demos.size
      return Array.isArray(wanted) ? wanted.filter((d) => typeof d === "string" && demos.has(d)).length : 0
    },
    chosen: (ids: ReadonlyArray<string>) => {
      const wanted = config["infer.demos"]
      if (wanted === "all") return ids
      return Array.isArray(wanted) ? ids.filter((id) => wanted.includes(id)) : []
    }
  }
}

const DEMOS = new Map([
  ["d1", 1],
  ["d2", 2],
  ["d3", 3]
])

/** The upcast config against the reference reading, field by field. */
const expectSameReading = (config: Readonly<Record<string, unknown>>) => {
  const old = legacy(config)
  const now = runConfigOf(config)
  const { inferDemos, inferModel, chosen, ...fields } = old
  expect({
    ...now,
    demos: undefined,
    dataRules: undefined,
    exploration: undefined,
    retrieval: undefined,
    learner: undefined
  } as unknown).toEqual({
    ...fields,
    demos: undefined
  })
  // Runs logged before the data rules had a version decided by the first ones.
  expect(now.dataRules).toBe("1")
  expect(now.exploration).toBe("1")
  // …and their embedded policy copied recorded answers (retrieval version 1: no version on the policy either).
  expect(now.retrieval).toBe("1")
  // …and no run trained the learner before its version was recorded: version 1, as the learned runs before the key.
  expect(now.learner).toBe("1")
  expect(demoCount(now, DEMOS)).toBe(inferDemos(DEMOS))
  expect(
    now.demos === "all" ? [...DEMOS.keys()] : [...DEMOS.keys()].filter((d) => (now.demos as ReadonlyArray<string>).includes(d))
  ).toEqual([...chosen([...DEMOS.keys()])])
  // Label inference reads its model the same way.
  expect(now.model).toBe(inferModel)
}

/** Values each key took, or might have: valid, malformed and absent. */
const POOL: Readonly<Record<string, ReadonlyArray<unknown>>> = {
  "run.tasks": [["t1", "t2"], [], ["t1", 7, null], "t1", null],
  "run.rounds": [0, 2, 3, -1, 1.5, "2", 2 ** 60, Number.NaN],
  "run.samples": [1, 5, 0, -3, 2.5, "5", null],
  "run.stepBudget": [12, 30, 0, -1, 1e21, "12"],
  "run.policy": ["exploration", "embedded", "model", "random", 1],
  "run.temperature": [0.7, 0, -1, Number.POSITIVE_INFINITY, "0.7"],
  "run.topP": [0.9, 1, Number.NaN, null],
  "run.expandPerTask": [0, 2, 4, -2, 0.5],
  "run.explorePerTask": [0, 1, 3, 9, "3"],
  "run.extrapolatePerTask": [0, 1, 2, -1],
  "run.extrapolatedSamples": [0, 1, 2, 2.2],
  "run.heldOut": [["h1"], [], ["h1", 2], {}],
  "run.platform": ["web", "mobile-web", "android", "ios", null],
  "app.hashRouting": [true, false, "true", 1, null],
  "infer.synthesis": ["1", "2", "3", "4", "5", 2, null],
  "infer.lfGuide": ["1", "2", 2, null],
  "infer.demos": ["all", ["d1", "d3"], ["d1", "d1", "x"], ["d2", 5], "d1", null, "ALL"],
  "models.model": ["gpt", "", null, 3],
  "models.baseUrl": ["http://127.0.0.1:8000/v1", "", null, 1]
}

describe("a run logged before the schema, upcast", () => {
  test("given the replay fixture's config, when it is read, then it reads as it always did", () => {
    expectSameReading({
      seed: "replay-fixture",
      "models.baseUrl": null,
      "models.model": null,
      "models.apiKeyEnv": "CORE_MODEL_API_KEY",
      "run.tasks": ["forum-open-board-1", "forum-upvote-1"],
      "run.rounds": 1,
      "run.samples": 2,
      "run.stepBudget": 12,
      "run.policy": "exploration",
      "run.heldOut": ["forum-open-board-3"],
      "run.platform": "web",
      "infer.lfGuide": "2",
      "infer.synthesis": "2",
      "infer.demos": ["forum-open-board-1-script"]
    })
  })

  test("given runs without the newer keys, when read, then they played on the web, without fragment routing, with synthesizer and guide 1", () => {
    const c = runConfigOf({ "run.tasks": ["t"] })
    expect([c.platform, c.hashRouting, c.synthesis, c.lfGuide]).toEqual(["web", false, "1", "1"])
  })

  test("given the model policy without a model's name, when read, then it is the exploration policy, as before", () => {
    expect(runConfigOf({ "run.policy": "model", "models.baseUrl": "http://m" }).policy).toEqual({ kind: "exploration" })
    expect(runConfigOf({ "run.policy": "model", "models.model": "m" }).policy).toEqual({
      kind: "model",
      model: "m",
      temperature: 1,
      topP: 1
    })
  })

  test("given 2000 configs of valid, malformed and missing values, when read, then each reads as the reference reads it", () => {
    let state = 0x9e3779b9
    const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32
    for (let i = 0; i < 2000; i++) {
      const config: Record<string, unknown> = { seed: "s" }
      for (const [key, values] of Object.entries(POOL)) {
        const k = Math.floor(next() * (values.length + 1))
        if (k < values.length) config[key] = values[k]
      }
      expectSameReading(config)
    }
  })
})

describe("a new run's config", () => {
  const config: RunConfig = {
    tasks: ["t1", "t2"],
    rounds: 2,
    samples: 3,
    stepBudget: 9,
    policy: { kind: "model", model: "m", temperature: 0.5, topP: 0.9 },
    expandPerTask: 0,
    explorePerTask: 1,
    extrapolatePerTask: 0,
    extrapolatedSamples: 1,
    heldOut: ["h"],
    platform: "mobile-web",
    hashRouting: true,
    synthesis: "2",
    lfGuide: "2",
    dataRules: "2",
    exploration: "2",
    retrieval: "2",
    learner: "1",
    model: "m",
    demos: ["d1"]
  }

  test("given a config, when recorded beside the loaded config and read back, then it is the same config", () => {
    const recorded: Record<string, unknown> = { seed: "s", "models.model": "m", "models.baseUrl": "http://m", ...encodeRunConfig(config) }
    expect(recorded[RUN_CONFIG_VERSION_KEY]).toBe(2)
    expect(recorded["run.platform"]).toBe("mobile-web")
    expect(runConfigOf(recorded)).toEqual(config)
  })

  test("given an embedded run, when read back, then its policy carries the retrieval version it recorded; without the key, version 1", () => {
    const embedded: RunConfig = { ...config, policy: { kind: "embedded" }, model: null }
    const recorded = encodeRunConfig(embedded)
    expect(recorded["run.retrieval"]).toBe("2")
    // the rollouts are handed the policy: version 2 rides on it
    expect(runConfigOf(recorded).policy).toEqual({ kind: "embedded", retrieval: "2" })
    const { "run.retrieval": _, ...before } = recorded
    expect(runConfigOf(before)).toMatchObject({ retrieval: "1", policy: { kind: "embedded" } })
    expect(runConfigOf(before).policy).toEqual({ kind: "embedded" })
  })

  test("given a recorded value that does not fit, when read, then it is an error, not a default", () => {
    expect(() => runConfigOf({ ...encodeRunConfig(config), "run.samples": -1 })).toThrow()
    expect(() => runConfigOf({ ...encodeRunConfig(config), "run.platform": "ios" })).toThrow()
    expect(() => runConfigOf({ ...encodeRunConfig(config), "run.policyModel": null })).toThrow()
  })
})
