import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { shop } from "../mod.ts"
import { cartQuantity, inWishlist, ordersWith, productByName, shopState } from "../eval/mod.ts"
import { linksTo, startEpisode, textOf, withServer } from "./client.ts"

const env = withServer()
beforeAll(env.start)
afterAll(env.stop)

describe("shop: the whole flow over HTTP, with the state API following each change", () => {
  test("search → product → cart → checkout (invalid, then valid) → order in history", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "shop", 21)
    const target = shop.base(21).products[12]!
    const word = target.name.split(" ").at(-1)!

    const results = await browser.get(`/shop/search?q=${encodeURIComponent(word)}`)
    const link = linksTo(results, target.name)[0]!
    expect(link).toBe(`/shop/product/${target.id}`)
    const product = await browser.get(link)
    expect(textOf(product)).toContain(target.name)
    expect(product.text).toContain('<label for="quantity">Quantity</label>')

    const added = await browser.post("/shop/cart/add", { productId: target.id, quantity: "2", return: `/product/${target.id}?added=cart` })
    expect(added.path).toBe(`/shop/product/${target.id}?added=cart`)
    expect(added.text).toContain('<div role="status">Added to your cart.</div>')
    expect(textOf(added)).toContain("Cart (2)")
    expect(cartQuantity((await shopState(s, tenant)).state, target.id)).toBe(2)

    const cart = await browser.get("/shop/cart")
    expect(textOf(cart)).toContain(target.name)
    expect(linksTo(cart, "Proceed to checkout")).toEqual(["/shop/checkout"])

    const checkout = await browser.get("/shop/checkout")
    expect(checkout.text).toContain('<label for="postalCode">Postal code (5 digits)</label>')
    const address = { fullName: "Kim Lee", street: "1 Main St", city: "Springfield", postalCode: "12AB", shipping: "express" }
    const bad = await browser.post("/shop/checkout", address)
    expect(bad.status).toBe(422)
    expect(bad.text).toContain('id="postalCode-error"')
    expect(bad.text).toMatch(/id="postalCode"[^>]*aria-invalid="true" aria-describedby="postalCode-error"/)
    expect(textOf(bad)).toContain("Postal code must be exactly 5 digits")
    expect(bad.text).toContain('value="Springfield"')
    expect(bad.text).toContain('role="alert"')
    expect((await shopState(s, tenant)).state.orders).toHaveLength(0)

    const empty = await browser.post("/shop/checkout", { fullName: "", street: "", city: "", postalCode: "" })
    for (const f of ["fullName", "street", "city", "postalCode"]) expect(empty.text).toContain(`id="${f}-error"`)

    const placed = await browser.post("/shop/checkout", { ...address, postalCode: "94110" })
    expect(placed.path).toBe("/shop/orders/O-1001?placed=1")
    expect(textOf(placed)).toContain("Thank you! Your order O-1001 has been placed.")
    const snap = await shopState(s, tenant)
    expect(snap.state.cart).toHaveLength(0)
    expect(snap.state.orders[0]).toMatchObject({
      id: "O-1001",
      lines: [{ productId: target.id, name: target.name, price: target.price, quantity: 2 }],
      subtotal: target.price * 2,
      shippingCost: 999,
      total: target.price * 2 + 999,
      shipping: "express",
      address: { fullName: "Kim Lee", street: "1 Main St", city: "Springfield", postalCode: "94110" }
    })
    expect(ordersWith(snap.state, target.id)).toHaveLength(1)

    const account = await browser.get("/shop/account")
    expect(linksTo(account, "Order O-1001")).toEqual(["/shop/orders/O-1001"])
    // Order history is one more path back to the product.
    expect(linksTo(account, target.name)).toEqual([`/shop/product/${target.id}`])
    expect(textOf(await browser.get("/shop/cart"))).toContain("Your cart is empty")
    await browser.post("/shop/cart/add", { productId: target.id })
    expect((await browser.get("/shop/checkout")).text).toContain('value="1 Main St"')
  })

  test("cart: change quantity and remove", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "shop", 22)
    const [a, b] = shop.base(22).products
    await browser.post("/shop/cart/add", { productId: a!.id })
    await browser.post("/shop/cart/add", { productId: a!.id })
    await browser.post("/shop/cart/add", { productId: b!.id, quantity: "3" })
    expect((await shopState(s, tenant)).state.cart).toEqual([
      { productId: a!.id, quantity: 2 },
      { productId: b!.id, quantity: 3 }
    ])
    const updated = await browser.post("/shop/cart/update", { productId: a!.id, quantity: "5" })
    expect(updated.text).toContain(`<label for="qty-${a!.id}">Quantity for ${a!.name}</label>`)
    expect(updated.text).toContain('value="5"')
    expect(cartQuantity((await shopState(s, tenant)).state, a!.id)).toBe(5)
    expect(textOf(await browser.post("/shop/cart/update", { productId: a!.id, quantity: "x" }))).toContain(
      "Quantity must be a whole number"
    )
    expect(textOf(await browser.post("/shop/cart/remove", { productId: b!.id }))).toContain("Item removed from your cart")
    expect((await shopState(s, tenant)).state.cart).toEqual([{ productId: a!.id, quantity: 5 }])
    await browser.post("/shop/cart/update", { productId: a!.id, quantity: "0" })
    expect((await shopState(s, tenant)).state.cart).toEqual([])
  })

  test("wish list: add and remove from the product page and from the list", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "shop", 23)
    const [a, b] = shop.base(23).products.slice(40)
    const page = await browser.post("/shop/wishlist/add", { productId: a!.id, return: `/product/${a!.id}?added=wishlist` })
    expect(textOf(page)).toContain("Added to your wish list.")
    expect(page.text).toContain(">Remove from wish list</button>")
    await browser.post("/shop/wishlist/add", { productId: b!.id })
    expect((await shopState(s, tenant)).state.wishlist).toEqual([a!.id, b!.id])
    const list = await browser.get("/shop/wishlist")
    expect(linksTo(list, a!.name)).toEqual([`/shop/product/${a!.id}`])
    expect(list.text).toContain(`aria-label="Remove ${b!.name} from wish list"`)
    const afterRemove = await browser.post("/shop/wishlist/remove", { productId: b!.id, return: "/wishlist?m=removed" })
    expect(afterRemove.path).toBe("/shop/wishlist?m=removed")
    expect(textOf(afterRemove)).not.toContain(b!.name)
    expect(inWishlist((await shopState(s, tenant)).state, b!.id)).toBe(false)
    await browser.post("/shop/cart/add", { productId: a!.id, quantity: "1", return: "/wishlist?m=added" })
    expect(cartQuantity((await shopState(s, tenant)).state, a!.id)).toBe(1)
    await browser.post("/shop/wishlist/remove", { productId: a!.id, return: `/product/${a!.id}?added=unwishlist` })
    expect((await shopState(s, tenant)).state.wishlist).toEqual([])
  })

  test("reviews: validation errors, then a posted review shows up (escaped) and counts in the rating", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "shop", 24)
    const p = shop.base(24).products[5]!
    const bad = await browser.post(`/shop/product/${p.id}/reviews`, { title: "", body: "short" })
    expect(bad.status).toBe(422)
    for (const f of ["rating", "title", "body"]) expect(bad.text).toContain(`id="review-${f}-error"`)
    expect((await shopState(s, tenant)).state.reviews).toHaveLength(0)
    const ok = await browser.post(`/shop/product/${p.id}/reviews`, {
      rating: "4",
      title: "<script>x</script> Good",
      body: "Works well for me, thanks."
    })
    expect(ok.path).toBe(`/shop/product/${p.id}?added=review`)
    expect(textOf(ok)).toContain("Your review has been posted")
    expect(ok.text).toContain("&lt;script&gt;x&lt;/script&gt; Good")
    expect(ok.text).not.toContain("<script>x")
    const snap = await shopState(s, tenant)
    expect(snap.state.reviews).toEqual([
      {
        id: `${p.id}-u1`,
        productId: p.id,
        author: snap.state.user.name,
        rating: 4,
        title: "<script>x</script> Good",
        body: "Works well for me, thanks."
      }
    ])
    expect(textOf(ok)).toContain(`(${snap.base!.reviews[p.id]!.length + 1} review`)
  })

  test("settings: validation, then the new name and email everywhere", async () => {
    const s = env.server()
    const { tenant, browser } = await startEpisode(s, "shop", 25)
    const bad = await browser.post("/shop/account/settings", { name: "", email: "not-an-email" })
    expect(bad.status).toBe(422)
    expect(textOf(bad)).toContain("Enter your name.")
    expect(textOf(bad)).toContain("Enter an email address like name@example.com.")
    expect((await shopState(s, tenant)).state.user).toEqual(shop.base(25).user)
    const ok = await browser.post("/shop/account/settings", { name: "Dana Scully", email: "dana@example.org" })
    expect(ok.path).toBe("/shop/account?m=settings")
    expect(textOf(ok)).toContain("Your settings have been saved.")
    expect(textOf(ok)).toContain("Signed in as Dana Scully")
    expect((await shopState(s, tenant)).state.user).toEqual({ name: "Dana Scully", email: "dana@example.org" })
  })

  test("a product is reachable by search, category, direct URL, the wish list and order history", async () => {
    const s = env.server()
    const { browser } = await startEpisode(s, "shop", 26)
    const base = shop.base(26)
    const p = productByName(base, base.products[3]!.name.toUpperCase())!
    const href = `/shop/product/${p.id}`
    expect(linksTo(await browser.get(`/shop/search?q=${encodeURIComponent(p.name)}`), p.name)).toContain(href)
    const cat = await browser.get(`/shop/category/${p.categoryId}?sort=name`)
    const onPage1 = linksTo(cat, p.name).includes(href)
    expect(onPage1 || linksTo(await browser.get(`/shop/category/${p.categoryId}?sort=name&page=2`), p.name).includes(href)).toBe(true)
    expect((await browser.get(href)).status).toBe(200)
    await browser.post("/shop/wishlist/add", { productId: p.id })
    expect(linksTo(await browser.get("/shop/wishlist"), p.name)).toContain(href)
  })
})

describe("shop: isolation", () => {
  test("parallel episodes never see each other's cart, wish list or orders", async () => {
    const s = env.server()
    const eps = await Promise.all(Array.from({ length: 8 }, () => startEpisode(s, "shop", 30)))
    const products = shop.base(30).products
    await Promise.all(
      eps.map(async (e, i) => {
        for (let k = 0; k <= i; k++) await e.browser.post("/shop/cart/add", { productId: products[i]!.id })
        await e.browser.post("/shop/wishlist/add", { productId: products[i + 20]!.id })
      })
    )
    await Promise.all(
      eps.map(async (e, i) => {
        const snap = await shopState(s, e.tenant)
        expect(snap.state.cart).toEqual([{ productId: products[i]!.id, quantity: i + 1 }])
        expect(snap.state.wishlist).toEqual([products[i + 20]!.id])
        const cart = textOf(await e.browser.get("/shop/cart"))
        for (let j = 0; j < eps.length; j++) expect(cart.includes(products[j]!.name)).toBe(i === j)
      })
    )
    await eps[0]!.browser.post("/shop/checkout", { fullName: "A", street: "B", city: "C", postalCode: "12345" })
    expect((await shopState(s, eps[0]!.tenant)).state.orders).toHaveLength(1)
    expect((await shopState(s, eps[1]!.tenant)).state.orders).toHaveLength(0)
    expect(textOf(await eps[1]!.browser.get("/shop/account"))).toContain("You have not placed any orders yet.")
  })
})
