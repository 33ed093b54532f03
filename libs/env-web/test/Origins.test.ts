import { expect, test } from "bun:test"
import { appOrigins, checkNavigation, proxyBypass } from "../Origins.ts"

const app = "http://127.0.0.1:4312"
const allowed = [app]
const here = `${app}/shop?x=1`

test("the app's origins are the explicit list, else the start URL's; non-http(s) entries are dropped", () => {
  expect(appOrigins(`${app}/shop/enter?t=1`, undefined)).toEqual([app])
  expect(appOrigins(`${app}/`, ["https://example.test/", "http://EXAMPLE.test:80/x", "file:///etc", "data:,x", "nonsense"])).toEqual([
    "https://example.test",
    "http://example.test"
  ])
  expect(appOrigins(undefined, undefined)).toEqual([])
  expect(appOrigins("file:///etc/passwd", undefined)).toEqual([])
})

test.each<[string, string | null]>([
  // [navigate target, resolved URL when allowed | null when refused]
  [`${app}/cart`, `${app}/cart`],
  ["/cart", `${app}/cart`],
  ["cart?id=2", `${app}/cart?id=2`],
  ["#top", `${app}/shop?x=1#top`],
  [`HTTP://127.0.0.1:4312/a`, `${app}/a`],
  ["file:///etc/passwd", null],
  ["data:text/html,<h1>x</h1>", null],
  ["javascript:alert(1)", null],
  ["chrome://version", null],
  ["about:blank", null],
  ["view-source:http://127.0.0.1:4312/", null],
  [`blob:${app}/1234`, null],
  ["ws://127.0.0.1:4312/socket", null],
  ["http://127.0.0.1:4313/", null],
  ["https://127.0.0.1:4312/", null],
  ["http://localhost:4312/", null],
  ["http://127.0.0.1:4312@evil.test/", null],
  ["//evil.test/x", null]
])("navigate %p from the app's page", (url, expected) => {
  const result = checkNavigation(url, allowed, here)
  if (expected === null) expect("error" in result && result.error).toStartWith("navigate refused: ")
  else expect(result).toEqual({ url: expected })
})

test("the refusal names the URL and the allowed origins; a relative URL on a blank page is refused", () => {
  expect(checkNavigation("file:///etc/passwd", allowed, here)).toEqual({
    error: "navigate refused: file:///etc/passwd is outside this app's origins (http://127.0.0.1:4312)"
  })
  expect(checkNavigation("/cart", allowed, "about:blank")).toEqual({ error: 'navigate refused: "/cart" is not a URL' })
  expect(checkNavigation(`${app}/`, [], null)).toEqual({ error: `navigate refused: ${app}/ is outside this app's origins (none)` })
})

test("the proxy bypass list names each origin's host and port, default ports spelled out", () => {
  expect(proxyBypass([app, "https://example.test", "http://example.test", "http://[::1]:8080"])).toBe(
    "127.0.0.1:4312,example.test:443,example.test:80,[::1]:8080"
  )
  expect(proxyBypass([])).toBe("")
})
