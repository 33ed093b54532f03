/**
 * An app that shows a static "Loading…" screen for seconds after every page load (a
 * timer, no request): with the default bound the first observation sees the loading
 * screen; a task's `pageSettleMs` with its `pageReady` selector waits for the loaded page,
 * on reset and after a step that loads a page again, and after a log-in step whose settling
 * outlasts the step's own backstop. A log-in that ends on the task's start page is not followed
 * by a second load of it. DOM quiet alone cannot tell a static loading screen from
 * a loaded page.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import type { EnvTask, FullObservation, PreludePage } from "@core/environment"
import { find, startRuntime, target } from "./fixtures.ts"

const LOAD_MS = 2500
// Each load renders the real page only after LOAD_MS: `?accounts` is the page the button opens.
const page = `<!doctype html><title>Ledger</title><body><div id="loading">Loading…</div><script>
  setTimeout(() => {
    const accounts = location.search === "?accounts"
    document.body.innerHTML = accounts
      ? '<main><h1>Accounts</h1><p>No accounts yet</p><a href="/">Back to ledger</a></main>'
      : '<main><h1>Ledger</h1><button type="button" onclick="location.search = \\'accounts\\'">Open accounts</button></main>'
  }, ${LOAD_MS})
</script></body>`
/** How often each page (path and query) was loaded. */
const loads = new Map<string, number>()
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (req) => {
    const url = new URL(req.url)
    loads.set(url.pathname + url.search, (loads.get(url.pathname + url.search) ?? 0) + 1)
    return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } })
  }
})
const startUrl = `http://127.0.0.1:${server.port}/`
const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  server.stop(true)
})

const hasButton = (obs: FullObservation) => obs.elements.some((e) => e.role === "button" && e.name === "Open accounts")
const reset = (task: Partial<EnvTask>) => rt.withEnv({ screenshots: "none" }, (env) => env.reset({ taskId: "ledger", startUrl, ...task }))

test("by default the first observation is the loading screen", async () => {
  const first = await reset({})
  expect(first.observation.error).toBeNull()
  expect(hasButton(first)).toBe(false)
  expect(first.aria).toContain("Loading…")
})

test("DOM quiet within a longer bound still sees a static loading screen", async () => {
  const first = await reset({ pageSettleMs: 8000, pageQuietMs: 200 })
  expect(hasButton(first)).toBe(false)
})

test(
  "pageSettleMs with pageReady observes the loaded page, on reset and after a step that loads another",
  () =>
    rt.withEnv({ screenshots: "none" }, (env) =>
      Effect.gen(function* () {
        const first = yield* env.reset({ taskId: "ledger", startUrl, pageSettleMs: 8000, pageReady: "main" })
        expect(first.aria).not.toContain("Loading…")
        const next = yield* env.step({ kind: "click", target: target(find(first, "button", "Open accounts")) })
        expect(next.observation.error).toBeNull()
        expect(next.aria).toContain("No accounts yet")
        expect(next.aria).not.toContain("Loading…")
      })
    ),
  60000
)

test(
  "a log-in step settles for the app's pageSettleMs, past the backstop of its action",
  () =>
    // The click's backstop is actionTimeoutMs + 1000 ms; the page it opens is ready only after LOAD_MS.
    rt.withEnv({ screenshots: "none", actionTimeoutMs: 1000 }, (env) =>
      Effect.gen(function* () {
        const prelude = {
          startUrl,
          play: (page: PreludePage) =>
            Effect.gen(function* () {
              const button = (yield* page.elements).find((e) => e.name === "Open accounts")
              expect(button?.role).toBe("button")
              const error = yield* page.act({ kind: "click", target: target(button!) })
              expect(error).toBeNull()
              expect((yield* page.elements).map((e) => e.name)).toEqual(["Back to ledger"])
            })
        }
        const first = yield* env.reset({ taskId: "ledger", startUrl, pageSettleMs: 8000, pageReady: "main", prelude })
        expect(hasButton(first)).toBe(true)
      })
    ),
  60000
)

test(
  "a log-in that ends on the start page leaves it loaded once; one that ends elsewhere is followed by a load of the start page",
  () =>
    rt.withEnv({ screenshots: "none" }, (env) =>
      Effect.gen(function* () {
        const logIn = {
          startUrl,
          play: (page: PreludePage) =>
            Effect.gen(function* () {
              const button = (yield* page.elements).find((e) => e.name === "Open accounts")
              expect(yield* page.act({ kind: "click", target: target(button!) })).toBeNull()
            })
        }
        const task = { taskId: "ledger", pageSettleMs: 8000, pageReady: "main", prelude: logIn }
        loads.clear()
        const there = yield* env.reset({ ...task, startUrl: `${startUrl}?accounts` })
        expect(there.aria).toContain("No accounts yet")
        expect(Object.fromEntries(loads)).toEqual({ "/": 1, "/?accounts": 1 })
        loads.clear()
        const elsewhere = yield* env.reset({ ...task, startUrl })
        expect(hasButton(elsewhere)).toBe(true)
        expect(Object.fromEntries(loads)).toEqual({ "/": 2, "/?accounts": 1 })
      })
    ),
  60000
)
