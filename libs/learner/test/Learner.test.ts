/**
 * Given dataset records as CORE writes them, when the learner reads, trains and acts, then
 * it reads back exactly the page the record showed, trains the same weights from the same
 * records and seed, learns a procedure well enough to rank held-apart states right, and
 * acts through the policy seam with texts filled from the instruction.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { describeElement } from "@core/environment"
import type { ElementInfo } from "@core/environment"
import { dpoRecord, learnerRulesAt, sftRecords } from "@core/domain"
import type { RecordStep, RecordTrajectory } from "@core/domain"
import type { Action } from "@core/events"
import { prng } from "@core/engine"
import { explorationPolicy } from "@core/policy"
import type { EpisodeView } from "@core/policy"
import {
  examplesOfRecord,
  learnedModelFromJson,
  learnedModelJson,
  learnedPolicy,
  learnerSeed,
  nextActionAccuracy,
  chooseText,
  screenOfView,
  readElementLine,
  prepare,
  TRAINER_VERSION,
  trainLearner,
  trainOnRecords,
  withoutDetours
} from "../mod.ts"
import type { LearnerExample } from "../mod.ts"

const el = (id: string, role: string, name: string, more: Partial<ElementInfo> = {}): ElementInfo =>
  ({
    id,
    role,
    name,
    text: name,
    value: null,
    box: null,
    visible: true,
    inViewport: true,
    enabled: true,
    editable: false,
    checked: null,
    ...more
  }) as ElementInfo

const target = (e: ElementInfo) => ({ elementId: e.id, role: e.role, name: e.name, text: e.text })
const click = (e: ElementInfo): Action => ({ kind: "click", target: target(e) })

const view = (elements: ReadonlyArray<ElementInfo>) => elements.map(describeElement).join("\n")

const step = (elements: ReadonlyArray<ElementInfo>, action: Action, url = "/shop"): RecordStep => ({
  url,
  title: "Shop",
  view: view(elements),
  screenshot: null,
  action,
  error: null
})

const PRODUCTS = ["Red Kettle", "Blue Teapot", "Green Mug", "Steel Pan", "Oak Board", "Glass Jar", "Tin Cup", "Clay Bowl"]

/** A shop page: a search box, a cart link, and the products in an order that depends on i. */
const shopPage = (i: number): ReadonlyArray<ElementInfo> => [
  el("e1", "searchbox", "Search products", { editable: true, value: "" }),
  el("e2", "link", "Cart"),
  ...PRODUCTS.map((_, k) => PRODUCTS[(k + i) % PRODUCTS.length]!).map((p, k) => el(`e${k + 3}`, "link", p)),
  el("e20", "button", "Add to cart")
]

/** "Add the X to the cart": click X, then Add to cart, then complete. */
const trajectory = (i: number): RecordTrajectory => {
  const product = PRODUCTS[i % PRODUCTS.length]!
  const page = shopPage(i)
  const link = page.find((e) => e.name === product)!
  const add = page.find((e) => e.name === "Add to cart")!
  return {
    trajectoryId: `t${i}`,
    taskId: `add-${i}`,
    instruction: `Add the ${product} to the cart`,
    steps: [step(page, click(link)), step(page, click(add), `/shop/${i}`), step(page, { kind: "status", status: "complete" }, `/shop/${i}`)]
  }
}

const examples = (from: number, to: number): ReadonlyArray<LearnerExample> =>
  Array.from({ length: to - from }, (_, k) => sftRecords(trajectory(from + k)))
    .flat()
    .flatMap(examplesOfRecord)

describe("reading records", () => {
  test.each([
    [el("e3", "textbox", 'Say "hi"\nthere', { value: "a\\b", enabled: false })],
    [el("e4", "link", "Docs", { text: "Read the docs", visible: false })],
    [el("e5", "checkbox", "", { checked: true, inViewport: false })],
    [el("e6", "button", "[x] close")]
  ])("a policy view line reads back as the element it shows: %#", (e) => {
    const back = readElementLine(describeElement(e))!
    expect(back).toMatchObject({ id: e.id, role: e.role, enabled: e.enabled, visible: e.visible, checked: e.checked })
    expect(back.name).toBe(e.name.replace(/\s+/g, " "))
    expect(back.value).toBe(e.value)
    expect(back.inViewport).toBe(e.visible && e.inViewport)
  })

  test("an sft record is one state: the page's elements, the history, and the chosen element", () => {
    const [first, second] = sftRecords(trajectory(2)).flatMap((r) => examplesOfRecord(r))
    expect(first!.screen.elements.map((e) => e.name)).toEqual(shopPage(2).map((e) => e.name))
    expect(first!.chosen).toEqual({ kind: "click", elementId: shopPage(2).find((e) => e.name === "Green Mug")!.id })
    expect(second!.screen.history).toEqual(["Click on a UI element 'Green Mug' (link) on the screen."])
    expect(second!.screen.instruction).toBe("Add the Green Mug to the cart")
  })

  test("a dpo record adds what the failed trajectory did in the same state; other bodies hold nothing", () => {
    const good = trajectory(1)
    const bad = { ...good, trajectoryId: "bad", steps: [step(shopPage(1), click(shopPage(1)[1]!)), ...good.steps.slice(1)] }
    const pair = dpoRecord(good, bad)!
    const [x] = examplesOfRecord(pair)
    expect(x!.rejected).toEqual([{ kind: "click", elementId: "e2" }])
    expect(examplesOfRecord({ recordId: "r", format: "rollout", body: pair.body })).toEqual([])
    expect(examplesOfRecord({ recordId: "r", format: "sft", body: { messages: [] } })).toEqual([])
    expect(examplesOfRecord({ recordId: "r", format: "sft", body: null })).toEqual([])
  })
})

describe("training", () => {
  test("learner 2 leaves out a verified trajectory longer than its task's shortest demo; learner 1 trains on every state", () => {
    const [state] = examples(0, 1)
    const of = (taskId: string, source: string, steps: number, expert: boolean, rejected = false): ReadonlyArray<LearnerExample> =>
      Array.from({ length: steps }, (_, k) => ({
        ...state!,
        recordId: `${source}-${k}`,
        taskId,
        source,
        expert,
        rejected: rejected ? [{ kind: "click" as const, elementId: "e2" }] : []
      }))
    const all = [
      ...of("a", "demo", 3, true),
      ...of("a", "pseudo", 2, true),
      ...of("a", "shortcut", 2, false),
      ...of("a", "detour", 3, false),
      ...of("a", "dpo", 4, false, true),
      ...of("b", "only-rollouts", 6, false)
    ]
    const kept = new Set(withoutDetours(all).map((x) => x.source))
    // The shortest expert trajectory of task a has 2 steps: the 3-step rollout is a detour, the demo itself is kept.
    expect([...kept].sort()).toEqual(["demo", "dpo", "only-rollouts", "pseudo", "shortcut"])
    expect(prepare(all, "task", [], learnerRulesAt("1")).length).toBe(all.length)
    expect(prepare(all, "task", [], learnerRulesAt("2")).length).toBe(all.length - 3)
    expect(trainLearner(all, { seed: "s", learner: "1" }).version).toBe("learner-v1")
    expect(trainLearner(all, { seed: "s" }).version).toBe(TRAINER_VERSION)
  })

  test("the same records and seed give the same bytes; another seed shuffles otherwise", () => {
    const xs = examples(0, 12)
    const a = learnedModelJson(trainLearner(xs, { seed: "s1" }))
    expect(learnedModelJson(trainLearner(xs, { seed: "s1" }))).toBe(a)
    expect(learnedModelJson(trainLearner(xs, { seed: "s2" }))).not.toBe(a)
    expect(learnedModelJson(learnedModelFromJson(a))).toBe(a)
  })

  test("it learns the procedure: held-apart states of unseen products are ranked right", () => {
    const model = trainLearner(examples(0, 24), { seed: "s" })
    const held = examples(24, 32)
    const untrained = trainLearner(examples(0, 24), { seed: "s", epochs: 1 })
    expect(nextActionAccuracy(model, held)).toBeGreaterThanOrEqual(0.9)
    expect(nextActionAccuracy(model, held)).toBeGreaterThanOrEqual(nextActionAccuracy(untrained, held))
  })

  test("trainOnRecords is trainLearner over the records' states; the seed is the run's and the round's", () => {
    const records = Array.from({ length: 6 }, (_, i) => sftRecords(trajectory(i))).flat()
    const seed = learnerSeed("run-seed", 2)
    expect(seed).toMatch(/^[0-9a-f]{64}$/)
    expect(learnerSeed("run-seed", 3)).not.toBe(seed)
    expect(learnedModelJson(trainOnRecords(records, seed))).toBe(
      learnedModelJson(trainLearner(records.flatMap(examplesOfRecord), { seed }))
    )
  })

  test.each([
    ["{}", "not a model of the learner (learner-v1, learner-v2)"],
    ['{"version":"learner-v9"}', "not a model of the learner"],
    ['{"version":"learner-v1","dim":262144,"seed":"s","epochs":1,"examples":1,"weights":[[-1,2]]}', "malformed weight"],
    ['{"version":"learner-v1","dim":5,"seed":"s","epochs":1,"examples":1,"weights":[]}', "without its dim"]
  ])("a model that is not one is refused in one line: %s", (json, message) => {
    expect(() => learnedModelFromJson(json)).toThrow(message)
  })
})

describe("acting", () => {
  const episode = (instruction: string, elements: ReadonlyArray<ElementInfo>, history: EpisodeView["history"] = []): EpisodeView => ({
    instruction,
    url: "/shop",
    title: "Shop",
    app: null,
    error: null,
    elements,
    history,
    stepBudget: 10,
    step: history.length,
    page: null,
    screenshot: null,
    marks: null
  })
  const draws = (i: number) => prng(new Bun.CryptoHasher("sha256").update(`act-${i}`).digest("hex"))
  const model = trainLearner(examples(0, 24), { seed: "s" })

  test("it clicks the product the instruction names, on a page it never saw, for most draws", async () => {
    const page = shopPage(5)
    const chosen = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        Effect.runPromise(learnedPolicy({ model }).act(episode("Add the Clay Bowl to the cart", page), draws(i)))
      )
    )
    const clay = chosen.filter((a) => a.kind === "click" && a.target?.name === "Clay Bowl").length
    expect(clay).toBeGreaterThanOrEqual(16)
  })

  test("a type fills the instruction's quoted value; on its last step it may only finish", async () => {
    const typed = trainLearner(
      Array.from({ length: 8 }, (_, i) => {
        const page = shopPage(i)
        const box = page[0]!
        return {
          trajectoryId: `s${i}`,
          taskId: `search-${i}`,
          instruction: `Search for "${PRODUCTS[i]}"`,
          steps: [step(page, { kind: "type", target: target(box), text: PRODUCTS[i]!, submit: true })]
        }
      })
        .flatMap((t) => sftRecords(t))
        .flatMap(examplesOfRecord),
      { seed: "s" }
    )
    const action = await Effect.runPromise(learnedPolicy({ model: typed }).act(episode('Search for "Tin Cup"', shopPage(3)), draws(1)))
    expect(action).toMatchObject({ kind: "type", text: "Tin Cup", submit: true })
    const last = { ...episode("Add the Clay Bowl to the cart", shopPage(5)), stepBudget: 1 }
    expect((await Effect.runPromise(learnedPolicy({ model }).act(last, draws(2)))).kind).toBe("status")
  })

  test("what to type is learned: a search box takes the product's name, not the instruction's other words", async () => {
    const NAMES = ["Tin Cup", "Oak Board", "Glass Jar", "Clay Bowl", "Steel Pan", "Green Mug", "Red Kettle"]
    const searches = trainLearner(
      NAMES.slice(0, 6).flatMap((name, i) => {
        const page = shopPage(i)
        return sftRecords({
          trajectoryId: `q${i}`,
          taskId: `open-${i}`,
          instruction: `Open the product page of ${name} from the shop.`,
          steps: [step(page, { kind: "type", target: target(page[0]!), text: name, submit: true })]
        }).flatMap(examplesOfRecord)
      }),
      { seed: "s" }
    )
    const action = await Effect.runPromise(
      learnedPolicy({ model: searches }).act(episode("Open the product page of Red Kettle from the shop.", shopPage(2)), draws(4))
    )
    expect(action).toMatchObject({ kind: "type", text: "Red Kettle", submit: true })
  })

  test("a text two tasks typed that no instruction says is remembered for its field; an instance's own text is not", async () => {
    const FILLER = "Scripted review: good value."
    const review = (i: number, body: string) => {
      const page = [
        el("e1", "textbox", "Review title", { value: "" }),
        el("e2", "textbox", "Review", { value: "" }),
        el("e3", "button", "Post review")
      ]
      return sftRecords({
        trajectoryId: `v${i}`,
        taskId: `review-${i}`,
        instruction: `Rate the ${PRODUCTS[i]} titled "Nice ${i}"`,
        steps: [
          step(page, { kind: "type", target: target(page[0]!), text: `Nice ${i}` }),
          step(page, { kind: "type", target: target(page[1]!), text: body }),
          step(page, click(page[2]!))
        ]
      }).flatMap(examplesOfRecord)
    }
    const model = trainLearner([...review(0, FILLER), ...review(1, FILLER), ...review(2, "only this once")], { seed: "s" })
    expect(model.texts).toEqual([["textbox|review", FILLER]])
    expect(learnedModelFromJson(learnedModelJson(model)).texts).toEqual(model.texts)
    const page = [
      el("e1", "textbox", "Review title", { value: "Nice 5" }),
      el("e2", "textbox", "Review", { value: "" }),
      el("e3", "button", "Post review")
    ]
    const screen = screenOfView({ ...episode(`Rate the ${PRODUCTS[5]} titled "Nice 5"`, page), step: 1 })
    expect(chooseText(model, screen, screen.elements[1]!)).toBe(FILLER)
    expect(chooseText(model, screen, screen.elements[0]!)).toBe("Nice 5")
  })

  test("without a model it explores: the exploration policy's action from the same draws", async () => {
    const v = episode("Add the Clay Bowl to the cart", shopPage(5))
    const a = await Effect.runPromise(learnedPolicy({ model: null }).act(v, draws(3)))
    expect(a).toEqual(await Effect.runPromise(explorationPolicy().act(v, draws(3))))
  })
})
