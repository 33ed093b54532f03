/**
 * A small shop as the policy sees it: pages as element lists (the shapes env-web extracts,
 * names as the bundled shop renders them) and verified episodes over them. Each episode
 * and each live page numbers its elements under its own prefix, as a new browser context
 * would, so a recorded element id never names a live element.
 */
import type { Action } from "@core/events"
import type { PolicyElement, PolicyHistoryStep, PolicyInput } from "@core/policy"
import { describeAction } from "../../mod.ts"
import type { RetrievalExample } from "../../mod.ts"

export const CATEGORIES = ["Kitchen", "Electronics", "Books", "Toys & Games"] as const
export const PRODUCTS: Readonly<Record<string, string>> = {
  "Acme Compact Kettle": "Kitchen",
  "Northwind Steel Teapot": "Kitchen",
  "Lumen Classic Headphones": "Electronics",
  "Harbor Pocket Atlas": "Books",
  "Acme Wooden Chess Set": "Toys & Games"
}
const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")

export type Page = { readonly url: string; readonly elements: ReadonlyArray<PolicyElement> }

/** Builds pages whose element ids all start with `prefix`. */
export const site = (prefix: string, origin = "http://127.0.0.1:4100") => {
  let n = 0
  const el = (role: string, name: string, more: Partial<PolicyElement> = {}): PolicyElement => ({
    id: `${prefix}${n++}`,
    role,
    name,
    text: role === "link" || role === "button" ? name : "",
    value: null,
    visible: true,
    enabled: true,
    editable: false,
    checked: null,
    ...more
  })
  const field = (role: string, name: string, value = ""): PolicyElement => el(role, name, { editable: true, value })
  const header = (cart: number, query = ""): Array<PolicyElement> => [
    el("link", "CORE Shop home"),
    el("link", "Wish list (0)"),
    el("link", `Cart (${cart})`),
    el("link", "Account"),
    ...CATEGORIES.map((c) => el("link", c)),
    field("searchbox", "Search products", query),
    el("button", "Search")
  ]
  const page = (path: string, elements: ReadonlyArray<PolicyElement>): Page => ({ url: `${origin}/shop${path}`, elements })
  return {
    home: (cart = 0, options: { readonly search?: boolean; readonly categories?: boolean } = {}) =>
      page("/", [
        ...header(cart).filter(
          (e) =>
            (options.search !== false || e.role !== "searchbox") && (options.categories !== false || !CATEGORIES.includes(e.name as never))
        ),
        el("link", "Acme Compact Kettle"),
        el("link", "Lumen Classic Headphones")
      ]),
    category: (name: string) =>
      page(`/category/${slug(name)}`, [
        ...header(0),
        el("combobox", "Sort by", { value: "Featured" }),
        ...Object.keys(PRODUCTS)
          .filter((p) => PRODUCTS[p] === name)
          .map((p) => el("link", p)),
        el("link", "Next page")
      ]),
    search: (query: string, results: ReadonlyArray<string>) =>
      page(`/search?q=${encodeURIComponent(query).replace(/%20/g, "+")}`, [
        ...header(0, query),
        el("button", "Apply filters"),
        ...results.map((p) => el("link", p))
      ]),
    product: (name: string, cart = 0) =>
      page(`/product/${slug(name)}`, [
        ...header(cart),
        el("link", PRODUCTS[name] ?? "Kitchen"),
        field("spinbutton", "Quantity", "1"),
        el("button", "Add to cart"),
        el("button", "Add to wish list")
      ]),
    cart: (count: number) => page("/cart", [...header(count), el("link", "Proceed to checkout")]),
    checkout: (filled: Readonly<Record<string, string>> = {}) =>
      page("/checkout", [
        ...header(1),
        ...["Full name", "Street address", "City", "Postal code"].map((f) => field("textbox", f, filled[f] ?? "")),
        el("radio", "Standard shipping (free)", { checked: true }),
        el("radio", "Express shipping ($12.00)", { checked: false }),
        el("button", "Place order")
      ]),
    order: () => page("/order/O-1001", [...header(0), el("link", "Continue shopping")])
  }
}

const find = (p: Page, role: string, name: string): PolicyElement => {
  const e = p.elements.find((x) => x.role === role && x.name === name)
  if (e === undefined) throw new Error(`no ${role} '${name}' on ${p.url}`)
  return e
}
const target = (e: PolicyElement) => ({ role: e.role, name: e.name, elementId: e.id, text: e.text === "" ? null : e.text })

/** The actions a recorded step can take on its page. */
export const act = {
  click:
    (role: string, name: string) =>
    (p: Page): Action => ({ kind: "click", target: target(find(p, role, name)) }),
  type:
    (role: string, name: string, text: string, submit?: boolean) =>
    (p: Page): Action =>
      submit === undefined
        ? { kind: "type", target: target(find(p, role, name)), text }
        : { kind: "type", target: target(find(p, role, name)), text, submit },
  done: () => (): Action => ({ kind: "status", status: "complete" }),
  answer: (text: string) => (): Action => ({ kind: "answer", text })
}

export type Step = readonly [Page, (p: Page) => Action]

/** A verified episode's dataset examples: one per step, with the descriptions of the steps before it. */
export const episode = (instruction: string, steps: ReadonlyArray<Step>): ReadonlyArray<RetrievalExample> => {
  const actions = steps.map(([p, f]) => f(p))
  return steps.map(([p], i) => ({
    instruction,
    url: p.url,
    step: i,
    history: actions.slice(0, i).map(describeAction),
    action: actions[i]!
  }))
}

const openCategory = (name: string, s = site(`r-${slug(name)}-`)) =>
  episode(`Open the ${name} category page.`, [
    [s.home(), act.click("link", name)],
    [s.category(name), act.done()]
  ])

/** Search path: the product by name, then its link in the results. */
const openProductBySearch = (name: string, s = site(`r-search-${slug(name)}-`)) =>
  episode(`Open the product page of ${name}.`, [
    [s.home(), act.type("searchbox", "Search products", name, true)],
    [s.search(name, [name]), act.click("link", name)],
    [s.product(name), act.done()]
  ])

/** Browse path: the product's category (which the instruction does not name), then the product. */
const openProductByBrowsing = (name: string, s = site(`r-browse-${slug(name)}-`)) =>
  episode(`Open the product page of ${name}.`, [
    [s.home(), act.click("link", PRODUCTS[name]!)],
    [s.category(PRODUCTS[name]!), act.click("link", name)],
    [s.product(name), act.done()]
  ])

export interface Order {
  readonly product: string
  readonly quantity: number
  readonly shipping: "standard" | "express"
  readonly name: string
  readonly street: string
  readonly city: string
  readonly zip: string
}

export const buyInstruction = (o: Order): string =>
  `Buy ${o.quantity} of ${o.product} with ${o.shipping} shipping to ${o.name}, ${o.street}, ${o.city} ${o.zip}.`

const buy = (o: Order, s = site(`r-buy-${slug(o.product)}-`)) => {
  const filled: Record<string, string> = {}
  const fill = (field: string, value: string): Step => {
    const before = s.checkout({ ...filled })
    filled[field] = value
    return [before, act.type("textbox", field, value)]
  }
  return episode(buyInstruction(o), [
    [s.home(), act.type("searchbox", "Search products", o.product, true)],
    [s.search(o.product, [o.product]), act.click("link", o.product)],
    [s.product(o.product), act.type("spinbutton", "Quantity", String(o.quantity))],
    [s.product(o.product), act.click("button", "Add to cart")],
    [s.product(o.product, 1), act.click("link", "Cart (1)")],
    [s.cart(1), act.click("link", "Proceed to checkout")],
    fill("Full name", o.name),
    fill("Street address", o.street),
    fill("City", o.city),
    fill("Postal code", o.zip),
    [s.checkout(filled), act.click("radio", `${o.shipping === "express" ? "Express shipping ($12.00)" : "Standard shipping (free)"}`)],
    [s.checkout(filled), act.click("button", "Place order")],
    [s.order(), act.done()]
  ])
}

const categoryOf = (product: string, s = site(`r-which-${slug(product)}-`)) =>
  episode(`Which category is ${product} in?`, [
    [s.home(), act.type("searchbox", "Search products", product, true)],
    [s.search(product, [product]), act.click("link", product)],
    [s.product(product), act.answer(`${product} is in ${PRODUCTS[product]}.`)]
  ])

export const ANN: Order = {
  product: "Acme Compact Kettle",
  quantity: 3,
  shipping: "express",
  name: "Ann Lee",
  street: "1 Main St",
  city: "Springfield",
  zip: "12345"
}

/** The training set: two instances of each template but the last, over search and browse paths. */
export const trainingExamples = (): ReadonlyArray<RetrievalExample> => [
  ...openCategory("Electronics"),
  ...openCategory("Books"),
  ...openProductBySearch("Acme Compact Kettle"),
  ...openProductByBrowsing("Lumen Classic Headphones"),
  ...buy(ANN),
  ...buy({
    product: "Harbor Pocket Atlas",
    quantity: 2,
    shipping: "express",
    name: "Kai Osei",
    street: "7 Elm Street",
    city: "Riverton",
    zip: "54321"
  }),
  ...categoryOf("Harbor Pocket Atlas")
]

/** The live input on a page after the given actions. */
export const at = (instruction: string, p: Page, history: ReadonlyArray<Action> = []): PolicyInput => ({
  instruction,
  url: p.url,
  elements: p.elements,
  history: history.map((action): PolicyHistoryStep => ({ action, url: p.url, error: null })),
  stepBudget: 20
})
