/**
 * One rollout driven live in a real Chromium over a real blob store, then replayed from
 * its record: given a task whose start page has a few buttons, when the exploration policy
 * acts on it, then the episode becomes one TrajectoryRecorded — and replaying it with the
 * same seed re-derives the same trajectory, also when the browser died mid-episode and
 * the episode was tried again, or never got through (infra-error, never a failure).
 */
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, Layer, Schema } from "effect"
import { makeEvent, runStream, TrajectoryRecorded } from "@core/events"
import type { CoreEvent } from "@core/events"
import { Randomness, recordedObservations } from "@core/engine"
import { chromiumChildren, startRuntime, startSite } from "../../env-web/test/fixtures.ts"
import { liveObservations } from "../LiveObservations.ts"
import type { RolloutInput } from "../Rollout.ts"
import { sitePath } from "@core/domain"
import { explorerIdOf, rejoinAt, rollout, trajectoryIdOf } from "../Rollout.ts"
import type { TrajectoryData } from "../RunState.ts"
import { noModels } from "@core/engine"

const AT = "2026-12-02T12:00:00.000Z"
const SEED = "0123456789abcdef0123456789abcdef"
const RUN = "rollout-test"
const TIMEOUT = 180_000

const site = startSite()
afterAll(() => site.stop())

const noChromiumLeft = async () => {
  for (let i = 0; i < 50 && chromiumChildren().length > 0; i++) await Bun.sleep(100)
  expect(chromiumChildren()).toEqual([])
}

/** Kills the browser's whole process group, as a crash or the OOM killer would. */
const killBrowser = () => {
  const [browser] = chromiumChildren()
  if (browser === undefined) throw new Error("no Chromium to kill")
  process.kill(-browser, "SIGKILL")
}

const inputOf = (taskId: string, more: Partial<RolloutInput> = {}): RolloutInput => ({
  causationId: `${RUN}-cause`,
  trajectoryId: trajectoryIdOf(1, taskId, 0),
  taskId,
  instruction: "Press the 'Press me' button.",
  round: 1,
  sample: 0,
  stepBudget: 4,
  policy: { kind: "exploration" },
  ...more
})

type Runtime = ReturnType<typeof startRuntime>

/** The rollout live: one WebEnvironment in the pool, the task's start page on the fixture site. */
const live = (rt: Runtime, input: RolloutInput, onStep?: (trajectoryId: string, step: number) => void, startPath = "/form") =>
  rt.withEnv({ screenshots: "key", settleMs: 500 }, (env) =>
    rollout(input).pipe(
      Effect.provide(
        Layer.mergeAll(
          liveObservations({
            environments: [env],
            // As a pack's tasks do: the episode records its pages the way the run tells them apart.
            taskOf: (taskId) =>
              taskId === input.taskId
                ? { taskId, startUrl: site.url(startPath), ...(input.hashRouting === true ? { hashRouting: true } : {}) }
                : undefined,
            ...(onStep === undefined ? {} : { onStep })
          }),
          Randomness.layer(SEED),
          noModels
        )
      )
    )
  )

/** The trajectory as the log holds it: an event, through JSON and its schema. */
const recorded = (data: TrajectoryData): CoreEvent => {
  const event = makeEvent(TrajectoryRecorded, {
    stream: runStream(RUN, "trajectory", data.trajectoryId),
    runId: RUN,
    causationId: `${RUN}-cause`,
    ordinal: 0,
    recordedAt: AT,
    data
  })
  return Schema.decodeUnknownSync(TrajectoryRecorded.schema)(JSON.parse(JSON.stringify(event)))
}

/** The same rollout served from the log: no browser, the same seed. */
const replay = (rt: Runtime, input: RolloutInput, events: ReadonlyArray<CoreEvent>, seed = SEED) =>
  rt.runtime.runPromise(rollout(input).pipe(Effect.provide(Layer.mergeAll(recordedObservations(events), Randomness.layer(seed), noModels))))

describe("a rollout, live in Chromium then replayed from its record", () => {
  test(
    "a rollout records every step and replays from its record",
    async () => {
      const rt = startRuntime()
      try {
        const input = inputOf("form-press")
        const data = await live(rt, input)
        expect(data.trajectoryId).toBe("r1-s0-form-press")
        expect(data.policy).toBe("exploration-v1")
        expect(["completed", "budget-exhausted"]).toContain(data.outcome)
        expect(data.infraError).toBeNull()
        expect(data.attempts).toBe(1)
        expect(data.steps.length).toBeGreaterThan(0)
        expect(data.steps.length).toBeLessThanOrEqual(input.stepBudget)
        // Recorded without the instance: path and query.
        expect(data.initial.url).toBe("/form")
        expect(data.initial.elements).not.toBeNull()
        for (const s of data.steps) expect(s.observation.elements).not.toBeNull()

        const again = await replay(rt, input, [recorded(data)])
        expect(again).toEqual(data)
        // The check has teeth: other draws ask the log for an action it never recorded.
        const otherSeed = await replay(rt, input, [recorded(data)], "fedcba9876543210fedcba9876543210").then(
          () => null,
          (e: { _tag?: string }) => e._tag
        )
        expect(otherSeed).toBe("ActionMismatch")
      } finally {
        await rt.dispose()
      }
      await noChromiumLeft()
    },
    TIMEOUT
  )

  test(
    "a browser killed mid-episode restarts the episode; the trajectory records 2 attempts and replays",
    async () => {
      const rt = startRuntime()
      try {
        const input = inputOf("form-crash")
        const seen: Array<number> = []
        let killed = false
        const data = await live(rt, input, (_, step) => {
          seen.push(step)
          if (!killed && step === 0) {
            killed = true
            killBrowser()
          }
        })
        expect(killed).toBe(true)
        expect(data.attempts).toBe(2)
        expect(data.outcome).not.toBe("infra-error")
        expect(["completed", "budget-exhausted"]).toContain(data.outcome)
        expect(data.infraError).toBeNull()
        expect(data.steps.length).toBeGreaterThan(0)
        expect(data.steps.length).toBeLessThanOrEqual(input.stepBudget)
        // Attempt 0 got through step 0 only; attempt 1 started over from step 0.
        expect(seen.slice(0, 2)).toEqual([0, 0])
        expect(seen.length).toBe(1 + data.steps.length)

        const again = await replay(rt, input, [recorded(data)])
        expect(again).toEqual(data)
      } finally {
        await rt.dispose()
      }
      await noChromiumLeft()
    },
    TIMEOUT
  )

  test(
    "an environment that fails on every attempt gives an infra-error trajectory, never a failure",
    async () => {
      const rt = startRuntime()
      try {
        const input = inputOf("form-broken", { maxAttempts: 2 })
        let kills = 0
        const data = await live(rt, input, (_, step) => {
          if (step === 0) {
            kills++
            killBrowser()
          }
        })
        expect(kills).toBe(2)
        expect(data.outcome).toBe("infra-error")
        expect(data.steps).toEqual([])
        expect(data.attempts).toBe(2)
        expect(typeof data.infraError).toBe("string")
        expect(data.infraError!.length).toBeGreaterThan(0)
        expect(data.infraError).not.toContain("\n")
        expect(data.initial.error).toBe(data.infraError)

        const again = await replay(rt, input, [recorded(data)])
        expect(again).toEqual(data)
      } finally {
        await rt.dispose()
      }
      await noChromiumLeft()
    },
    TIMEOUT
  )

  // The demo went next → Form (via home) → Press me → complete; the explorer starts on "next"
  // barred from nothing: its only way on is the one link, "Back home", which reaches home.
  // On a hash-routed app the same pages are fragments, told apart as the run's demos are.
  const rejoinCases = [
    {
      name: "an explorer's detour that reaches a page the demo acted on later rejoins the demo there and ends with its steps",
      base: "",
      hashRouting: false
    },
    {
      name: "on a hash-routed app the explorer tells pages apart by their fragment, as the run's demos do, and rejoins",
      base: "/spa#",
      hashRouting: true
    }
  ]
  for (const c of rejoinCases) {
    test(
      c.name,
      async () => {
        const rt = startRuntime()
        try {
          const click = (role: string, name: string) => ({ kind: "click" as const, target: { role, name, elementId: null, text: null } })
          const page = (p: string) => `${c.base}${p}`
          const rejoin = [
            { urlBefore: page("/next"), action: click("link", "Back home") },
            { urlBefore: page("/"), action: click("link", "Form") },
            { urlBefore: page("/form"), action: click("button", "Press me") },
            { urlBefore: page("/form"), action: { kind: "status" as const, status: "complete" as const } }
          ]
          const taskId = c.hashRouting ? "spa-explore" : "next-explore"
          const input = inputOf(taskId, {
            trajectoryId: explorerIdOf(1, taskId, 0),
            stepBudget: 3,
            purpose: "explore",
            rejoin,
            stopBias: 0,
            hashRouting: c.hashRouting
          })
          const data = await live(rt, input, undefined, page("/next"))
          const acted = data.steps.map((s) => (s.action.kind === "click" ? `click ${s.action.target?.name}` : s.action.kind))
          expect(acted).toEqual(["click Back home", "click Form", "click Press me", "status"])
          expect(data.outcome).toBe("completed")
          expect(data.steps.map((s) => sitePath(s.observation.url, c.hashRouting))).toEqual(["/", "/form", "/form", "/form"].map(page))
          expect(await replay(rt, input, [recorded(data)])).toEqual(data)
        } finally {
          await rt.dispose()
        }
        await noChromiumLeft()
      },
      TIMEOUT
    )
  }
})

describe("where an explorer rejoins", () => {
  const demo = [{ urlBefore: "/" }, { urlBefore: "/search?q=x" }, { urlBefore: "/item/1" }, { urlBefore: "/item/1" }]
  test("at the first later step taken on the page it reached, never at the step it was barred from", () => {
    expect(rejoinAt(demo, "/", "/item/1")).toBe(2)
    expect(rejoinAt(demo, "/", "/search?q=x")).toBe(1)
    expect(rejoinAt([{ urlBefore: "/item/1" }, { urlBefore: "/item/1" }], "/", "/item/1")).toBe(1)
  })
  test("nowhere from the page it started on, nor from a page the demo never acted on", () => {
    expect(rejoinAt(demo, "/item/1", "/item/1")).toBe(-1)
    expect(rejoinAt(demo, "/", "/cart")).toBe(-1)
    expect(rejoinAt(demo, "/", null)).toBe(-1)
  })
  test("pages compare as the demos record them: path and query, no origin", () => {
    expect(sitePath("http://127.0.0.1:8123/shop/search?q=red")).toBe("/shop/search?q=red")
    expect(sitePath("/shop/")).toBe("/shop/")
    expect(sitePath(null)).toBeNull()
  })
})
