/**
 * Links to nowhere: an app whose pages link, submit, script and redirect to another
 * origin. Its offsite elements are marked in the observation, and whatever way the page
 * tries to leave, the step is refused on the page it was on (elements, the app's URL, its
 * in-page state when nothing navigated) — never on the browser's error page.
 */
import { afterAll, expect, test } from "bun:test"
import { Effect } from "effect"
import type { FullObservation } from "@core/environment"
import { refusal } from "../Origins.ts"
import { find, startRuntime, target } from "./fixtures.ts"

const html = (title: string, body: string) =>
  new Response(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`, {
    headers: { "content-type": "text/html" }
  })

/** Another service: every request it receives is a leak. */
const hits: Array<string> = []
const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (hits.push(req.url), html("Other", "<h1>Other</h1>")) })
const foreign = `http://127.0.0.1:${other.port}`

const app = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (req) => {
    const path = new URL(req.url).pathname
    if (path === "/redirect") return Response.redirect(`${foreign}/redirected`, 302)
    if (path === "/next") return html("Next", `<h1>Next</h1><a href="/">Home</a>`)
    return html(
      "Home",
      `<h1>Home</h1><button onclick="this.textContent = 'Count ' + (++this.n || (this.n = 1))">Count</button>
      <a href="/next">Next</a> <a href="#top">Top</a> <a href="javascript:void 0">Nothing</a>
      <footer><a href="${foreign}/about">About us</a> <a href="/redirect">Moved</a></footer>
      <form action="${foreign}/subscribe"><input name="email" aria-label="Email"><button>Subscribe</button></form>
      <form action="/search"><input name="q" aria-label="Query"><button>Search</button>
        <button formaction="${foreign}/search">Search the web</button></form>
      <button onclick="location.href = '${foreign}/scripted'">Leave by script</button>`
    )
  }
})
const origin = `http://127.0.0.1:${app.port}`

const rt = startRuntime()
afterAll(async () => {
  await rt.dispose()
  app.stop(true)
  other.stop(true)
})

/** The step stands on the app's page it was on, with its elements, and says what was refused. */
const refusedHere = (obs: FullObservation, url: string) => {
  expect(obs.observation.error).toBe(refusal(url, [origin]))
  expect(obs.observation.url).toBe(`${origin}/`)
  expect(obs.elements.length).toBeGreaterThan(0)
  expect(obs.observation.title).toBe("Home")
}

test("links, forms and buttons that lead off the app are marked offsite; the others carry no mark", async () => {
  await rt.withEnv({ screenshots: "none" }, (env) =>
    Effect.gen(function* () {
      const first = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      const marked = first.elements.filter((e) => e.offsite === true).map((e) => `${e.role} ${e.name}`)
      expect(marked).toEqual(["link About us", "button Subscribe", "button Search the web"])
      for (const e of first.elements.filter((x) => x.offsite !== true)) expect("offsite" in e).toBe(false)
      // "Moved" redirects off the app, which no page can tell before following it: the guard after the fact handles it.
      expect(find(first, "link", "Moved").offsite).toBeUndefined()
    })
  )
})

test("no step stands on an error page: a link, a form, a script or a redirect off the app is refused where the page was", async () => {
  await rt.withEnv({ screenshots: "none" }, (env) =>
    Effect.gen(function* () {
      const first = yield* env.reset({ taskId: "t", startUrl: `${origin}/` })
      const counted = yield* env.step({ kind: "click", target: target(find(first, "button", "Count")) })
      expect(find(counted, "button", "Count 1")).toBeDefined()

      // Cancelled in the page: nothing navigates, so the page keeps its state.
      const link = yield* env.step({ kind: "click", target: target(find(counted, "link", "About us")) })
      refusedHere(link, `${foreign}/about`)
      expect(find(link, "button", "Count 1")).toBeDefined()
      const form = yield* env.step({ kind: "type", target: target(find(link, "textbox", "Email")), text: "a@b.c", submit: true })
      refusedHere(form, `${foreign}/subscribe`)
      const formaction = yield* env.step({ kind: "click", target: target(find(form, "button", "Search the web")) })
      refusedHere(formaction, `${foreign}/search`)
      expect(find(formaction, "button", "Count 1")).toBeDefined()

      // Blocked by the browser and undone: back on the page the step started from.
      const scripted = yield* env.step({ kind: "click", target: target(find(formaction, "button", "Leave by script")) })
      refusedHere(scripted, `${foreign}/scripted`)
      const redirect = yield* env.step({ kind: "click", target: target(find(scripted, "link", "Moved")) })
      refusedHere(redirect, `${foreign}/redirected`)

      // The page works on: its own links lead on, with no error left over.
      const next = yield* env.step({ kind: "click", target: target(find(redirect, "link", "Next")) })
      expect(next.observation).toMatchObject({ error: null, url: `${origin}/next`, title: "Next" })
      expect(hits).toEqual([])
    })
  )
})
