/**
 * Embedded extrapolation: given a template task's demo and a trajectory, when the
 * trajectory did the demo's key steps with another parameter value, then it is that
 * template's task with the value; otherwise nothing.
 */
import { describe, expect, test } from "bun:test"
import type { Action } from "@core/events"
import { extrapolate, extrapolatedTaskId, pageShape } from "../mod.ts"
import type { ExtrapolationStep, TemplateTask } from "../mod.ts"

const O = "http://127.0.0.1:4000"
const link = (name: string): Action => ({ kind: "click", target: { role: "link", name, elementId: "e1", text: name } })
const button = (name: string): Action => ({ kind: "click", target: { role: "button", name, elementId: "e2", text: name } })
const search = (text: string): Action => ({
  kind: "type",
  target: { role: "searchbox", name: "Search products", elementId: "e3", text: null },
  text,
  submit: true
})
const complete: Action = { kind: "status", status: "complete" }
const step = (action: Action, url: string, after = ""): ExtrapolationStep => ({
  action,
  urlBefore: `${O}${url}`,
  urlAfter: `${O}${after || url}`
})

const openCategory: TemplateTask = {
  taskId: "shop-open-category-1",
  instruction: "Open the Electronics category page.",
  template: { id: "shop-open-category", parameters: { category: "Electronics" } },
  demo: { steps: [step(link("Electronics"), "/shop/", "/shop/category/3"), step(complete, "/shop/category/3")], keySteps: [0, 1] }
}

const openProduct: TemplateTask = {
  taskId: "shop-open-product-1",
  instruction: "Open the product page of Blue Mug.",
  template: { id: "shop-open-product", parameters: { product: "Blue Mug" } },
  demo: {
    steps: [
      step(search("Blue Mug"), "/shop/", "/shop/search?q=Blue+Mug"),
      step(link("Blue Mug"), "/shop/search?q=Blue+Mug", "/shop/product/7"),
      step(complete, "/shop/product/7")
    ],
    keySteps: [0, 1, 2]
  }
}

describe("extrapolate", () => {
  test("given a failed run that opened another category and claimed completion, then it is the template's task with that category", () => {
    const failed = [
      step(link("About"), "/shop/", "/shop/about"),
      step(back(), "/shop/about", "/shop/"),
      step(link("Kitchen"), "/shop/", "/shop/category/5"),
      step(complete, "/shop/category/5")
    ]
    const x = extrapolate(failed, openCategory)
    expect(x).toEqual({
      parentTaskId: "shop-open-category-1",
      instruction: "Open the Kitchen category page.",
      template: { id: "shop-open-category", parameters: { category: "Kitchen" } },
      substitutions: [{ parameter: "category", from: "Electronics", to: "Kitchen" }],
      steps: 4,
      matched: [2]
    })
  })

  test("given a passing run of another task that searched and opened a product on the way, then the sub-goal is a new product-page task ending at that step", () => {
    const buy = [
      step(search("Red Pen"), "/shop/", "/shop/search?q=Red+Pen"),
      step(link("Red Pen"), "/shop/search?q=Red+Pen", "/shop/product/9"),
      step(button("Add to cart"), "/shop/product/9"),
      step(link("Cart (1)"), "/shop/product/9", "/shop/cart"),
      step(complete, "/shop/cart")
    ]
    const x = extrapolate(buy, openProduct)
    expect(x?.instruction).toBe("Open the product page of Red Pen.")
    expect(x?.steps).toBe(2)
  })

  test("given the same value as the parent's, then nothing new is found", () => {
    expect(
      extrapolate([step(link("Electronics"), "/shop/", "/shop/category/3"), step(complete, "/shop/category/3")], openCategory)
    ).toBeNull()
  })

  test("given a fixed step missing, a parameter bound to two values, or a page of another shape, then no task", () => {
    // typed one product, opened another: the parameter cannot be both
    expect(
      extrapolate(
        [
          step(search("Red Pen"), "/shop/", "/shop/search?q=Red+Pen"),
          step(link("Green Cup"), "/shop/search?q=Red+Pen", "/shop/product/2"),
          step(complete, "/shop/product/2")
        ],
        openProduct
      )
    ).toBeNull()
    // the category link clicked on a product page is not the home page's category link
    expect(
      extrapolate([step(link("Kitchen"), "/shop/product/4", "/shop/category/5"), step(complete, "/shop/category/5")], openCategory)
    ).toBeNull()
    // a link on the home page that leads to a product is not a category link
    expect(
      extrapolate([step(link("Kestrel Travel Stockpot"), "/shop/", "/shop/product/12"), step(complete, "/shop/product/12")], openCategory)
    ).toBeNull()
    // no search at all
    expect(extrapolate([step(link("Red Pen"), "/shop/search?q=x")], openProduct)).toBeNull()
  })

  test("given a task that closes with an answer or infeasible, or one without a template, then it is never extrapolated", () => {
    const answer: TemplateTask = {
      ...openCategory,
      demo: {
        steps: [step(link("Electronics"), "/shop/", "/shop/category/3"), step({ kind: "answer", text: "12" }, "/shop/category/3")],
        keySteps: [0, 1]
      }
    }
    expect(
      extrapolate([step(link("Kitchen"), "/shop/", "/shop/category/5"), step({ kind: "answer", text: "4" }, "/shop/category/5")], answer)
    ).toBeNull()
    expect(
      extrapolate([step(link("Kitchen"), "/shop/", "/shop/category/5"), step(complete, "/shop/category/5")], {
        ...openCategory,
        template: null
      })
    ).toBeNull()
  })

  test("page shapes keep the kind of page, not which one; task ids are stable", () => {
    expect(pageShape(`${O}/shop/product/17?tab=reviews`)).toBe("/shop/product/*")
    expect(pageShape(`${O}/shop/category/kitchen`)).toBe(pageShape(`${O}/shop/category/3`))
    expect(pageShape(`${O}/shop/cart`)).not.toBe(pageShape(`${O}/shop/about`))
    expect(extrapolatedTaskId("shop-open-category-1", "0123456789abcdef")).toBe("shop-open-category-1-x01234567")
  })
})

function back(): Action {
  return { kind: "back" }
}
