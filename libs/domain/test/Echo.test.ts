/** Given a demo's fill, when the demo loads a page that shows the value again, then that is its echo. */
import { describe, expect, test } from "bun:test"
import { echoOf, showsEchoOf } from "../Echo.ts"
import { act, el, trajectory } from "./fixtures.ts"
import { cartDemo, cartWay } from "./cart.ts"

const typed = (value: string, shown: ReadonlyArray<ReturnType<typeof el>>, loads = true) =>
  trajectory("/form", [
    { action: act("type", { role: "textbox", name: "Name", typed: value }), elements: [el("textbox", "Name", { value })] },
    { action: act("click", { role: "button", name: "Save" }), urlAfter: loads ? "/saved" : "/form", elements: shown },
    { action: act("status", { status: "complete" }) }
  ])

describe("the echo of a fill", () => {
  test("the cart page the demo opened shows the quantity in a field named for the item", () => {
    expect(echoOf(cartDemo, cartDemo.steps[0]!)).toEqual({
      stepIndex: 2,
      role: "spinbutton",
      name: "Quantity for Red Kettle",
      value: "3",
      page: "/shop/cart"
    })
  })

  const cases: ReadonlyArray<readonly [string, boolean, ReturnType<typeof typed>]> = [
    ["a field named for it and an item, on a loaded page", true, typed("Ada", [el("textbox", "Name for guest 1", { value: "Ada" })])],
    ["the field itself shown again (a form re-shown) is no record", false, typed("Ada", [el("textbox", "Name", { value: "Ada" })])],
    ["another value", false, typed("Ada", [el("textbox", "Name for guest 1", { value: "Bea" })])],
    ["another role", false, typed("Ada", [el("link", "Name for guest 1", { value: "Ada" })])],
    ["a name that only ends like it", false, typed("Ada", [el("textbox", "Guest Name", { value: "Ada" })])],
    ["the page never left", false, typed("Ada", [el("textbox", "Name for guest 1", { value: "Ada" })], false)]
  ]
  test.each(cases)("%s → %p", (_, found, t) => {
    expect(echoOf(t, t.steps[0]!) !== null).toBe(found)
  })

  test("a click is no fill, and the claim has none", () => {
    expect(echoOf(cartDemo, cartDemo.steps[1]!)).toBe(null)
    expect(echoOf(cartDemo, cartDemo.steps.at(-1)!)).toBe(null)
  })
})

test("a step shows the echo of a node's field when a field of its role is named for it and more", () => {
  const way = cartWay()
  const key = { role: "spinbutton", name: "quantity" }
  expect(way.steps.map((s) => showsEchoOf(s, key))).toEqual([false, true, true, true, false, false, false])
  expect(showsEchoOf(way.steps[1]!, { role: "textbox", name: "quantity" })).toBe(false)
})
