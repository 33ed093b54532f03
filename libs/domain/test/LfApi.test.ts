import { describe, expect, test } from "bun:test"
import { LF_API_DOCS, LF_API_NAMES, LF_GUIDE, lfApiGuide, nativeLabelFunction } from "../mod.ts"
import { act, buyDemo, el, trajectory } from "./fixtures.ts"

const run = (body: string, t = buyDemo()) => nativeLabelFunction(`function labelFunction(t) { return ${body} }`)(t)

describe("LF API: every helper returns the satisfying step or -1", () => {
  test("validateClick matches role and normalised name, honours urlBefore / urlAfter / where", () => {
    expect(run(`validateClick(t, "button", "add  to CART")`)).toBe(5)
    expect(run(`validateClick(t, "link", "Add to cart")`)).toBe(-1)
    expect(run(`validateClick(t, "button", "Add to cart", { urlBefore: "^/shop/product/red-kettle(\\\\?.*)?$" })`)).toBe(5)
    expect(run(`validateClick(t, "button", "Add to cart", { urlBefore: "^/shop/product/blue-kettle" })`)).toBe(-1)
    expect(run(`validateClick(t, "button", "Add to cart", { urlAfter: "added=cart" })`)).toBe(5)
    expect(
      run(`validateClick(t, "radio", "Express", { where: function (s) { return hasElement(s, "radio", "Express", { checked: true }) } })`)
    ).toBe(9)
    expect(
      run(`validateClick(t, "radio", "Express", { where: function (s) { return hasElement(s, "radio", "Express", { checked: false }) } })`)
    ).toBe(-1)
    expect(run(`validateClick(t, null, /^Cart \\(\\d+\\)$/)`)).toBe(6)
  })

  test("validateType / validateSelect / validateKey", () => {
    expect(run(`validateType(t, "2", "Quantity")`)).toBe(3)
    expect(run(`validateType(t, "3", "Quantity")`)).toBe(-1)
    expect(run(`validateType(t, "red kettle", "Search products", { submit: true })`)).toBe(0)
    expect(run(`validateType(t, "red kettle", "Search products", { submit: false })`)).toBe(-1)
    expect(run(`validateKey(t, "Enter")`)).toBe(0)
    const sel = trajectory("/a", [{ action: act("select", { role: "combobox", name: "Sort by", value: "price-asc" }) }])
    expect(run(`validateSelect(t, "price-asc", "Sort by")`, sel)).toBe(0)
    expect(run(`validateSelect(t, "price-desc", "Sort by")`, sel)).toBe(-1)
  })

  test("validateUrl, validateElement and the from option", () => {
    expect(run(`validateUrl(t, "^/shop/cart(\\\\?.*)?$")`)).toBe(6)
    expect(run(`validateUrl(t, "^/shop/orders/O-\\\\d+")`)).toBe(10)
    expect(run(`validateUrl(t, "^/shop/cart", { from: 7 })`)).toBe(-1)
    expect(run(`validateElement(t, "link", "Cart (2)")`)).toBe(5)
    expect(run(`validateElement(t, "spinbutton", "Quantity", { value: "2" })`)).toBe(3)
    expect(run(`validateElement(t, "spinbutton", "Quantity", { value: "5" })`)).toBe(-1)
  })

  test("validateAnswer compares numbers as numbers and reads only the last answer; validateStatus the last status", () => {
    const t = trajectory("/", [
      { action: act("answer", { answer: "about 40" }) },
      { action: act("answer", { answer: "$1,299.50" }) },
      { action: act("status", { status: "infeasible" }) },
      { action: act("status", { status: "complete" }) }
    ])
    expect(run(`validateAnswer(t, "1299.5")`, t)).toBe(1)
    expect(run(`validateAnswer(t, "$1,299.50")`, t)).toBe(1)
    expect(run(`validateAnswer(t, "about 40")`, t)).toBe(-1)
    expect(run(`validateAnswer(t, /1,299/)`, t)).toBe(1)
    expect(run(`validateStatus(t, "complete")`, t)).toBe(3)
    expect(run(`validateStatus(t, "infeasible")`, t)).toBe(-1)
    expect(run(`validateAnswer(t, "x")`, trajectory("/", []))).toBe(-1)
  })

  test("ordering helpers: inOrder, allOf, anyOf, after, fromStep keep the trajectory's own indices", () => {
    expect(run(`inOrder(validateType(t, "2", "Quantity"), validateClick(t, "button", "Add to cart"))`)).toBe(5)
    expect(run(`inOrder(validateClick(t, "button", "Add to cart"), validateType(t, "2", "Quantity"))`)).toBe(-1)
    expect(run(`allOf(validateClick(t, "button", "Add to cart"), validateType(t, "2", "Quantity"))`)).toBe(5)
    expect(run(`allOf(validateClick(t, "button", "Nope"), 3)`)).toBe(-1)
    expect(run(`anyOf(-1, validateType(t, "2", "Quantity"), 7)`)).toBe(3)
    expect(
      run(`after(validateClick(t, "button", "Add to cart"), function (from) { return validateUrl(t, "^/shop/checkout", { from: from }) })`)
    ).toBe(7)
    expect(run(`after(-1, function () { return 4 })`)).toBe(-1)
    expect(run(`validateUrl(fromStep(t, 8), "^/shop/")`)).toBe(8)
  })

  test("the documented names exist, and the guide documents each helper", () => {
    for (const name of [
      "validateClick",
      "validateType",
      "validateSelect",
      "validateKey",
      "validateUrl",
      "validateElement",
      "validateAnswer",
      "validateStatus",
      "inOrder",
      "after"
    ]) {
      expect(LF_API_NAMES).toContain(name)
      expect(LF_API_DOCS).toContain(`\`${name}(`)
    }
    expect(el("link", "x").role).toBe("link")
  })
})

test("a run shows a model the guide version it recorded; runs from before versions saw version 1, unchanged", () => {
  const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex")
  // Version 1 is part of recorded prompts: any edit would make old model runs diverge on replay.
  expect(sha(lfApiGuide(undefined))).toBe("d078d05a76a0d0357bb1c83f112f2c3a5b617cc558d8a3439fd05c1c19187587")
  expect(lfApiGuide("1")).toBe(lfApiGuide(undefined))
  expect(lfApiGuide(LF_GUIDE.current)).toBe(LF_API_DOCS)
  expect(LF_API_DOCS).toContain('mode: "insert"')
  expect(lfApiGuide("1")).not.toContain('mode: "insert"')
  expect(lfApiGuide("no such version")).toBe(lfApiGuide("1"))
})
