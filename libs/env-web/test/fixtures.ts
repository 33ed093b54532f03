/** Small fixture site for the environment tests, served on an ephemeral local port. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ManagedRuntime, Effect, Layer } from "effect"
import type { Scope } from "effect"
import { DirectoryBlobStore } from "@core/blobstore"
import type { BlobStore } from "@core/blobstore"
import { BrowserPool } from "../BrowserPool.ts"
import type { BrowserPoolOptions } from "../BrowserPool.ts"
import type { EnvironmentShape, ElementInfo, FullObservation } from "@core/environment"
import * as WebEnvironment from "../WebEnvironment.ts"

const page = (title: string, body: string) =>
  new Response(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8" }
  })

const pages: Record<string, () => Response | Promise<Response>> = {
  "/": () =>
    page(
      "Home",
      `<h1>Home</h1>
      <a href="/form">Form</a> <a href="/next">Next page</a> <a href="/list" title="Long list"><img alt="List icon" src="data:,"></a>`
    ),
  "/next": () => page("Next", `<h1>Next</h1><a href="/">Back home</a>`),
  // One document whose pages are its fragment, as a hash-routed app's: /spa#/next, /spa#/form.
  "/spa": () =>
    page(
      "App",
      `<main id="view"></main><script>
      const views = {
        "#/next": '<h1>Next</h1><a href="#/">Back home</a>',
        "#/form": '<h1>Form</h1><button type="button" data-done="Clicked" onclick="this.textContent = this.dataset.done">Press me</button>'
      }
      const show = () => { document.getElementById("view").innerHTML = views[location.hash] ?? '<h1>Home</h1><a href="#/form">Form</a> <a href="#/next">Next page</a>' }
      // Rendered within the click, as a router does: a hashchange handler would render a moment later, and an observation could come first.
      document.addEventListener("click", (e) => {
        const a = e.target.closest("a")
        if (a === null) return
        e.preventDefault()
        history.pushState(null, "", a.getAttribute("href"))
        show()
      })
      show()
    </script>`
    ),
  "/form": () =>
    page(
      "Form",
      `<form id="f" onsubmit="event.preventDefault(); document.getElementById('out').textContent = 'sent ' + this.q.value">
        <label for="q">Search query</label><input id="q" name="q">
        <label>Email <input type="email" name="email" value="a@b.c"></label>
        <input aria-label="Secret" type="password" value="hunter2">
        <input placeholder="Nickname">
        <select id="color" aria-label="Color"><option value="r">Red</option><option value="g">Green</option></select>
        <label><input type="checkbox" id="agree"> I agree</label>
        <button type="button" id="toggle" onclick="this.textContent = 'Clicked'">Press me</button>
        <button type="button" id="hold" onmousedown="this.t = Date.now()"
          onmouseup="this.textContent = Date.now() - this.t > 500 ? 'Held' : 'Tapped'">Hold me</button>
        <button type="button" disabled>Disabled</button>
        <div role="button" tabindex="0">Fake button</div>
        <button type="submit">Search</button>
      </form><p id="out"></p>`
    ),
  "/list": () =>
    page(
      "List",
      `<div style="height:2000px"><a href="#top">Top</a></div>` +
        Array.from({ length: 300 }, (_, i) => `<button>Item ${i}</button>`).join("<br>")
    ),
  "/scroller": () =>
    page(
      "Scroller",
      `<div id="box" style="height:100px;overflow:auto"><div style="height:1000px">
      <button id="inner">Inner</button></div></div><div style="height:3000px"></div>`
    ),
  "/cookie/set": () => page("Set", `<script>document.cookie = "who=" + location.search.slice(1) + "; path=/"</script>set`),
  "/episode": () =>
    page(
      "Episode",
      `<p id="e"></p><a href="/cookie/set?mine">Set cookie</a><script>document.getElementById("e").textContent = "episode " + location.search.slice(1) + " cookie:" + document.cookie</script>`
    ),
  "/cookie/show": () =>
    page("Show", `<p id="c"></p><script>document.getElementById("c").textContent = "cookie:" + document.cookie</script>`),
  "/slow": async () => {
    await Bun.sleep(8000)
    return page("Slow", "finally")
  }
}

export const startSite = () => {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => (pages[new URL(req.url).pathname] ?? (() => new Response("not found", { status: 404 })))()
  })
  return { url: (path: string) => `http://127.0.0.1:${server.port}${path}`, stop: () => server.stop(true) }
}

/** One browser pool and blob store shared by a test file, as a worker would share them. */
export const startRuntime = (pool: BrowserPoolOptions = {}) => {
  const dir = mkdtempSync(join(tmpdir(), "core-env-web-"))
  const runtime = ManagedRuntime.make(Layer.merge(BrowserPool.layer(pool), DirectoryBlobStore.layer({ dir })))
  const withEnv = <A, E>(
    options: WebEnvironment.WebEnvironmentOptions,
    f: (env: EnvironmentShape) => Effect.Effect<A, E, BrowserPool | BlobStore | Scope.Scope>
  ): Promise<A> => runtime.runPromise(Effect.scoped(Effect.flatMap(WebEnvironment.make(options), f)))
  const dispose = async () => {
    await runtime.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
  return { runtime, withEnv, dir, dispose }
}

export const find = (obs: FullObservation, role: string, name: string): ElementInfo => {
  const found = obs.elements.find((e) => e.role === role && e.name === name)
  if (found === undefined) throw new Error(`no ${role} "${name}" in ${obs.view.text}`)
  return found
}

export const target = (e: ElementInfo) => ({ role: e.role, name: e.name, elementId: e.id, text: e.text })

/** Chromium processes started by this test process (Playwright spawns the browser directly). */
export const chromiumChildren = (): Array<number> =>
  Bun.spawnSync(["pgrep", "-P", String(process.pid)])
    .stdout.toString()
    .split("\n")
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("chromium")
      } catch {
        return false
      }
    })
