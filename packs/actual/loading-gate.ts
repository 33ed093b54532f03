/**
 * The pass-through proxy start.ts serves on the instance's port, in front of the sync server,
 * and the one thing it adds: `/__core/loading-gate.js`, loaded by every HTML page.
 *
 * Why: Actual opens its local database in a worker on every page load ("Initializing the
 * connection to the local database…", 1–4 s), showing a static screen meanwhile. CORE observes
 * a page once its network and DOM have been quiet for `pageQuietMs`, so it would observe —
 * and a step file would be played against — that empty loading screen. The gate keeps the DOM
 * changing (an attribute on <html>, every 100 ms) until the app shows a screen one can act
 * on: the log-in form, the budget file list, or an open budget's sidebar (at most 20 s).
 * The app itself is untouched; the script is a same-origin file, as Actual's CSP requires.
 */

const GATE_PATH = "/__core/loading-gate.js"

const GATE_JS = `(() => {
  const started = Date.now()
  const ready = () => document.querySelector('input[placeholder="Password"], [role="grid"], a[href="/accounts"]')
  const tick = () => {
    const root = document.documentElement
    if (ready() || Date.now() - started > 20000) { root.removeAttribute("data-core-loading"); return }
    root.setAttribute("data-core-loading", String(Date.now() - started))
    setTimeout(tick, 100)
  }
  tick()
})()
`

/** Headers a re-encoded body must not carry over (Bun's fetch has already decompressed it). */
const DROP = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"])

const copyHeaders = (from: Headers): Headers => {
  const out = new Headers()
  from.forEach((value, key) => {
    if (!DROP.has(key.toLowerCase())) out.append(key, value)
  })
  return out
}

/** Serves 127.0.0.1:`port`, forwarding everything to `upstream` and adding the gate to HTML pages. */
export const proxy = (port: number, upstream: string) =>
  Bun.serve({
    hostname: "127.0.0.1",
    port,
    idleTimeout: 120,
    fetch: async (req) => {
      const url = new URL(req.url)
      if (url.pathname === GATE_PATH) {
        return new Response(GATE_JS, {
          headers: { "content-type": "text/javascript; charset=utf-8", "cross-origin-resource-policy": "same-origin" }
        })
      }
      const target = upstream + url.pathname + url.search
      const headers = new Headers(req.headers)
      headers.delete("accept-encoding")
      let res: Response
      try {
        res = await fetch(target, {
          method: req.method,
          headers,
          body: req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer(),
          redirect: "manual"
        })
      } catch {
        return new Response("the sync server is not answering (yet)", { status: 502 })
      }
      const out = copyHeaders(res.headers)
      if ((res.headers.get("content-type") ?? "").startsWith("text/html")) {
        const html = (await res.text()).replace("<head>", `<head><script src="${GATE_PATH}"></script>`)
        return new Response(html, { status: res.status, headers: out })
      }
      return new Response(res.body, { status: res.status, headers: out })
    }
  })
