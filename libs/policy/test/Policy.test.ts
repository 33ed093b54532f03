/**
 * Given one step's view of an episode, when a policy acts on it through the `Policy`
 * seam, then it chooses what its own action function chooses from the same draws — and
 * the shared sampler maps each draw to the candidate both old samplers mapped it to.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import type { ElementInfo } from "@core/environment"
import type { Action } from "@core/events"
import { prng } from "@core/engine"
import { explorationRulesAt } from "@core/domain"
import {
  EXPLORATION_POLICY,
  explorationAction,
  explorationInput,
  explorationPolicy,
  RETRIEVAL_POLICY,
  retrievalAction,
  retrievalPolicy,
  softmaxDraw,
  trainRetrieval
} from "../mod.ts"
import type { Draws, EpisodeView } from "../mod.ts"
import { site, trainingExamples } from "./retrieval/shop.ts"

const seed = (i: number): string => new Bun.CryptoHasher("sha256").update(`seam-${i}`).digest("hex")

const element = (id: string, role: string, name: string, more: Partial<ElementInfo> = {}): ElementInfo =>
  ({ id, role, name, text: name, value: null, visible: true, enabled: true, editable: false, checked: null, ...more }) as ElementInfo

const view = (more: Partial<EpisodeView> = {}): EpisodeView => ({
  instruction: "What is the price of the Red Kettle?",
  url: "/shop/",
  title: "Shop",
  app: null,
  error: null,
  elements: [
    element("e1", "link", "Red Kettle"),
    element("e2", "link", "Blue Teapot"),
    element("e3", "searchbox", "Search products", { editable: true }),
    element("e4", "button", "Search")
  ],
  history: [],
  stepBudget: 10,
  step: 0,
  page: '- link "Red Kettle"\n- text: $24.99',
  screenshot: null,
  marks: null,
  ...more
})

/** The exploration policy's sampler before it was shared: the best score by Math.max. */
const byMax = (scores: ReadonlyArray<number>, temperature: number, rng: Draws): number => {
  const max = Math.max(...scores)
  const weights = scores.map((s) => Math.exp((s - max) / temperature))
  let r = rng.float() * weights.reduce((a, b) => a + b, 0)
  for (let i = 0; i < scores.length; i++) {
    r -= weights[i]!
    if (r < 0) return i
  }
  return scores.length - 1
}

describe("the policy seam", () => {
  test("softmaxDraw chooses what the exploration and retrieval samplers chose, draw for draw", () => {
    for (let i = 0; i < 200; i++) {
      const shape = prng(seed(i))
      const scores = Array.from({ length: 1 + Math.floor(shape.float() * 8) }, () => Math.round(shape.float() * 100) / 50)
      // The retrieval policy ranked best first and took the first score as the best: the same number.
      const ranked = [...scores].sort((a, b) => b - a)
      for (const list of [scores, ranked]) {
        const ids = list.map((_, j) => j)
        expect(softmaxDraw(ids, (j) => list[j]!, 0.6, prng(seed(i + 1000)))).toBe(byMax(list, 0.6, prng(seed(i + 1000))))
      }
    }
  })

  test("the exploration policy acts as explorationAction on the view its version reads", () => {
    for (const version of ["1", "3", "13"] as const) {
      for (let i = 0; i < 30; i++) {
        const acted = Effect.runSync(explorationPolicy({ version, stopBias: 0.3 }).act(view(), prng(seed(i))))
        const rules = explorationRulesAt(version)
        expect(acted).toEqual(explorationAction(explorationInput(view(), rules), prng(seed(i)), { rules, stopBias: 0.3 }))
      }
    }
    // Version 1 never saw the page; version 3 reads answers off it.
    expect(explorationInput(view(), explorationRulesAt("1")).page).toBeUndefined()
    expect(explorationInput(view(), explorationRulesAt("3")).page).toBe(view().page)
    expect(explorationPolicy({ version: "13" })).toMatchObject({ name: EXPLORATION_POLICY, version: "13" })
  })

  test("the retrieval policy acts as retrievalAction, and explores where there is no index", () => {
    const index = trainRetrieval(trainingExamples())
    const home = site("l-", "http://127.0.0.1:5200").home()
    const shop = view({
      instruction: "Open the Toys & Games category",
      url: home.url,
      page: null,
      elements: home.elements as ReadonlyArray<ElementInfo>
    })
    const current = explorationRulesAt("13")
    let retrieved = 0
    for (let i = 0; i < 20; i++) {
      const acted: Action = Effect.runSync(retrievalPolicy({ index, exploration: { version: "13" } }).act(shop, prng(seed(i))))
      const expected = retrievalAction(index, explorationInput(shop, current), prng(seed(i)))
      if (expected !== null) retrieved++
      expect(acted).toEqual(expected ?? explorationAction(explorationInput(shop, current), prng(seed(i)), { rules: current }))
      const explored = Effect.runSync(retrievalPolicy({ exploration: { version: "13" } }).act(shop, prng(seed(i))))
      expect(explored).toEqual(explorationAction(explorationInput(shop, current), prng(seed(i)), { rules: current }))
    }
    expect(retrieved).toBe(20)
    expect(retrievalPolicy({ version: "2" })).toMatchObject({ name: RETRIEVAL_POLICY, version: "2" })
  })
})
