/**
 * Given walks over a small site — loops, detours, actions that stay on a page — and the
 * steps a task needs, when pruned to a pseudo-demo, then it keeps every key step, each kept
 * step starts where the one before it left, no kept step can go without breaking that
 * chain or losing a key step, and it ends with a claim. Table cases, then 500 random walks.
 */
import { describe, expect, test } from "bun:test"
import type { Action } from "@core/events"
import type { ExtrapolationStep } from "../mod.ts"
import { isChain, prunePseudoDemo } from "../mod.ts"

const click = (name: string): Action => ({ kind: "click", target: { elementId: null, role: "link", name, text: name } })
const COMPLETE: Action = { kind: "status", status: "complete" }
const go = (from: string, to: string, action: Action = click(to)): ExtrapolationStep => ({ action, urlBefore: from, urlAfter: to })

describe("pruning a pseudo-demo", () => {
  const walk = [
    go("/", "/paris"), // 0: a look at Paris
    go("/paris", "/"), // 1: back home
    go("/", "/deal/so624"), // 2: a deal
    go("/deal/so624", "/", { kind: "back" }), // 3: back
    go("/", "/edinburgh"), // 4: the key step
    go("/edinburgh", "/edinburgh", { kind: "scroll", target: null, direction: "down" }) // 5: walked on
  ]
  test.each([
    ["a random walk to Edinburgh: the loops go, a claim is added", walk, [4], 6, [4], true],
    ["the walk, closed by the parent itself", [...walk.slice(0, 5), go("/edinburgh", "/edinburgh", COMPLETE)], [4], 6, [4, 5], false],
    [
      "the way there is kept: home, category, product",
      [go("/", "/c"), go("/c", "/p"), go("/p", "/p", click("Add"))],
      [2],
      3,
      [0, 1, 2],
      true
    ],
    [
      "a loop holding a key step stays",
      [go("/", "/a"), go("/a", "/a", click("Save")), go("/a", "/"), go("/", "/b")],
      [1, 3],
      4,
      [0, 1, 2, 3],
      true
    ],
    [
      "a walk that only came back, with no key step: nothing is left (and no task is made of it)",
      [go("/", "/a"), go("/a", "/")],
      [],
      2,
      [],
      true
    ],
    ["an action that stays on the page and no key step: dropped", [go("/", "/", click("Like")), go("/", "/b")], [1], 2, [1], true]
  ] as const)("given %s", (_, steps, keySteps, end, kept, adds) => {
    const plan = prunePseudoDemo(steps, { keySteps, end })
    expect(plan.stepIndices).toEqual([...kept])
    expect(plan.addsClosing).toBe(adds)
    expect(isChain(steps, plan.stepIndices)).toBe(true)
  })
})

/** A small deterministic generator (mulberry32): the same walks on every run. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const PAGES = ["/", "/a", "/b", "/c", "/d"]

test("given 500 random walks and key steps, then every pruned pseudo-demo is a chain that keeps its key steps and cannot lose a step", () => {
  let pruned = 0
  for (let seed = 1; seed <= 500; seed++) {
    const r = prng(seed)
    const length = 2 + Math.floor(r() * 12)
    const steps: Array<ExtrapolationStep> = []
    let at = "/"
    for (let i = 0; i < length; i++) {
      const stay = r() < 0.25
      const to = stay ? at : PAGES[Math.floor(r() * PAGES.length)]!
      steps.push(go(at, to, stay ? click(`button ${i}`) : click(to)))
      at = to
    }
    const chosen = steps.map((_, i) => i).filter(() => r() < 0.2)
    // A pseudo-demo always has a key step (a template's step matched, or one identified).
    const keySteps = chosen.length > 0 ? chosen : [steps.length - 1]
    const plan = prunePseudoDemo(steps, { keySteps, end: steps.length })
    const kept = plan.stepIndices
    const lastKey = Math.max(-1, ...keySteps)
    for (const k of keySteps) expect(kept).toContain(k)
    expect(isChain(steps, kept)).toBe(true)
    // Where it starts: on the page the parent started on, so the first screen is one the task can begin from.
    expect(steps[kept[0]!]!.urlBefore).toBe("/")
    for (const k of kept) {
      if (keySteps.includes(k)) continue
      const without = kept.filter((x) => x !== k)
      // A step that is not a key step is there only because the chain needs it.
      expect(isChain(steps, without) && steps[without[0] ?? k]!.urlBefore === "/").toBe(false)
      expect(k).toBeLessThan(lastKey)
    }
    expect(plan.addsClosing).toBe(true)
    if (kept.length < steps.length) pruned++
  }
  // The walks do loop: most are pruned, so the checks above are about real removals.
  expect(pruned).toBeGreaterThan(250)
})
