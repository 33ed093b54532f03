/** Shop checker helpers over the state API. EVALUATION CODE ONLY (see ./state.ts). */
import type { Order, ShopBase, ShopState } from "../shop/types.ts"
import { fetchState } from "./state.ts"
import type { Snapshot, StateApi } from "./state.ts"

export const shopState = (api: StateApi, tenant: string): Promise<Snapshot<ShopState, ShopBase>> =>
  fetchState<ShopState, ShopBase>(api, tenant, { base: true })

export const cartQuantity = (s: ShopState, productId: string): number => s.cart.find((l) => l.productId === productId)?.quantity ?? 0

export const inWishlist = (s: ShopState, productId: string): boolean => s.wishlist.includes(productId)

/** Orders that contain the product, oldest first. */
export const ordersWith = (s: ShopState, productId: string): ReadonlyArray<Order> =>
  s.orders.filter((o) => o.lines.some((l) => l.productId === productId))

export const productByName = (base: ShopBase, name: string) => base.products.find((p) => p.name.toLowerCase() === name.toLowerCase())
