/**
 * `playSteps` / `playDemo` against a stand-in environment: what it sends and what it records for each kind
 * of step, and where it stops. (The real browser: tests/cli-record-steps.test.ts.)
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import type { ElementInfo, EnvironmentShape, FullObservation } from "@core/environment"
import type { Action } from "@core/events"
import { playDemo, playSteps, StepPlayError } from "../mod.ts"
import type { Step } from "../mod.ts"

const BASE = "http://127.0.0.1:4321/shop/"

const element = (id: string, role: string, name: string): ElementInfo => ({
  id,
  role,
  name,
  text: "",
  value: null,
  box: null,
  visible: true,
  inViewport: true,
  enabled: true,
  editable: role === "textbox",
  checked: null
})
const page = [element("e1", "link", "Home"), element("e2", "textbox", "Password"), element("e3", "button", "Save")]

const observed = (url: string, error: string | null = null, performed?: Action): FullObservation => ({
  observation: { url, app: null, title: null, screenshot: null, elements: null, aria: null, truncated: false, error },
  elements: page,
  aria: "",
  screenshot: null,
  view: { url, app: null, title: null, text: "", truncated: false, shown: 0, total: 0, error },
  timings: { actionMs: 0, settleMs: 0, observeMs: 0 },
  done: false,
  episode: null,
  ...(performed === undefined ? {} : { performed })
})

/** Lands on BASE; a navigate goes where it says; a click on Save fails; a type into Password is sealed. */
const standIn = () => {
  const sent: Array<Action> = []
  let url = BASE
  const env: EnvironmentShape = {
    reset: () => Effect.succeed(observed(url)),
    step: (a) =>
      Effect.sync(() => {
        sent.push(a)
        if (a.kind === "navigate") url = a.url
        if (a.kind === "click" && a.target?.name === "Save") return observed(url, "click: the element is detached")
        if (a.kind === "type" && a.target?.name === "Password")
          return observed(url, null, { ...a, text: "", secretEnv: "CORE_DEMO_PASSWORD" })
        return observed(url)
      }),
    close: () => Effect.void
  }
  return { env, sent }
}

const play = (steps: ReadonlyArray<Step>) => {
  const { env, sent } = standIn()
  return Effect.runPromise(
    Effect.match(playSteps(env, { taskId: "t" }, steps), {
      onFailure: (error) => ({ error, sent, played: null }),
      onSuccess: (played) => ({ error: null, sent, played })
    })
  )
}

describe("playSteps", () => {
  test("targets resolved to the page's ids; navigate sent in full, recorded as a path; the environment's sealed action recorded", async () => {
    const r = await play([
      { kind: "click", target: { role: "link", name: "home" } },
      { kind: "type", target: { name: "Password" }, text: "hunter2", mode: "insert" },
      { kind: "type", target: { role: "textbox" }, secretEnv: "SHOP_PW", submit: true },
      { kind: "navigate", url: "/shop/wishlist?x=1" },
      { kind: "scroll", direction: "down" },
      { kind: "answer", text: "done" }
    ])
    expect(r.error).toBeNull()
    const home = { role: "link", name: "Home", elementId: "e1", text: null }
    const password = { role: "textbox", name: "Password", elementId: "e2", text: null }
    expect(r.sent).toEqual([
      { kind: "click", target: home },
      { kind: "type", target: password, text: "hunter2", submit: false, mode: "insert" },
      { kind: "type", target: password, text: "", submit: true, secretEnv: "SHOP_PW" },
      { kind: "navigate", url: "http://127.0.0.1:4321/shop/wishlist?x=1" },
      { kind: "scroll", target: null, direction: "down" },
      { kind: "answer", text: "done" }
    ])
    expect(r.played!.map((s) => s.action)).toEqual([
      r.sent[0]!,
      { kind: "type", target: password, text: "", submit: false, mode: "insert", secretEnv: "CORE_DEMO_PASSWORD" },
      { kind: "type", target: password, text: "", submit: true, secretEnv: "CORE_DEMO_PASSWORD" },
      { kind: "navigate", url: "/shop/wishlist?x=1" },
      r.sent[4]!,
      r.sent[5]!
    ])
    expect(r.played!.map((s) => [s.urlBefore, s.urlAfter])).toEqual([
      ["/shop/", "/shop/"],
      ["/shop/", "/shop/"],
      ["/shop/", "/shop/"],
      ["/shop/", "/shop/wishlist?x=1"],
      ["/shop/wishlist?x=1", "/shop/wishlist?x=1"],
      ["/shop/wishlist?x=1", "/shop/wishlist?x=1"]
    ])
  })

  const stops: ReadonlyArray<[string, ReadonlyArray<Step>, string, number]> = [
    [
      "a fragment with an nth it does not have",
      [
        { kind: "click", target: { role: "button", name: "Sav", nth: 1 } },
        { kind: "status", status: "complete" }
      ],
      'step 1 (click button "Sav" nth 1): no element matches exactly and only 1 contains it',
      0
    ],
    [
      "a target nowhere near",
      [{ kind: "back" }, { kind: "click", target: { role: "link", name: "Getting Started" } }, { kind: "status", status: "complete" }],
      'step 2 (click link "Getting Started"): no element matches; closest on the page: link "Home", ',
      1
    ],
    [
      "an error observation",
      [
        { kind: "click", target: { name: "Save" } },
        { kind: "status", status: "complete" }
      ],
      'step 1 (click "Save"): click: the element is detached',
      1
    ]
  ]
  test("given a reset screen, when played with playDemo, then it is the demo's initial, each step has its apps, and the steps are playSteps'", async () => {
    const { env } = standIn()
    const atReset = {
      ...observed(BASE).observation,
      app: "com.example/.Main",
      title: "Shop",
      elements: "a".repeat(64),
      screenshot: "b".repeat(64)
    }
    const shown: EnvironmentShape = { ...env, reset: () => Effect.succeed({ ...observed(BASE), observation: atReset }) }
    const steps: ReadonlyArray<Step> = [
      { kind: "click", target: { role: "link", name: "Home" } },
      { kind: "status", status: "complete" }
    ]
    const played = await Effect.runPromise(playDemo(shown, { taskId: "t" }, steps))
    expect(played.initial).toEqual(atReset)
    expect(played.steps.map((s) => [s.action.kind, s.appBefore, s.appAfter])).toEqual([
      ["click", "com.example/.Main", null],
      ["status", null, null]
    ])
    expect(played.steps).toEqual(await Effect.runPromise(playSteps(shown, { taskId: "t" }, steps)))
  })

  for (const [what, steps, message, sent] of stops) {
    test(`stops at ${what}, with one line naming the step`, async () => {
      const r = await play(steps)
      expect(r.error).toBeInstanceOf(StepPlayError)
      expect(r.error!.message).toStartWith(message)
      expect(r.sent).toHaveLength(sent)
    })
  }
})
