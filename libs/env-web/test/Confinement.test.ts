/**
 * An episode stays on its app's origins: navigations elsewhere are refused before anything
 * is sent, and whatever a page of the app tries to fetch elsewhere (images, frames, fetch,
 * WebSockets, links, redirects, popups) is blocked in the browser. "Elsewhere" is a second
 * local server that counts its hits: it must see none.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import { find, startRuntime, startSite, target } from "./fixtures.ts"

const html = (title: string, body: string) =>
  new Response(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`, {
    headers: { "content-type": "text/html" }
  })

/** A service on this machine that is not the app: every request it receives is a leak. */
const hits: Array<string> = []
const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (hits.push(req.url), html("Other", "<h1>Other service</h1>")) })
const foreign = `http://127.0.0.1:${other.port}`

/** The app: a page that reaches for the other service every way a page can. */
const app = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (req) => {
    const path = new URL(req.url).pathname
    if (path === "/redirect") return Response.redirect(`${foreign}/redirected`, 302)
    if (path === "/next") return html("Next", "<h1>Next</h1>")
    return html(
      "Hostile",
      `<h1>Hostile</h1><p id="out"></p>
      <img src="${foreign}/img" onerror="out('img blocked')"><iframe src="${foreign}/frame"></iframe>
      <a href="${foreign}/link">Other link</a> <a href="/redirect">Redirect</a>
      <button onclick="window.open('${foreign}/popup'); window.open('/redirect')">Popup</button>
      <script>
        function out(t) { document.getElementById('out').textContent += t + '; ' }
        fetch('${foreign}/fetch').then(() => out('fetched'), () => out('fetch blocked'))
        const ws = new WebSocket('${foreign.replace("http", "ws")}/ws'); ws.onclose = () => out('ws closed')
      </script>`
    )
  }
})
const origin = `http://127.0.0.1:${app.port}`
/** A second origin of the same app, allowed only when the task lists it. */
const second = startSite()

const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  app.stop(true)
  other.stop(true)
  second.stop()
})

test("navigations off the app's origins are refused and the page stays; the page's own requests elsewhere are blocked", async () => {
  await rt.withEnv({ screenshots: "none" }, (env) =>
    Effect.gen(function* () {
      const first = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      expect(first.observation.error).toBeNull()
      for (const url of [
        "file:///etc/passwd",
        "data:text/html,<h1>x</h1>",
        "chrome://version",
        `${foreign}/navigate`,
        "javascript:alert(1)"
      ]) {
        const refused = yield* env.step({ kind: "navigate", url })
        expect(refused.observation.error).toStartWith(`navigate refused: `)
        expect(refused.observation.error).toEndWith(` is outside this app's origins (${origin})`)
        expect(refused.observation.url).toBe(`${origin}/`)
      }
      const passwd = yield* env.step({ kind: "navigate", url: "file:///etc/passwd" })
      expect(passwd.observation.error).toBe(`navigate refused: file:///etc/passwd is outside this app's origins (${origin})`)
      expect(passwd.aria).not.toContain("root:")

      const waited = yield* env.step({ kind: "wait", ms: 200 })
      expect(waited.aria).toContain("img blocked")
      expect(waited.aria).toContain("fetch blocked")
      expect(waited.aria).toContain("ws closed")
      yield* env.step({ kind: "click", target: target(find(waited, "button", "Popup")) })
      const link = yield* env.step({ kind: "click", target: target(find(waited, "link", "Other link")) })
      expect(link.observation.error).toBe(`navigate refused: ${foreign}/link is outside this app's origins (${origin})`)

      const next = yield* env.step({ kind: "navigate", url: `${origin}/next` })
      expect(next.observation).toMatchObject({ error: null, url: `${origin}/next`, title: "Next" })
      const relative = yield* env.step({ kind: "navigate", url: "/" })
      expect(relative.observation).toMatchObject({ error: null, url: `${origin}/` })
      const redirect = yield* env.step({ kind: "click", target: target(find(relative, "link", "Redirect")) })
      expect(redirect.observation.error).toBe(`navigate refused: ${foreign}/redirected is outside this app's origins (${origin})`)
      expect(hits).toEqual([])
    })
  )
})

test("an explicit origins list allows a second origin; a start URL outside it is an error observation at reset", async () => {
  await rt.withEnv({ screenshots: "none" }, (env) =>
    Effect.gen(function* () {
      const origins = [origin, second.url("")]
      yield* env.reset({ taskId: "t", startUrl: `${origin}/next`, origins })
      const there = yield* env.step({ kind: "navigate", url: second.url("/next") })
      expect(there.observation).toMatchObject({ error: null, url: second.url("/next") })
      const refused = yield* env.step({ kind: "navigate", url: `${foreign}/` })
      expect(refused.observation.error).toBe(`navigate refused: ${foreign}/ is outside this app's origins (${origins.join(", ")})`)

      const outside = yield* env.reset({ taskId: "t", startUrl: `${foreign}/start`, origins })
      expect(outside.observation.error).toBe(`navigate refused: ${foreign}/start is outside this app's origins (${origins.join(", ")})`)
      expect(outside.observation.url).toBe("about:blank")
      expect(hits).toEqual([])
    })
  )
})
