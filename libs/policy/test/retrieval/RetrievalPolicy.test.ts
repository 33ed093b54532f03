/**
 * Given a retrieval model trained on a few verified shop episodes, when it decides on live
 * pages (other element ids, another origin) for the trained instructions and for held-out
 * instances of their templates, then… — pure, so no mocks: the pages are element lists
 * shaped like env-web's.
 */
import { describe, expect, test } from "bun:test"
import { prng } from "@core/engine"
import type { Action } from "@core/events"
import { alignInstructions, modelDigestInput, rankRetrieval, retrievalAction, retrievalModelFromJson, trainRetrieval } from "../../mod.ts"
import type { RetrievalModel } from "../../mod.ts"
import { ANN, at, buyInstruction, site, trainingExamples } from "./shop.ts"
import type { Order } from "./shop.ts"

const seed = (i: number): string => new Bun.CryptoHasher("sha256").update(`retrieval-${i}`).digest("hex")
const model = trainRetrieval(trainingExamples())
const live = () => site("l-", "http://127.0.0.1:5200")

const decide = (m: RetrievalModel, input: Parameters<typeof retrievalAction>[1], i = 0): Action | null =>
  retrievalAction(m, input, prng(seed(i)))

const click = (role: string, name: string, id: string): Action => ({
  kind: "click",
  target: { role, name, elementId: id, text: role === "link" || role === "button" ? name : null }
})
const idOf = (
  p: { readonly elements: ReadonlyArray<{ readonly id: string; readonly role: string; readonly name: string }> },
  role: string,
  name: string
): string => p.elements.find((e) => e.role === role && e.name === name)!.id

/** A seeded shuffle, so order-independence is checked on a real permutation. */
const shuffled = <T>(xs: ReadonlyArray<T>, s: string): Array<T> => {
  const r = prng(s)
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r.float() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

describe("training", () => {
  test("is deterministic and independent of the examples' order", () => {
    const examples = trainingExamples()
    const again = trainRetrieval(shuffled(examples, seed(1)))
    expect(again).toEqual(model)
    expect(JSON.stringify(again)).toBe(JSON.stringify(model))
    expect(trainRetrieval([...examples].reverse())).toEqual(model)
  })

  test("its JSON is canonical, so the digest input is JSON.stringify of the model", () => {
    expect(JSON.stringify(model)).toBe(modelDigestInput(model))
    expect(modelDigestInput(retrievalModelFromJson(JSON.stringify(model)))).toBe(modelDigestInput(model))
  })

  test("drops element ids, merges identical examples by weight and skips weight 0", () => {
    const examples = trainingExamples()
    expect(JSON.stringify(model)).not.toContain('elementId":"r-')
    const doubled = trainRetrieval([...examples, ...examples.map((e) => ({ ...e, action: e.action }))])
    expect(doubled.examples.length).toBe(model.examples.length)
    expect(doubled.examples.every((e) => e.weight === 2)).toBe(true)
    expect(trainRetrieval([...examples, { ...examples[0]!, instruction: "Something else entirely.", weight: 0 }])).toEqual(model)
  })

  test("an action tied to its instance's data has low agreement; a templated one full", () => {
    const browse = model.examples.find((e) => e.instruction === "Open the product page of Lumen Classic Headphones." && e.step === 0)!
    expect(browse.action).toMatchObject({ kind: "click", target: { name: "Electronics" } })
    expect(browse.agreement).toBe(0)
    const addToCart = model.examples.find((e) => e.action.kind === "click" && e.action.target?.name === "Add to cart")!
    expect(addToCart.agreement).toBe(1)
  })

  test("rejects a negative weight or a fractional step", () => {
    const [e] = trainingExamples()
    expect(() => trainRetrieval([{ ...e!, weight: -1 }])).toThrow(RangeError)
    expect(() => trainRetrieval([{ ...e!, step: 1.5 }])).toThrow(RangeError)
    expect(() => retrievalModelFromJson(JSON.stringify({ version: "retrieval-v2" }))).toThrow("not a retrieval-v1 model")
  })
})

describe("alignment", () => {
  test("finds the substituted parameters, including the parts of a compound one", () => {
    const a = alignInstructions(
      buyInstruction(ANN),
      buyInstruction({
        ...ANN,
        product: "Northwind Steel Teapot",
        quantity: 2,
        name: "Noor Brooks",
        street: "12 Harbor Road",
        city: "Lakewood",
        zip: "60614"
      })
    )
    const subs = Object.fromEntries(a.substitutions.map((s) => [s.from.join(" "), s.to]))
    expect(subs).toMatchObject({
      "acme compact kettle": "Northwind Steel Teapot",
      "3": "2",
      "ann lee": "Noor Brooks",
      "1 main st": "12 Harbor Road",
      "main st": "Harbor Road",
      "springfield 12345": "Lakewood 60614",
      springfield: "Lakewood",
      "12345": "60614"
    })
    expect(a.similarity).toBeGreaterThan(0.8)
  })

  test("a quoted phrase is a parameter even in lower case; other wording is not", () => {
    const a = alignInstructions(
      'Post the comment "nice photo" on the post "Sunset".',
      'Post the comment "great work" on the post "Sunset".'
    )
    expect(a.substitutions).toEqual([{ from: ["nice", "photo"], to: "great work", strength: 1 }])
    const b = alignInstructions(
      "Open the Kitchen category page.",
      "Find the cheapest product in the Kitchen category and add it to my cart."
    )
    expect(b.substitutions).toEqual([])
    expect(b.similarity).toBeLessThan(0.5)
  })
})

describe("same instruction, new episode", () => {
  test("reproduces each recorded action on pages with other element ids", () => {
    const s = live()
    const home = s.home()
    expect(decide(model, at("Open the Electronics category page.", home))).toEqual(
      click("link", "Electronics", idOf(home, "link", "Electronics"))
    )
    const results = s.search("Acme Compact Kettle", ["Acme Compact Kettle", "Acme Wooden Chess Set"])
    const typed: Action = {
      kind: "type",
      target: { role: "searchbox", name: "Search products", elementId: "x", text: null },
      text: "Acme Compact Kettle",
      submit: true
    }
    expect(decide(model, at("Open the product page of Acme Compact Kettle.", results, [typed]))).toEqual(
      click("link", "Acme Compact Kettle", idOf(results, "link", "Acme Compact Kettle"))
    )
  })

  test("declares the task complete on the final page and answers a question there", () => {
    const s = live()
    const history: Array<Action> = [click("link", "Electronics", "x")]
    expect(decide(model, at("Open the Electronics category page.", s.category("Electronics"), history))).toEqual({
      kind: "status",
      status: "complete"
    })
    const steps: Array<Action> = [
      {
        kind: "type",
        target: { role: "searchbox", name: "Search products", elementId: "x", text: null },
        text: "Harbor Pocket Atlas",
        submit: true
      },
      click("link", "Harbor Pocket Atlas", "y")
    ]
    expect(decide(model, at("Which category is Harbor Pocket Atlas in?", s.product("Harbor Pocket Atlas"), steps))).toEqual({
      kind: "answer",
      text: "Harbor Pocket Atlas is in Books."
    })
  })
})

describe("held-out parameter values", () => {
  test("a category link: the recorded Electronics becomes Kitchen, grounded on the live page, then complete", () => {
    const s = live()
    const home = s.home()
    const first = decide(model, at("Open the Kitchen category page.", home))
    expect(first).toEqual(click("link", "Kitchen", idOf(home, "link", "Kitchen")))
    expect(decide(model, at("Open the Kitchen category page.", s.category("Kitchen"), [first!]))).toEqual({
      kind: "status",
      status: "complete"
    })
  })

  test("a product search: the new product is typed, then its link in the results is clicked", () => {
    const s = live()
    const home = s.home()
    const instruction = "Open the product page of Northwind Steel Teapot."
    const typed = decide(model, at(instruction, home))
    expect(typed).toEqual({
      kind: "type",
      target: { role: "searchbox", name: "Search products", elementId: idOf(home, "searchbox", "Search products"), text: null },
      text: "Northwind Steel Teapot",
      submit: true
    })
    const results = s.search("Northwind Steel Teapot", ["Acme Compact Kettle", "Northwind Steel Teapot"])
    expect(decide(model, at(instruction, results, [typed!]))).toEqual(
      click("link", "Northwind Steel Teapot", idOf(results, "link", "Northwind Steel Teapot"))
    )
  })

  test("the browse path's category, which the instruction does not name, loses to the search path", () => {
    const ranked = rankRetrieval(model, at("Open the product page of Northwind Steel Teapot.", live().home()))
    expect(ranked[0]!.action.kind).toBe("type")
    expect(ranked.some((c) => c.action.kind === "click" && c.action.target?.name === "Electronics")).toBe(false)
  })

  test("a purchase for another order: quantity, address fields and shipping carry the new values", () => {
    const s = live()
    const order: Order = {
      product: "Northwind Steel Teapot",
      quantity: 4,
      shipping: "standard",
      name: "Noor Brooks",
      street: "12 Harbor Road",
      city: "Lakewood",
      zip: "60614"
    }
    const instruction = buyInstruction(order)
    const product = s.product(order.product)
    const search: Action = {
      kind: "type",
      target: { role: "searchbox", name: "Search products", elementId: "a", text: null },
      text: order.product,
      submit: true
    }
    const open = click("link", order.product, "b")
    expect(decide(model, at(instruction, product, [search, open]))).toMatchObject({ kind: "type", target: { name: "Quantity" }, text: "4" })
    const history: Array<Action> = [
      search,
      open,
      { kind: "type", target: { role: "spinbutton", name: "Quantity", elementId: "c", text: null }, text: "4" },
      click("button", "Add to cart", "d"),
      click("link", "Cart (1)", "e"),
      click("link", "Proceed to checkout", "f")
    ]
    const checkout = s.checkout()
    expect(decide(model, at(instruction, checkout, history))).toMatchObject({
      kind: "type",
      target: { name: "Full name", elementId: idOf(checkout, "textbox", "Full name") },
      text: "Noor Brooks"
    })
    const fields: Array<[string, string]> = [
      ["Full name", "Noor Brooks"],
      ["Street address", "12 Harbor Road"],
      ["City", "Lakewood"],
      ["Postal code", "60614"]
    ]
    const filled: Record<string, string> = {}
    const done = [...history]
    for (const [field, value] of fields) {
      const a = decide(model, at(instruction, s.checkout({ ...filled }), done))
      expect(a).toMatchObject({ kind: "type", target: { name: field }, text: value })
      filled[field] = value
      done.push(a!)
    }
    // "standard" for the recorded "express": its radio is found by the substituted word, not the recorded price
    const unchecked = s.checkout(filled)
    const radios = { ...unchecked, elements: unchecked.elements.map((e) => (e.role === "radio" ? { ...e, checked: false } : e)) }
    expect(decide(model, at(instruction, radios, done))).toMatchObject({
      kind: "click",
      target: { role: "radio", name: "Standard shipping (free)" }
    })
    // already chosen by default: on to the order
    expect(decide(model, at(instruction, s.checkout(filled), done))).toMatchObject({ kind: "click", target: { name: "Place order" } })
  })
})

describe("no confident match", () => {
  test("an ungroundable target falls through to the next example, then to null", () => {
    const s = live()
    const instruction = "Open the product page of Lumen Classic Headphones."
    // its browse example clicks Electronics; without a search box that is the one left
    const noSearch = s.home(0, { search: false })
    expect(decide(model, at(instruction, noSearch))).toEqual(click("link", "Electronics", idOf(noSearch, "link", "Electronics")))
    expect(decide(model, at(instruction, s.home(0, { search: false, categories: false })))).toBeNull()
    // a held-out product missing from the results is not swapped for another one
    const results = s.search("Northwind Steel Teapot", ["Acme Compact Kettle"])
    const typed: Action = {
      kind: "type",
      target: { role: "searchbox", name: "Search products", elementId: "x", text: null },
      text: "Northwind Steel Teapot",
      submit: true
    }
    expect(decide(model, at("Open the product page of Northwind Steel Teapot.", results, [typed]))).toBeNull()
  })

  test("an unrelated instruction returns null", () => {
    const s = live()
    expect(decide(model, at('Delete my post "Morning run" in the Running board.', s.home()))).toBeNull()
    expect(decide(model, at("How many customer reviews does Acme Compact Kettle have?", s.product("Acme Compact Kettle")))).toBeNull()
    expect(decide(trainRetrieval([]), at("Open the Kitchen category page.", s.home()))).toBeNull()
  })

  test("a status is not declared on a page unlike the one it was recorded on", () => {
    expect(decide(model, at("Open the Kitchen category page.", live().home(0, { categories: false })))).toBeNull()
  })

  test("an action the history already shows is not repeated", () => {
    // the click did not navigate (still the home page): doing it again is a loop, not progress
    const home = live().home()
    expect(decide(model, at("Open the Kitchen category page.", home, [click("link", "Kitchen", "x")]))).toBeNull()
  })
})

describe("draws", () => {
  test("the same seed gives the same action; greedy behaviour dominates over seeds", () => {
    const input = at("Open the product page of Northwind Steel Teapot.", live().home())
    expect(decide(model, input, 3)).toEqual(decide(model, input, 3))
    const kinds = Array.from({ length: 200 }, (_, i) => decide(model, input, i)!.kind)
    expect(kinds.filter((k) => k === "type").length).toBeGreaterThanOrEqual(180)
  })

  test("a model read back from JSON decides the same on every input and seed", () => {
    const back = retrievalModelFromJson(JSON.stringify(model))
    const s = live()
    const inputs = [
      at("Open the Kitchen category page.", s.home()),
      at("Open the product page of Northwind Steel Teapot.", s.home()),
      at("Open the Electronics category page.", s.category("Electronics"), [click("link", "Electronics", "x")]),
      at(buyInstruction({ ...ANN, city: "Fairview" }), s.checkout({ "Full name": "Ann Lee", "Street address": "1 Main St" }), []),
      at('Delete my post "Morning run".', s.home())
    ]
    for (const input of inputs) {
      for (let i = 0; i < 20; i++) expect(decide(back, input, i)).toEqual(decide(model, input, i))
    }
  })
})

describe("passwords", () => {
  const login = (prefix: string) => {
    const base = { text: "", visible: true, enabled: true, checked: null }
    return {
      url: "http://127.0.0.1:5200/shop/login",
      elements: [
        { ...base, id: `${prefix}1`, role: "textbox", name: "Password", value: "", editable: true },
        { ...base, id: `${prefix}2`, role: "button", name: "Sign in", text: "Sign in", value: null, editable: false }
      ]
    }
  }
  test("a password recorded by reference is typed by reference again, into an empty field too", () => {
    const typed = (elementId: string): Action => ({
      kind: "type",
      target: { role: "textbox", name: "Password", elementId, text: null },
      text: "",
      secretEnv: "CORE_DEMO_PASSWORD"
    })
    const m = trainRetrieval([{ instruction: "Sign in to the shop.", url: login("r-").url, step: 0, history: [], action: typed("r-1") }])
    expect(decide(m, at("Sign in to the shop.", login("l-")))).toEqual(typed("l-1"))
  })
})

describe("typing at the cursor", () => {
  test("an insert is reused as an insert, even when the field already holds its text", () => {
    const base = { text: "", visible: true, enabled: true, checked: null, editable: true }
    const page = (prefix: string) => ({
      url: "http://127.0.0.1:5200/wiki/edit",
      elements: [{ ...base, id: `${prefix}1`, role: "textbox", name: "Body", value: "Ship on Fridays" }]
    })
    const insert = (elementId: string): Action => ({
      kind: "type",
      target: { role: "textbox", name: "Body", elementId, text: null },
      text: "Ship on Fridays",
      mode: "insert"
    })
    const m = trainRetrieval([
      { instruction: "Add the shipping line to the page.", url: page("r-").url, step: 0, history: [], action: insert("r-1") }
    ])
    expect(decide(m, at("Add the shipping line to the page.", page("l-")))).toEqual(insert("l-1"))
  })
})
