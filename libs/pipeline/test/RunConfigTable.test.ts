/**
 * RunConfig.ts derives its defaults, keys, schemas and their reading and writing from one
 * table of fields. Recorded runs must not notice: over the repo's recorded RunStarted, the
 * spec suite's run configs and a seeded spread of old records, new records and configs, the
 * table records the same bytes and reads the same values as the functions it replaced
 * (RunConfigReference.ts, frozen).
 */
import { Database } from "bun:sqlite"
import { describe, expect, test } from "bun:test"
import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  encodeRunConfig,
  RUN_CONFIG_KEYS,
  RUN_CONFIG_VERSION,
  RUN_CONFIG_VERSION_KEY,
  RUN_DEFAULTS,
  RUN_FIELDS,
  runConfigOf,
  upcastRunConfig
} from "../RunConfig.ts"
import type { RunConfig } from "../RunConfig.ts"
import {
  REFERENCE_RUN_CONFIG_KEYS,
  REFERENCE_RUN_DEFAULTS,
  referenceEncode,
  referenceRunConfigOf,
  referenceUpcast
} from "./RunConfigReference.ts"
import type { ReferenceRunConfig } from "./RunConfigReference.ts"
import { runConfig } from "./specs/Events.ts"
import type { RunOptions } from "./specs/Events.ts"

/** The RunStarted configs the replay fixture recorded (runs from before the schema). */
const fixtureConfigs = (): ReadonlyArray<Record<string, unknown>> => {
  // From a copy: opening the fixture itself would leave its journal files beside it.
  const dir = mkdtempSync(join(tmpdir(), "core-run-config-"))
  const copy = join(dir, "events.db")
  copyFileSync(new URL("../../../tests/fixtures/replay-run/events.db", import.meta.url), copy)
  const db = new Database(copy, { readonly: true })
  try {
    const bodies = db.query("SELECT body FROM commits WHERE body LIKE '%\"RunStarted\"%'").all() as ReadonlyArray<{ body: string }>
    return bodies.flatMap((b) =>
      (JSON.parse(b.body) as { events: ReadonlyArray<{ type: string; data: { config: Record<string, unknown> } }> }).events
        .filter((e) => e.type === "RunStarted")
        .map((e) => e.data.config)
    )
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Byte for byte, key order included: what a RunStarted would carry. */
const bytes = (v: unknown) => JSON.stringify(v)

/** Either what it returns, or that it threw and with what message. */
const outcome = (f: () => unknown): string => {
  try {
    return bytes(f())
  } catch (e) {
    return `threw: ${e instanceof Error ? e.message : String(e)}`
  }
}

/**
 * The table's reading, its refusals worded as the reference words them: a policy name that
 * is none is refused as before, but the list of names the refusal gives now ends with the
 * learned policy, the data rules' list with the versions from 8 on, the synthesis list with those from 8 on and the exploration list with those from 14 on, which the reference predates.
 */
const tableOutcome = (f: () => unknown): string =>
  outcome(() => withoutLater(f()))
    .replace('| "model" | "learned"', '| "model"')
    .replace(/\| "7"(?: \| "\d+")+(\s+at \["run\.dataRules"\])/, '| "7"$1')
    .replace(/\| "7"(?: \| "\d+")+(\s+at \["infer\.synthesis"\])/, '| "7"$1')
    .replace(/\| "13"(?: \| "\d+")+(\s+at \["run\.exploration"\])/, '| "13"$1')

/** RunConfig fields that came after the reference and are recorded only when set: at their default, what the reference read. */
const LATER = Object.values(RUN_FIELDS).flatMap((f) => ("onlyWhenSet" in f && !("ofPolicy" in f) ? [f] : []))
const OWN_LATER = Object.entries(RUN_FIELDS).flatMap(([n, f]) =>
  LATER.includes(f as (typeof LATER)[number]) ? [[n, f.default] as const] : []
)
const withoutLater = (v: unknown): unknown => {
  if (typeof v !== "object" || v === null || !("policy" in v)) return v
  const out: Record<string, unknown> = { ...(v as Record<string, unknown>) }
  for (const [n, fallback] of OWN_LATER) if (out[n] === fallback) delete out[n]
  return out
}

/** The table and the reference agree on a recorded config: its upcast, its reading, and what re-recording it writes. */
const expectSameAsReference = (config: Readonly<Record<string, unknown>>) => {
  expect(bytes(upcastRunConfig(config))).toBe(bytes(referenceUpcast(config)))
  expect(tableOutcome(() => runConfigOf(config))).toBe(outcome(() => referenceRunConfigOf(config)))
  expect(tableOutcome(() => encodeRunConfig(runConfigOf(config)))).toBe(
    outcome(() => referenceEncode(referenceRunConfigOf(config) as ReferenceRunConfig))
  )
}

const seeded = (seed: number) => {
  let state = seed >>> 0
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(next() * xs.length)]!
  return { next, pick }
}

/** Values each key took, or might have: valid, malformed and absent (and the loaded config's model keys). */
const POOL: Readonly<Record<string, ReadonlyArray<unknown>>> = {
  "run.tasks": [["t1", "t2"], [], ["t1", 7, null], "t1", null],
  "run.rounds": [0, 2, 3, -1, 1.5, "2", 2 ** 60, Number.NaN],
  "run.samples": [1, 5, 0, -3, 2.5, "5", null],
  "run.stepBudget": [12, 30, 0, -1, 1e21, "12"],
  "run.policy": ["exploration", "embedded", "model", "random", 1],
  "run.policyModel": ["m", null, 3],
  "run.temperature": [0.7, 0, -1, Number.POSITIVE_INFINITY, "0.7"],
  "run.topP": [0.9, 1, Number.NaN, null],
  "run.expandPerTask": [0, 2, 4, -2, 0.5],
  "run.explorePerTask": [0, 1, 3, 9, "3"],
  "run.extrapolatePerTask": [0, 1, 2, -1],
  "run.extrapolatedSamples": [0, 1, 2, 2.2],
  "run.heldOut": [["h1"], [], ["h1", 2], {}],
  "run.platform": ["web", "mobile-web", "android", "ios", null],
  "app.hashRouting": [true, false, "true", 1, null],
  "infer.synthesis": ["1", "2", "3", "7", "99", 2, null],
  "infer.lfGuide": ["1", "2", 2, null],
  // Past the reference's last version (8 came after it): invalid to both.
  "run.dataRules": ["1", "4", "7", "99", 7],
  // Past the reference's last version (14 came after it): invalid to both.
  "run.exploration": ["1", "5", "13", "99", 3],
  "run.retrieval": ["1", "2", "3", 2],
  "run.model": ["m", null, 1],
  "infer.demos": ["all", ["d1", "d3"], ["d1", "d1", "x"], ["d2", 5], "d1", null, "ALL"],
  "models.model": ["gpt", "", null, 3],
  "models.baseUrl": ["http://127.0.0.1:8000/v1", "", null, 1]
}

/** A valid RunConfig with every kind of policy the reference knows and each version a record may hold. */
const someConfig = (r: ReturnType<typeof seeded>): ReferenceRunConfig & Pick<RunConfig, "learner"> => {
  const count = () => r.pick([0, 1, 2, 3, 5, 12, 40])
  const names = (prefix: string) => Array.from({ length: r.pick([0, 1, 3]) }, (_, i) => `${prefix}${i}`)
  return {
    tasks: names("t"),
    rounds: count(),
    samples: count(),
    stepBudget: count(),
    policy: r.pick<ReferenceRunConfig["policy"]>([
      { kind: "exploration" },
      { kind: "embedded" },
      { kind: "embedded", retrieval: "2" },
      { kind: "model", model: "m", temperature: 0.5, topP: 0.9 },
      { kind: "model", model: "", temperature: 1, topP: 1 }
    ]),
    expandPerTask: count(),
    explorePerTask: count(),
    extrapolatePerTask: count(),
    extrapolatedSamples: count(),
    heldOut: names("h"),
    platform: r.pick(["web", "mobile-web", "android"] as const),
    hashRouting: r.next() < 0.5,
    synthesis: r.pick(["1", "2", "7"] as const),
    lfGuide: r.pick(["1", "2", "x"]),
    dataRules: r.pick(["1", "5", "7"] as const),
    exploration: r.pick(["1", "9", "13"] as const),
    retrieval: r.pick(["1", "2"] as const),
    model: r.pick(["m", null]),
    demos: r.pick<RunConfig["demos"]>(["all", [], ["d1", "d2"]]),
    // The learner's version came after the reference: at its default, recorded as the reference records.
    learner: "1"
  }
}

describe("the recorded RunStarted configs", () => {
  test("given the replay fixture's RunStarted, when upcast, read and recorded again, then the table does what the reference did", () => {
    const configs = fixtureConfigs()
    expect(configs.length).toBeGreaterThan(0)
    for (const config of configs) expectSameAsReference(config)
  })

  test("given the spec suite's run configs, when read and recorded again, then the table does what the reference did", () => {
    const options: ReadonlyArray<RunOptions> = [
      {},
      { tasks: ["t"], demos: "all" },
      { tasks: ["t1", "t2"], rounds: 2, samples: 1, stepBudget: 4, explorePerTask: 0, demos: ["d"] },
      { policy: "model", model: "m", stepBudget: 6, exploration: "5" },
      { policy: "embedded", dataRules: "7", platform: "mobile-web", hashRouting: true },
      { policy: "model", synthesis: "3", lfGuide: "2", heldOut: ["h"], extrapolatePerTask: 0, extrapolatedSamples: 1 }
    ]
    for (const o of options) expectSameAsReference(runConfig(o))
  })
})

describe("a seeded spread of configs", () => {
  test("given 3000 old records of valid, malformed and missing values, when upcast and read, then as the reference", () => {
    const r = seeded(0x2545f491)
    for (let i = 0; i < 3000; i++) {
      const config: Record<string, unknown> = { seed: "s" }
      for (const [key, values] of Object.entries(POOL)) if (r.next() < 0.7) config[key] = r.pick(values)
      expectSameAsReference(config)
    }
  })

  test("given 2000 valid configs, when recorded, then the same bytes as the reference, read back the same", () => {
    const r = seeded(0x9e3779b9)
    for (let i = 0; i < 2000; i++) {
      const config = someConfig(r)
      const recorded = encodeRunConfig(config)
      expect(bytes(recorded)).toBe(bytes(referenceEncode(config)))
      expect(recorded[RUN_CONFIG_VERSION_KEY]).toBe(2)
      expectSameAsReference({ seed: "s", ...recorded })
    }
  })

  test("given 3000 version-2 records with a key changed or left out, when read, then the same value or the same refusal", () => {
    const r = seeded(0x85ebca6b)
    const keys = Object.keys(POOL).filter((k) => !k.startsWith("models."))
    for (let i = 0; i < 3000; i++) {
      const record: Record<string, unknown> = { ...encodeRunConfig(someConfig(r)) }
      for (const key of keys)
        if (r.next() < 0.15) delete record[key]
        else if (r.next() < 0.1) record[key] = r.pick(POOL[key]!)
      if (r.next() < 0.05) record[RUN_CONFIG_VERSION_KEY] = r.pick([1, 3, "2"])
      expectSameAsReference(record)
    }
  })
})

describe("the table's derived constants", () => {
  test("given the table, when its keys and defaults are derived, then they are the reference's, in its order", () => {
    expect(RUN_CONFIG_VERSION).toBe(2)
    // A key recorded only when set came after the reference (the trainer's, below).
    const always = Object.entries(RUN_CONFIG_KEYS).filter(([n]) => !("onlyWhenSet" in RUN_FIELDS[n as keyof typeof RUN_FIELDS]))
    expect(bytes(Object.fromEntries(always))).toBe(bytes(REFERENCE_RUN_CONFIG_KEYS))
    expect(RUN_DEFAULTS).toMatchObject(REFERENCE_RUN_DEFAULTS)
    // The keys the reference gave no default read as nothing: no tasks, demos or model.
    expect([RUN_DEFAULTS.tasks, RUN_DEFAULTS.heldOut, RUN_DEFAULTS.demos, RUN_DEFAULTS.policyModel, RUN_DEFAULTS.model]).toEqual([
      [],
      [],
      [],
      null,
      null
    ])
  })

  test("given the fields with a flag, when listed, then each flag names one field", () => {
    const flags = Object.values(RUN_FIELDS).flatMap((f) => ("flag" in f && f.flag !== undefined ? [f.flag.name] : []))
    expect(new Set(flags).size).toBe(flags.length)
  })
})

/**
 * The learned policy came after the frozen reference, which cannot name it: a record of it
 * is held to the reference's reading of the same record with `run.policy` "exploration" —
 * the learned kind changes that key and the policy read from it, nothing else.
 */
describe("the learned policy, which the reference predates", () => {
  const exploring = (record: Readonly<Record<string, unknown>>) => ({ ...record, "run.policy": "exploration" })
  const learning = (config: ReferenceRunConfig) => ({ ...config, policy: { kind: "learned" } })

  test("given old records naming it, when upcast and read, then as the reference reads them: exploration, as any unknown name", () => {
    const r = seeded(0x27d4eb2f)
    for (let i = 0; i < 1000; i++) {
      const config: Record<string, unknown> = { seed: "s", "run.policy": "learned" }
      for (const [key, values] of Object.entries(POOL)) if (key !== "run.policy" && r.next() < 0.7) config[key] = r.pick(values)
      expectSameAsReference(config)
      const read = outcome(() => runConfigOf(config).policy)
      if (!read.startsWith("threw")) expect(read).toBe(bytes({ kind: "exploration" }))
    }
  })

  test("given 1000 learned configs, when recorded, then the reference's bytes for the same config exploring, but run.policy; read back the same", () => {
    const r = seeded(0x165667b1)
    for (let i = 0; i < 1000; i++) {
      const base = someConfig(r)
      const config: RunConfig = { ...base, policy: { kind: "learned" } }
      const recorded = encodeRunConfig(config)
      const reference = referenceEncode({ ...base, policy: { kind: "exploration" } })
      expect(bytes(recorded)).toBe(bytes({ ...reference, "run.policy": "learned" }))
      expect(runConfigOf({ seed: "s", ...recorded })).toEqual(config)
    }
  })

  test("given 1000 version-2 learned records with another key changed or left out, when read, then as the reference reads them exploring", () => {
    const r = seeded(0xd3a2646c)
    const keys = Object.keys(POOL).filter((k) => !k.startsWith("models.") && k !== "run.policy")
    for (let i = 0; i < 1000; i++) {
      const record: Record<string, unknown> = { ...encodeRunConfig({ ...someConfig(r), policy: { kind: "learned" } }) }
      for (const key of keys)
        if (r.next() < 0.15) delete record[key]
        else if (r.next() < 0.1) record[key] = r.pick(POOL[key]!)
      const reference = outcome(() => referenceRunConfigOf(exploring(record)))
      expect(tableOutcome(() => runConfigOf(exploring(record)))).toBe(reference)
      // Refused for the same reason, or read the same but for its policy.
      const expected = reference.startsWith("threw") ? reference : bytes(learning(JSON.parse(reference)))
      expect(tableOutcome(() => runConfigOf(record))).toBe(expected)
    }
  })
})

/**
 * `run.trainer` came after the reference too, and is recorded only when set: every config
 * without a trainer records the reference's bytes (the spreads above), and a learned one
 * with a trainer records the learned policy's bytes plus that one key.
 */
describe("the trainer a learned policy takes its versions from, which the reference predates", () => {
  test("given 500 learned configs with a trainer, when recorded, then the learned bytes and run.trainer; read back the same", () => {
    const r = seeded(0x7a3b1c09)
    for (let i = 0; i < 500; i++) {
      const trainer = r.pick(["nightly", "t-1", "A_b"] as const)
      const config: RunConfig = { ...someConfig(r), policy: { kind: "learned", trainer } }
      const recorded = encodeRunConfig(config)
      const { "run.trainer": key, ...rest } = recorded
      expect(key).toBe(trainer)
      expect(bytes(rest)).toBe(bytes(encodeRunConfig({ ...config, policy: { kind: "learned" } })))
      expect(runConfigOf({ seed: "s", ...recorded })).toEqual(config)
    }
  })

  test("given a record whose trainer is not a name, when read, then it is refused; another policy's record ignores the key", () => {
    const learned = encodeRunConfig({ ...someConfig(seeded(3)), policy: { kind: "learned" } })
    expect(outcome(() => runConfigOf({ ...learned, "run.trainer": "../x" }))).toStartWith("threw")
    expect(outcome(() => runConfigOf({ ...learned, "run.trainer": 7 }))).toStartWith("threw")
    const exploring = encodeRunConfig({ ...someConfig(seeded(3)), policy: { kind: "exploration" } })
    expect(runConfigOf({ ...exploring, "run.trainer": "nightly" }).policy).toEqual({ kind: "exploration" })
  })
})

describe("the learner's version, which the reference predates", () => {
  test("given learned configs at each learner version, when recorded, then run.learner only when not 1; read back the same", () => {
    const r = seeded(0x2545f491)
    for (let i = 0; i < 300; i++) {
      const learner = r.pick(["1", "2"] as const)
      const config: RunConfig = { ...someConfig(r), policy: { kind: "learned" }, learner }
      const recorded = encodeRunConfig(config)
      expect(recorded["run.learner"]).toBe(learner === "1" ? undefined : learner)
      expect(runConfigOf({ seed: "s", ...recorded })).toEqual(config)
    }
  })

  test("given a record whose learner version is not one, when read, then it is refused", () => {
    const learned = encodeRunConfig({ ...someConfig(seeded(5)), policy: { kind: "learned" }, learner: "2" })
    expect(outcome(() => runConfigOf({ ...learned, "run.learner": "9" }))).toStartWith("threw")
    const { "run.learner": _, ...before } = learned
    expect(runConfigOf(before).learner).toBe("1")
  })
})
