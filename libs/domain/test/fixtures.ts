/** Small hand-written trajectories in the shape env-web records (see LfTrajectory.ts). */
import type { LfAction, LfElement, LfStep, LfTrajectory } from "../LfTrajectory.ts"

const none: Omit<LfAction, "kind"> = {
  role: null,
  name: null,
  text: null,
  typed: null,
  submit: false,
  value: null,
  key: null,
  url: null,
  direction: null,
  answer: null,
  status: null,
  app: null
}

export const act = (kind: LfAction["kind"], fields: Partial<LfAction> = {}): LfAction => ({ ...none, ...fields, kind })

export const el = (role: string, name: string, more: Partial<LfElement> = {}): LfElement => ({
  role,
  name,
  text: name,
  value: null,
  checked: null,
  ...more
})

export const trajectory = (
  startUrl: string,
  steps: ReadonlyArray<{ action: LfAction; urlAfter?: string; elements?: ReadonlyArray<LfElement> }>,
  initialElements: ReadonlyArray<LfElement> | null = null
): LfTrajectory => {
  let url = startUrl
  const out: Array<LfStep> = []
  steps.forEach((s, index) => {
    const urlAfter = s.urlAfter ?? url
    out.push({
      index,
      action: s.action,
      urlBefore: url,
      urlAfter,
      appBefore: null,
      appAfter: null,
      elements: s.elements ?? [],
      error: null
    })
    url = urlAfter
  })
  return { steps: out, startUrl, initialElements }
}

const nav = [el("link", "Home"), el("link", "Cart (0)"), el("searchbox", "Search products", { value: "" })]

/** Search a product, set quantity, add it to the cart, check out with a name, place the order. */
export const buyDemo = (product = "Red Kettle", slug = "red-kettle", quantity = "2"): LfTrajectory =>
  trajectory(
    "/shop/",
    [
      {
        action: act("type", { role: "searchbox", name: "Search products", typed: product, submit: true }),
        urlAfter: `/shop/search?q=${product.replace(/ /g, "+")}`,
        elements: [...nav, el("link", product)]
      },
      {
        action: act("click", { role: "link", name: product, text: product }),
        urlAfter: `/shop/product/${slug}`,
        elements: [...nav, el("spinbutton", "Quantity", { value: "1" }), el("button", "Add to cart")]
      },
      {
        action: act("click", { role: "spinbutton", name: "Quantity" }),
        elements: [...nav, el("spinbutton", "Quantity", { value: "1" }), el("button", "Add to cart")]
      },
      {
        action: act("type", { role: "spinbutton", name: "Quantity", typed: quantity }),
        elements: [...nav, el("spinbutton", "Quantity", { value: quantity }), el("button", "Add to cart")]
      },
      {
        action: act("scroll", { direction: "down" }),
        elements: [...nav, el("spinbutton", "Quantity", { value: quantity }), el("button", "Add to cart")]
      },
      {
        action: act("click", { role: "button", name: "Add to cart", text: "Add to cart" }),
        urlAfter: `/shop/product/${slug}?added=cart`,
        elements: [el("link", "Home"), el("link", `Cart (${quantity})`)]
      },
      {
        action: act("click", { role: "link", name: `Cart (${quantity})` }),
        urlAfter: "/shop/cart",
        elements: [el("link", "Proceed to checkout")]
      },
      {
        action: act("click", { role: "link", name: "Proceed to checkout" }),
        urlAfter: "/shop/checkout",
        elements: [el("textbox", "Full name", { value: "" }), el("radio", "Express", { checked: false }), el("button", "Place order")]
      },
      {
        action: act("type", { role: "textbox", name: "Full name", typed: "Noor Alvarez" }),
        elements: [
          el("textbox", "Full name", { value: "Noor Alvarez" }),
          el("radio", "Express", { checked: false }),
          el("button", "Place order")
        ]
      },
      {
        action: act("click", { role: "radio", name: "Express" }),
        elements: [
          el("textbox", "Full name", { value: "Noor Alvarez" }),
          el("radio", "Express", { checked: true }),
          el("button", "Place order")
        ]
      },
      {
        action: act("click", { role: "button", name: "Place order", text: "Place order" }),
        urlAfter: "/shop/orders/O-1001?placed=1",
        elements: [el("link", "Home")]
      },
      { action: act("status", { status: "complete" }) }
    ],
    nav
  )
