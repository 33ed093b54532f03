/** The shop's data: `ShopBase` is seed-derived and shared, `ShopState` is one episode's own (what checkers read). */

export interface Category {
  readonly id: string
  readonly name: string
  readonly blurb: string
}

export interface Review {
  readonly id: string
  readonly productId: string
  readonly author: string
  /** 1–5 stars. */
  readonly rating: number
  readonly title: string
  readonly body: string
}

export interface Product {
  /** Also the URL slug: /shop/product/<id>. */
  readonly id: string
  readonly name: string
  readonly categoryId: string
  /** In cents. */
  readonly price: number
  readonly description: string
}

export interface ShopBase {
  readonly seed: number
  readonly categories: ReadonlyArray<Category>
  readonly products: ReadonlyArray<Product>
  /** Seeded reviews per product id. */
  readonly reviews: Readonly<Record<string, ReadonlyArray<Review>>>
  readonly user: { readonly name: string; readonly email: string }
}

export interface CartLine {
  productId: string
  quantity: number
}

export interface Address {
  fullName: string
  street: string
  city: string
  postalCode: string
}

export type ShippingMethod = "standard" | "express"

export interface OrderLine {
  productId: string
  name: string
  /** Unit price in cents when ordered. */
  price: number
  quantity: number
}

export interface Order {
  /** "O-1001", "O-1002", … per episode. */
  id: string
  lines: Array<OrderLine>
  subtotal: number
  shippingCost: number
  total: number
  shipping: ShippingMethod
  address: Address
}

export interface ShopState {
  user: { name: string; email: string }
  cart: Array<CartLine>
  /** Product ids, most recently added last. */
  wishlist: Array<string>
  /** Oldest first. */
  orders: Array<Order>
  /** Reviews posted in this episode (seeded ones live in the base). */
  reviews: Array<Review>
}
