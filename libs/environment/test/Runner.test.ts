import { describe, expect, test } from "bun:test"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import type { Action } from "@core/events"
import { InfraError } from "../Environment.ts"
import type { EnvironmentShape, FullObservation, ScreenshotPolicy } from "../Environment.ts"
import { button, countingSource, fake, memoryStore, settings, withEnvironment } from "./support.ts"

const task = { taskId: "t1", startUrl: "http://127.0.0.1:1/" }
const click = (id: string): Action => ({ kind: "click", target: { role: "button", name: "Save", elementId: id, text: null } })

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

const failure = <A>(effect: Effect.Effect<A, InfraError>) => Effect.flip(effect)

describe("reset", () => {
  test("given a task, when reset, then the episode is opened, started, settled and observed, with every blob stored", async () => {
    const { adapter, log } = fake()
    const store = memoryStore()
    const first = await run(withEnvironment(adapter, settings(), (env) => env.reset(task), store))
    expect(log).toEqual(["open t1", "start 1", "settle 1", "read 1 with screenshot", "release 1", "quit"])
    expect(first.observation).toMatchObject({ url: task.startUrl, app: null, title: "Fake", truncated: false, error: null })
    for (const hash of [first.observation.elements, first.observation.aria, first.observation.screenshot])
      expect(store.kept.has(hash!)).toBe(true)
    expect(first.view.text).toBe(`[e1] button "Save"\n[e2] button "Cancel"`)
    expect(first).toMatchObject({ done: false, episode: null })
  })

  test("given an episode in progress, when reset again, then the first is released before the next opens", async () => {
    const { adapter, log } = fake()
    await run(withEnvironment(adapter, settings(), (env) => Effect.andThen(env.reset(task), env.reset({ ...task, taskId: "t2" }))))
    expect(log.slice(4, 6)).toEqual(["release 1", "open t2"])
  })

  test("given a start the platform complains about, when reset, then the first observation carries the complaint", async () => {
    const { adapter } = fake()
    const first = await run(withEnvironment(adapter, settings(), (env) => env.reset({ taskId: "t1" })))
    expect(first.observation.error).toBe("the fake platform needs a startUrl")
    expect(first.view.text.split("\n")[0]).toBe("error: the fake platform needs a startUrl")
  })

  test("given a start that fails other than as an InfraError, when reset, then it is classified as a navigation and the episode freed", async () => {
    const { adapter, log } = fake({ start: () => Effect.fail(new Error("net::ERR_CONNECTION_REFUSED")) })
    const first = await run(withEnvironment(adapter, settings(), (env) => env.reset(task)))
    expect(first.observation.error).toBe("navigate failed: net::ERR_CONNECTION_REFUSED")
    const lost = fake({ start: () => Effect.fail(new Error("lost: browser closed")) })
    const error = await run(withEnvironment(lost.adapter, settings(), (env) => failure(env.reset(task))))
    expect(error.reason).toBe("fake lost during navigate: lost: browser closed")
    expect(lost.log).toContain("release 1")
    expect(log).not.toContain("drop")
  })

  test("given a platform that cannot be observed, when reset, then it is an InfraError and the episode is closed", async () => {
    const { adapter, log } = fake({ read: () => Effect.fail(new InfraError({ reason: "cannot observe the page: gone" })) })
    const error = await run(withEnvironment(adapter, settings(), (env) => failure(env.reset(task))))
    expect(error.reason).toBe("cannot observe the page: gone")
    expect(log).toEqual(["open t1", "start 1", "settle 1", "release 1", "quit"])
  })

  test("given a blob store that is down, when reset, then the InfraError says the store, not the platform, failed", async () => {
    const { adapter } = fake()
    const error = await run(withEnvironment(adapter, settings(), (env) => failure(env.reset(task)), memoryStore(true)))
    expect(error.storeUnavailable).toBe(true)
  })
})

describe("site episodes", () => {
  const site = { taskId: "shop-1", site: "shop", siteSeed: 1 }

  test.each([
    ["a source with end", true, false, ["open shop-1-1", "end shop-1-1"]],
    ["a source without end", false, false, ["open shop-1-1", "discard shop-1-1"]],
    ["a source without end, kept", false, true, ["open shop-1-1"]]
  ] as const)(
    "given %s, when the episode closes, then it is handed back as the platform asks",
    async (_, withEnd, keepUnended, expected) => {
      const { adapter, log } = fake()
      const { calls, source } = countingSource(withEnd)
      const first = await run(withEnvironment(adapter, settings({ episodes: source, keepUnended }), (env) => env.reset(site)))
      expect(first.episode).toBe("shop-1-1")
      expect(first.observation.url).toBe("http://127.0.0.1:1/shop")
      expect(log[0]).toBe("open shop-1 shop-1-1")
      expect(calls).toEqual([...expected])
    }
  )

  test("given a platform that cannot open the episode, when reset, then the site episode is discarded", async () => {
    const { adapter } = fake({ open: () => Effect.fail(new InfraError({ reason: "no context" })) })
    const { calls, source } = countingSource(true)
    const error = await run(withEnvironment(adapter, settings({ episodes: source }), (env) => failure(env.reset(site))))
    expect(error.reason).toBe("no context")
    expect(calls).toEqual(["open shop-1-1", "discard shop-1-1"])
  })

  test("given a source that fails, when reset, then the InfraError names the site and the platform's own words", async () => {
    const { adapter } = fake()
    const source = { open: () => Promise.reject(new Error("POST answered 500")), discard: async () => undefined }
    const error = await run(withEnvironment(adapter, settings({ episodes: source }), (env) => failure(env.reset(site))))
    expect(error.reason).toBe("cannot open a shop episode: POST answered 500")
  })

  test("given prepareAhead, when the same site and seed is reset again, then it takes the episode opened ahead; another key discards it", async () => {
    const { adapter, log } = fake()
    const { calls, source } = countingSource(false)
    const shots = await run(
      withEnvironment(adapter, settings({ episodes: source, prepareAhead: true }), (env) =>
        Effect.gen(function* () {
          const first = yield* env.reset(site)
          const again = yield* env.reset(site)
          const other = yield* env.reset({ ...site, siteSeed: 2 })
          return [first, again, other].map((o) => o.screenshot![4])
        })
      )
    )
    expect(shots).toEqual([1, 2, 4])
    expect(log).toContain("warm 2")
    expect(calls.filter((c) => c.startsWith("discard")).sort()).toEqual([
      "discard shop-1-1",
      "discard shop-1-2",
      "discard shop-1-3",
      "discard shop-2-4",
      "discard shop-2-5"
    ])
  })
})

describe("the screenshot policy", () => {
  /** Reset, a state-changing click, a `back` that is not, the answer, and a step after the end. */
  const episode = (env: EnvironmentShape) =>
    Effect.gen(function* () {
      const observed: Array<FullObservation> = [yield* env.reset(task)]
      for (const action of [click("e1"), { kind: "back" } as const, { kind: "answer", text: "done" } as const, click("e1")]) {
        observed.push(yield* env.step(action))
      }
      return observed.map((o) => o.screenshot !== null && o.observation.screenshot !== null)
    })

  test.each([
    ["none", [false, false, false, false, false]],
    ["key", [true, true, false, false, false]],
    ["all", [true, true, true, true, false]]
  ] as const)("given %s, the observations with a screenshot are %p", async (policy, expected) => {
    const { adapter } = fake()
    expect(await run(withEnvironment(adapter, settings({ screenshots: policy as ScreenshotPolicy }), episode))).toEqual([...expected])
  })
})

describe("set-of-marks", () => {
  /** A fake that draws marks: the screenshot's bytes, then the ids it was given. */
  const marking = (over: Parameters<typeof fake>[0] = {}) => {
    const drawn: Array<ReadonlyArray<string>> = []
    const f = fake({
      mark: (ep, marks) =>
        Effect.sync(() => {
          drawn.push(marks.map((m) => m.id))
          return new Uint8Array([137, 80, 78, 71, ep.n, ...marks.map((m) => Number(m.id.slice(1)))])
        }),
      ...over
    })
    return { ...f, drawn }
  }
  const episode = (env: EnvironmentShape) =>
    Effect.gen(function* () {
      const first = yield* env.reset(task)
      const back = yield* env.step({ kind: "back" })
      return [first, back]
    })

  test("off (the default), the platform draws nothing and the observation has no marks key, as before marks existed", async () => {
    const { adapter, drawn } = marking()
    const [first] = await run(withEnvironment(adapter, settings(), episode))
    expect(drawn).toEqual([])
    expect("marks" in first!.observation).toBe(false)
    expect("marks" in first!).toBe(false)
  })

  test("on, each screenshot gets a marked image of the listed, visible elements, stored as its own blob; none without a screenshot", async () => {
    const { adapter, drawn } = marking()
    const store = memoryStore()
    const [first, back] = await run(withEnvironment(adapter, settings({ setOfMarks: true, screenshots: "key" }), episode, store))
    expect(drawn).toEqual([["e1", "e2"]])
    expect(first!.marks).toEqual(new Uint8Array([137, 80, 78, 71, 1, 1, 2]))
    expect(store.kept.get(first!.observation.marks!)).toEqual(first!.marks!)
    expect(first!.observation.screenshot).not.toBe(first!.observation.marks)
    // `back` is no state change: under "key" no screenshot, so no marks either.
    expect([back!.observation.screenshot, back!.observation.marks, back!.marks]).toEqual([null, null, null])
  })

  test("on, the marks are the policy view's elements that the screen shows: never one past the element limit", async () => {
    const hidden = { ...button("e3", "Hidden"), visible: false, inViewport: false }
    const offscreen = { ...button("e4", "Below"), inViewport: false }
    const { adapter: base } = fake()
    const { adapter, drawn } = marking({
      read: (ep, withScreenshot, error) =>
        Effect.map(base.read(ep, withScreenshot, error), (screen) => ({ ...screen, elements: [...screen.elements, hidden, offscreen] }))
    })
    await run(withEnvironment(adapter, settings({ setOfMarks: true, elementLimit: 1 }), (env) => env.reset(task)))
    await run(withEnvironment(adapter, settings({ setOfMarks: true }), (env) => env.reset(task)))
    expect(drawn).toEqual([["e1"], ["e1", "e2"]])
  })

  test("on, a screen with nothing to mark keeps its screenshot as the marked image; a platform that cannot draw records no marks", async () => {
    const { adapter: base } = fake()
    const { adapter, drawn } = marking({
      read: (ep, withScreenshot, error) => Effect.map(base.read(ep, withScreenshot, error), (screen) => ({ ...screen, elements: [] }))
    })
    const empty = await run(withEnvironment(adapter, settings({ setOfMarks: true }), (env) => env.reset(task)))
    expect(drawn).toEqual([])
    expect(empty.observation.marks).toBe(empty.observation.screenshot)
    const blind = await run(withEnvironment(fake().adapter, settings({ setOfMarks: true }), (env) => env.reset(task)))
    expect("marks" in blind.observation).toBe(false)
  })
})

describe("error observations", () => {
  test("given an action the platform refuses, the observation carries its complaint and the page is settled", async () => {
    const { adapter, log } = fake()
    const next = await run(withEnvironment(adapter, settings(), (env) => Effect.andThen(env.reset(task), env.step(click("e404")))))
    expect(next.observation.error).toBe("unknown element id e404")
    expect(next.view.text.split("\n")[0]).toBe("error: unknown element id e404")
    expect(log.slice(4, 7)).toEqual(["perform 1 click", "settle 1", "read 1 with screenshot"])
  })

  test("given a platform that settles only after actions that went through, a refused one is not settled", async () => {
    const { adapter, log } = fake({ settlesAfterError: false })
    await run(withEnvironment(adapter, settings(), (env) => Effect.andThen(env.reset(task), env.step(click("e404")))))
    expect(log.slice(4, 6)).toEqual(["perform 1 click", "read 1 with screenshot"])
  })

  test("given an action that throws, the observation says it failed, in the platform's words", async () => {
    const { adapter } = fake()
    const next = await run(
      withEnvironment(adapter, settings(), (env) => Effect.andThen(env.reset(task), env.step({ kind: "key", key: "throw" })))
    )
    expect(next.observation.error).toBe("key failed: the page said no")
  })

  test("given an action past its budget, it times out on the Clock, and what is pending is stopped", async () => {
    const { adapter, log } = fake()
    const next = await run(
      withEnvironment(adapter, settings(), (env) =>
        Effect.gen(function* () {
          yield* env.reset(task)
          const fiber = yield* Effect.forkChild(env.step({ kind: "wait", ms: 5000 }))
          // The budget: the action timeout, plus the wait itself.
          yield* TestClock.adjust("5999 millis")
          expect(fiber.pollUnsafe()).toBeUndefined()
          yield* TestClock.adjust("1 millis")
          return yield* Fiber.join(fiber)
        }).pipe(Effect.provide(TestClock.layer()))
      )
    )
    expect(next.observation.error).toBe("wait timed out after 1000 ms")
    expect(log).toContain("stop 1")
  })

  test("given a platform for which the budget is no timeout of its own, the observation says the action failed", async () => {
    const { adapter } = fake({ isTimeout: () => false })
    const next = await run(
      withEnvironment(adapter, settings(), (env) =>
        Effect.gen(function* () {
          yield* env.reset(task)
          const fiber = yield* Effect.forkChild(env.step({ kind: "wait", ms: 5000 }))
          yield* TestClock.adjust("6 seconds")
          return yield* Fiber.join(fiber)
        }).pipe(Effect.provide(TestClock.layer()))
      )
    )
    expect(next.observation.error).toBe("wait failed: wait: no answer within 6 s")
  })

  test("given an answer, the episode has ended: the next step performs nothing and says so", async () => {
    const { adapter, log } = fake()
    const [answered, after] = await run(
      withEnvironment(adapter, settings(), (env) =>
        Effect.gen(function* () {
          yield* env.reset(task)
          return [yield* env.step({ kind: "answer", text: "42" }), yield* env.step(click("e1"))]
        })
      )
    )
    expect(answered).toMatchObject({ done: true, observation: { error: null } })
    expect(after).toMatchObject({ done: true, observation: { error: "the episode has ended (answer or status was given)" } })
    expect(after!.timings).toMatchObject({ actionMs: 0, settleMs: 0 })
    expect(log.filter((l) => l.startsWith("perform"))).toEqual(["perform 1 answer"])
  })
})

describe("infrastructure errors", () => {
  test("given no episode, a step is an InfraError asking for a reset", async () => {
    const { adapter } = fake()
    const error = await run(withEnvironment(adapter, settings(), (env) => failure(env.step(click("e1")))))
    expect(error.reason).toBe("no episode in progress: call reset first")
  })

  test("given a platform that is gone, a step is an InfraError in the platform's words", async () => {
    const f = fake()
    const error = await run(
      withEnvironment(f.adapter, settings(), (env) =>
        Effect.andThen(
          env.reset(task),
          Effect.suspend(() => ((f.gone = true), failure(env.step(click("e1")))))
        )
      )
    )
    expect(error.reason).toBe("the fake platform is gone")
  })

  test("given an action that loses the platform, the step is an InfraError and what is left of the platform is dropped", async () => {
    const { adapter, log } = fake()
    const error = await run(
      withEnvironment(adapter, settings(), (env) => Effect.andThen(env.reset(task), failure(env.step({ kind: "key", key: "lost" }))))
    )
    expect(error.reason).toBe("fake lost during key: lost: the socket hung up")
    expect(error.retryable).toBe(true)
    expect(log.slice(4)).toEqual(["perform 1 key", "drop", "release 1", "quit"])
  })

  test("when the scope closes, the episode is released and then the platform quits", async () => {
    const { adapter, log } = fake()
    await run(withEnvironment(adapter, settings(), (env) => Effect.andThen(env.reset(task), env.close())))
    expect(log.slice(4)).toEqual(["release 1", "quit"])
  })
})

describe("what a step records", () => {
  test("given a type the platform records otherwise, the observation says what was performed; a click says nothing", async () => {
    const { adapter } = fake()
    const [typed, clicked] = await run(
      withEnvironment(adapter, settings(), (env) =>
        Effect.gen(function* () {
          yield* env.reset(task)
          const target = { role: "textbox", name: "Password", elementId: "e1", text: null }
          return [yield* env.step({ kind: "type", target, text: "hunter2" }), yield* env.step(click("e1"))]
        })
      )
    )
    expect(typed!.performed).toEqual({
      kind: "type",
      target: { role: "textbox", name: "Password", elementId: "e1", text: null },
      text: "•••••••"
    })
    expect("performed" in clicked!).toBe(false)
  })

  test("timings are whole milliseconds: the action's, the settle's own, and the observation's", async () => {
    const { adapter } = fake({ settle: () => Effect.promise(() => Bun.sleep(30)) })
    const [reset, clicked, back] = await run(
      withEnvironment(adapter, settings(), (env) =>
        Effect.gen(function* () {
          return [yield* env.reset(task), yield* env.step(click("e1")), yield* env.step({ kind: "back" })]
        })
      )
    )
    for (const o of [reset!, clicked!, back!]) for (const ms of Object.values(o.timings)) expect(Number.isInteger(ms) && ms >= 0).toBe(true)
    expect(reset!.timings.settleMs).toBeGreaterThanOrEqual(25)
    expect(clicked!.timings.settleMs).toBeGreaterThanOrEqual(25)
    expect(back!.timings.settleMs).toBeLessThan(25)
  })
})
