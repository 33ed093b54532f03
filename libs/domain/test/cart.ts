/**
 * A shop's quantity, as a demo set it and as another way does: 3 typed on the product's page
 * and then shown in the cart, or the product added first and 3 set in the cart. Shared by
 * the echo tests and the synthesis and data rules' cases.
 */
import type { LfElement } from "../LfTrajectory.ts"
import { act, el, trajectory } from "./fixtures.ts"

const PRODUCT = "/shop/product/red-kettle"
const cart = (quantity: string, item = "Red Kettle"): ReadonlyArray<LfElement> => [
  el("spinbutton", `Quantity for ${item}`, { value: quantity }),
  el("button", `Update quantity for ${item}`),
  el("link", "Proceed to checkout")
]
const checkout = [
  {
    action: act("click", { role: "link", name: "Proceed to checkout" }),
    urlAfter: "/shop/checkout",
    elements: [el("button", "Place order")]
  },
  {
    action: act("click", { role: "button", name: "Place order" }),
    urlAfter: "/shop/orders/O-1001?placed=1",
    elements: [el("link", "Red Kettle")]
  },
  { action: act("status", { status: "complete" }) }
]
const add = (count: number) => ({
  action: act("click", { role: "button", name: "Add to cart" }),
  urlAfter: `${PRODUCT}?added=cart`,
  elements: [el("link", `Cart (${count})`)]
})

/** The demo: 3 typed into "Quantity", added, the cart opened (it shows 3), then checkout. Key steps 0, 1, 4, 5. */
export const cartDemo = trajectory(PRODUCT, [
  { action: act("type", { role: "spinbutton", name: "Quantity", typed: "3" }), elements: [el("spinbutton", "Quantity", { value: "3" })] },
  add(3),
  { action: act("click", { role: "link", name: "Cart (3)" }), urlAfter: "/shop/cart", elements: cart("3") },
  ...checkout
])
export const CART_KEY_STEPS = [0, 1, 4, 5]

/** Another way: added with quantity 1, then 3 set in the cart and saved (`saved` false: typed, never saved). */
export const cartWay = (options: { readonly saved?: boolean; readonly item?: string } = {}) =>
  trajectory(PRODUCT, [
    add(1),
    { action: act("click", { role: "link", name: "Cart (1)" }), urlAfter: "/shop/cart", elements: cart("1", options.item) },
    {
      action: act("type", { role: "spinbutton", name: `Quantity for ${options.item ?? "Red Kettle"}`, typed: "3" }),
      elements: cart("3", options.item)
    },
    ...(options.saved === false
      ? []
      : [
          {
            action: act("click", { role: "button", name: `Update quantity for ${options.item ?? "Red Kettle"}` }),
            urlAfter: "/shop/cart?m=updated",
            elements: cart("3", options.item)
          }
        ]),
    ...checkout
  ])
