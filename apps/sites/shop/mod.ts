/** The shop site: its seed, state and routes. */
import { defineSite } from "../framework/site.ts"
import type { Route } from "../framework/site.ts"
import { shopBase, shopInitial } from "./data.ts"
import { accountPage, saveSettings, settingsPage } from "./pages/account.ts"
import { cartAdd, cartPage, cartRemove, cartUpdate, wishlistAdd, wishlistPage, wishlistRemove } from "./pages/cart.ts"
import { category, home, searchPage } from "./pages/catalog.ts"
import { checkoutPage, orderPage, placeOrder } from "./pages/checkout.ts"
import { notFound } from "./pages/errors.ts"
import { postReview, productPage } from "./pages/product.ts"
import type { ShopBase, ShopState } from "./types.ts"

const routes: ReadonlyArray<Route<ShopBase, ShopState>> = [
  { method: "GET", path: "/", handler: home },
  { method: "GET", path: "/category/:id", handler: category },
  { method: "GET", path: "/search", handler: searchPage },
  { method: "GET", path: "/product/:id", handler: productPage },
  { method: "POST", path: "/product/:id/reviews", handler: postReview },
  { method: "GET", path: "/cart", handler: cartPage },
  { method: "POST", path: "/cart/add", handler: cartAdd },
  { method: "POST", path: "/cart/update", handler: cartUpdate },
  { method: "POST", path: "/cart/remove", handler: cartRemove },
  { method: "GET", path: "/wishlist", handler: wishlistPage },
  { method: "POST", path: "/wishlist/add", handler: wishlistAdd },
  { method: "POST", path: "/wishlist/remove", handler: wishlistRemove },
  { method: "GET", path: "/checkout", handler: checkoutPage },
  { method: "POST", path: "/checkout", handler: placeOrder },
  { method: "GET", path: "/orders/:id", handler: orderPage },
  { method: "GET", path: "/account", handler: accountPage },
  { method: "GET", path: "/account/settings", handler: settingsPage },
  { method: "POST", path: "/account/settings", handler: saveSettings }
]

export const shop = defineSite<ShopBase, ShopState>({
  name: "shop",
  title: "CORE Shop",
  base: shopBase,
  initial: shopInitial,
  routes,
  options: { search: ["on", "off"] },
  notFound: (ctx) => notFound(ctx)
})

export type { ShopBase, ShopState } from "./types.ts"
