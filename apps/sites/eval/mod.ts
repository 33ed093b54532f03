/** Checker-side access to sites' ground truth. EVALUATION CODE ONLY: see ./state.ts. */
export { fetchState } from "./state.ts"
export type { Snapshot, StateApi } from "./state.ts"
export { cartQuantity, inWishlist, ordersWith, productByName, shopState } from "./shop.ts"
