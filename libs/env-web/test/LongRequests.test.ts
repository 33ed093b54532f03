/**
 * A request the page never sees end (a shared worker's script, whose end Chromium does not
 * report to the page; a long poll) costs an episode one settle bound, not one per step: once
 * it outlasts a whole settle, its URL is not waited for again. A request that does end within
 * the bound is still waited for.
 */
import { afterAll, expect, test } from "bun:test"
import { BrowserPool } from "../BrowserPool.ts"
import { settleEpisode, watchedEpisode } from "../Page.ts"
import { startRuntime } from "./fixtures.ts"

// The page opens a request that never ends and one that ends after 300 ms.
const page = `<!doctype html><title>Poller</title><body><p id="out">waiting</p><script>
  fetch("/hang").catch(() => {})
  fetch("/slow").then((r) => r.text()).then((t) => { document.getElementById("out").textContent = t })
</script></body>`
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  fetch: async (req) => {
    const path = new URL(req.url).pathname
    if (path === "/hang") return new Promise<Response>(() => undefined)
    if (path === "/slow") {
      await Bun.sleep(300)
      return new Response("slow done")
    }
    return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } })
  }
})
const base = `http://127.0.0.1:${server.port}`
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  server.stop(true)
})

test("a request that outlasts a settle is not waited for again, on the same page or after a reload; one that ends is", async () => {
  const lease = await rt.runtime.runPromise(BrowserPool.use((pool) => pool.acquire([base])))
  try {
    const ep = watchedEpisode(lease, {
      startUrl: `${base}/`,
      origins: [base],
      quietMs: 0,
      pageSettleMs: 1000,
      ready: null,
      timeoutMs: 5000
    })
    await lease.page.goto(`${base}/`, { waitUntil: "domcontentloaded" })
    await settleEpisode(ep, 2000)
    // The bound ran out with /hang in flight: it is open for good, and nothing is left to wait for.
    expect([...ep.net.openForGood]).toEqual([`${base}/hang`])
    expect(ep.net.inflight.size).toBe(0)

    await lease.page.reload({ waitUntil: "domcontentloaded" })
    // The reload asks for /hang again: it is not counted in flight, while /slow is until it ends.
    expect([...ep.net.inflight].map((r) => r.url())).not.toContain(`${base}/hang`)
    await settleEpisode(ep, 2000)
    expect(ep.net.inflight.size).toBe(0)
    expect([...ep.net.openForGood]).toEqual([`${base}/hang`])
    // /slow ended within the bound, so it was waited for rather than given up on.
    expect(await lease.page.textContent("#out", { timeout: 2000 })).toBe("slow done")
  } finally {
    await rt.runtime.runPromise(lease.release)
  }
}, 30000)
