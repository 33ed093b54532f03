import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generateShopSuite, SHOP_SUITE_FILE, shopSuiteJson } from "../suites/shop.ts"
import { fillInstruction, loadSuite, parseSuite } from "../suites/Suite.ts"
import { CHECKERS } from "../suites/vocabulary.ts"
import { checkers } from "../eval/checkers/mod.ts"
import { shop } from "../mod.ts"

const FILE = "suites/shop.json"
const original = (): any => JSON.parse(readFileSync(SHOP_SUITE_FILE, "utf8"))

/** The one-line error for a mutated copy of the shop suite. */
const errorOf = async (mutate: (s: any) => void): Promise<string> => {
  const s = original()
  mutate(s)
  const exit = await Effect.runPromise(Effect.flip(parseSuite(JSON.stringify(s), FILE)))
  return exit.message
}

describe("the shop suite file", () => {
  test("is exactly what the generator makes from the seeded catalog (file and site never drift)", () => {
    expect(readFileSync(SHOP_SUITE_FILE, "utf8")).toBe(shopSuiteJson())
  })

  test("loads, fills instructions, and covers every category, both splits and enough tasks", async () => {
    const suite = await Effect.runPromise(loadSuite(SHOP_SUITE_FILE))
    expect(suite).toMatchObject({ suite: "shop", version: 1 })
    expect(suite.templates.length).toBeGreaterThanOrEqual(8)
    expect(suite.tasks.length).toBeGreaterThanOrEqual(24)
    expect(new Set(suite.templates.map((t) => t.category))).toEqual(
      new Set(["navigation", "search", "form", "transaction", "information", "infeasible"])
    )
    expect(suite.templates.filter((t) => t.split === "held-out").length).toBeGreaterThanOrEqual(2)
    const heldOutOfTrain = suite.tasks.filter(
      (t) => t.split === "held-out" && suite.templates.find((x) => x.id === t.templateId)!.split === "train"
    )
    expect(heldOutOfTrain.length).toBeGreaterThanOrEqual(2)
    for (const t of suite.tasks) {
      expect(t.instruction).not.toMatch(/[{}]/)
      expect(t.pathFamilies.length).toBeGreaterThan(0)
    }
    const buy = suite.tasks.find((t) => t.id === "shop-buy-1")!
    expect(buy.instruction).toBe(fillInstruction(suite.templates.find((t) => t.id === "shop-buy")!.instruction, buy.parameters))
    expect(buy.instruction).toContain(String(buy.parameters.product))
    // Every product parameter is a real product of its instance's seed.
    for (const t of suite.tasks)
      if (typeof t.parameters.product === "string")
        expect(shop.base(t.siteSeed).products.map((p) => p.name)).toContain(t.parameters.product)
    // Held-out parameter values are unseen in training instances of the same template.
    for (const t of heldOutOfTrain) {
      const train = suite.tasks.filter((x) => x.templateId === t.templateId && x.split === "train")
      for (const x of train) expect(x.parameters).not.toEqual(t.parameters)
    }
  })

  test("is deterministic", () => {
    expect(generateShopSuite()).toEqual(generateShopSuite())
  })

  test("every declared checker has an implementation and vice versa", () => {
    expect(Object.keys(checkers).sort()).toEqual(Object.keys(CHECKERS).sort())
  })
})

describe("the loader rejects a bad suite with one line naming the file and the JSON path", () => {
  const cases: ReadonlyArray<[string, (s: any) => void, string]> = [
    [
      "unknown checker",
      (s) => (s.templates[1].checker = "shop.teleport"),
      `${FILE}: templates[1].checker: unknown checker 'shop.teleport' (known: shop.url-category`
    ],
    [
      "placeholder without a parameter",
      (s) => (s.templates[0].instruction = "Open {category} sorted by {sort}."),
      `${FILE}: templates[0].instances[0].parameters: no value for parameter {sort} (the instruction has the placeholder)`
    ],
    [
      "parameter the checker needs",
      (s) => delete s.templates[5].instances[1].parameters.quantity,
      `${FILE}: templates[5].instances[1].parameters: no value for parameter {quantity}`
    ],
    [
      "duplicate instance id",
      (s) => (s.templates[3].instances[2].id = s.templates[1].instances[0].id),
      `${FILE}: templates[3].instances[2].id: duplicate instance id 'shop-open-product-1' (also templates[1].instances[0])`
    ],
    [
      "duplicate template id",
      (s) => (s.templates[2].id = s.templates[0].id),
      `${FILE}: templates[2].id: duplicate template id 'shop-open-category' (also templates[0])`
    ],
    [
      "product not in that seed's catalog",
      (s) => (s.templates[6].instances[0].parameters.product = "Acme Flux Capacitor"),
      `${FILE}: templates[6].instances[0].parameters.product: 'Acme Flux Capacitor' is not a product in the shop catalog of seed 101`
    ],
    [
      "product from another seed",
      (s) => (s.templates[6].instances[0].siteSeed = 7),
      `${FILE}: templates[6].instances[0].parameters.product: '`
    ],
    [
      "infeasible task naming a real product",
      (s) => (s.templates[10].instances[0].parameters.missing = shop.base(101).products[0]!.name),
      `${FILE}: templates[10].instances[0].parameters.missing: '`
    ],
    [
      "unknown parameter",
      (s) => (s.templates[0].instances[0].parameters.colour = "red"),
      `${FILE}: templates[0].instances[0].parameters.colour: unknown parameter 'colour' for site shop`
    ],
    [
      "bad quantity",
      (s) => (s.templates[5].instances[0].parameters.quantity = 0),
      `${FILE}: templates[5].instances[0].parameters.quantity: must be an integer from 1 to 99, got 0`
    ],
    [
      "train instance of a held-out template",
      (s) => (s.templates[4].instances[0].split = "train"),
      `${FILE}: templates[4].instances[0].split: template 'shop-change-name' is held out`
    ],
    [
      "unknown category (schema)",
      (s) => (s.templates[0].category = "chit-chat"),
      `${FILE}: templates[0].category: expected "navigation" | "search"`
    ],
    ["wrong version", (s) => (s.version = 2), `${FILE}: version: expected 1`],
    ["unknown field", (s) => (s.templates[0].instances[0].seed = 1), `${FILE}: templates[0].instances[0].seed: unknown field`],
    ["id that cannot be a stream token", (s) => (s.templates[0].instances[0].id = "a.b"), `${FILE}: templates[0].instances[0].id: `],
    ["no path families", (s) => (s.templates[0].pathFamilies = []), `${FILE}: templates[0].pathFamilies: needs at least one path family`]
  ]
  for (const [name, mutate, expected] of cases) {
    test(name, async () => {
      const message = await errorOf(mutate)
      expect(message.slice(0, expected.length)).toBe(expected)
      expect(message).not.toContain("\n")
    })
  }

  test("not JSON, and a missing file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "core-suite-"))
    const bad = join(dir, "broken.json")
    writeFileSync(bad, "{ not json")
    const e1 = await Effect.runPromise(Effect.flip(loadSuite(bad)))
    expect(e1.message).toStartWith(`${bad}: $: not valid JSON`)
    const e2 = await Effect.runPromise(Effect.flip(loadSuite(join(dir, "nope.json"))))
    expect(e2.message).toStartWith(`${join(dir, "nope.json")}: cannot read`)
    for (const m of [e1.message, e2.message]) expect(m).not.toContain("\n")
  })
})
