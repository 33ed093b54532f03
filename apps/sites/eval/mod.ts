/** Checker-side access to sites' ground truth. EVALUATION CODE ONLY: see ./state.ts. */
export { fetchState } from "./state.ts"
export type { Snapshot, StateApi } from "./state.ts"
export { cartQuantity, inWishlist, ordersWith, productByName, shopState } from "./shop.ts"
export { forumState, karma, myCommentsOn, newPosts, postByTitle, voteOn, wasDeleted } from "./forum.ts"
export { bookingById, confirmedBookings, flightByNumber, travelState, travellerByName } from "./travel.ts"
