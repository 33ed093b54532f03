/**
 * The console over real HTTP, on a copy of the recorded fixture run: what it refuses (any
 * request without the token or its cookie, loopback or not; a foreign Host; a POST from
 * another origin; paths that are not a blob or an asset), the token traded for a cookie and
 * never written into a page, the headers every response carries, and live events.
 */
import { afterAll, beforeAll, expect, test } from "bun:test"
import { Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import { type BlobStore, DirectoryBlobStore } from "@core/blobstore"
import { JobQueued, makeEvent, runStream } from "@core/events"
import { EmbeddedStore, EventStore } from "@core/eventstore"
import { openReadModels } from "@core/projections"
import { cpSync, mkdtempSync, rmSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { html } from "../Html.ts"
import { layout } from "../Layout.ts"
import { startConsole } from "../Server.ts"
import type { RunningConsole } from "../Server.ts"

const FIXTURE = join(import.meta.dir, "..", "..", "..", "tests", "fixtures", "replay-run")
const RUN = "run-mx9cfcfn-0a9e49"
/** A screenshot in the fixture's blob store. */
const PNG = "a9328762b34abbd5eb90199600628c16d1327ebedbefe547e41001c27cd6987f"

let dir: string
let runtime: ManagedRuntime.ManagedRuntime<EventStore | BlobStore, unknown>
let scope: Scope.Closeable
let c: RunningConsole
/** A second console on the same machine: its cookie must not open the first. */
let other: RunningConsole

beforeAll(async () => {
  // The console catches read models up and the live test appends: never beside the fixture itself.
  dir = mkdtempSync(join(tmpdir(), "core-console-"))
  cpSync(FIXTURE, dir, { recursive: true })
  runtime = ManagedRuntime.make(
    Layer.mergeAll(EmbeddedStore.layer({ path: join(dir, "events.db") }), DirectoryBlobStore.layer({ dir: join(dir, "blobs") }))
  )
  scope = await Effect.runPromise(Scope.make())
  const started = await runtime.runPromise(
    Scope.provide(scope)(
      Effect.gen(function* () {
        const a = yield* startConsole({ readModels: yield* openReadModels("sqlite::memory:") })
        const b = yield* startConsole({ readModels: yield* openReadModels("sqlite::memory:") })
        return { a, b }
      })
    )
  )
  c = started.a
  other = started.b
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await runtime.dispose()
  rmSync(dir, { recursive: true, force: true })
})

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

/** Every response, refusals included, carries the security headers. */
const secured = (headers: Headers | Map<string, string>): void => {
  expect(headers.get("content-security-policy")).toBe(CSP)
  expect(headers.get("x-content-type-options")).toBe("nosniff")
  expect(headers.get("referrer-policy")).toBe("no-referrer")
}

/** Without the cookie: what anyone else on the machine can send. */
const bare = async (path: string, init: RequestInit = {}, on: RunningConsole = c): Promise<Response> => {
  const res = await fetch(`${on.url}${path}`, { redirect: "manual", ...init })
  secured(res.headers)
  return res
}

/** With the cookie, as the browser that opened the printed URL sends it. */
const get = (path: string, init: RequestInit = {}): Promise<Response> =>
  bare(path, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), cookie: c.cookie } })

/**
 * A request written byte for byte: fetch would resolve `..` in the path and set its own
 * Host, and those are exactly what the server must be tried with.
 */
const raw = (path: string, host = new URL(c.url).host, cookie = c.cookie) =>
  new Promise<{ status: number; headers: Map<string, string>; body: string }>((resolve, reject) => {
    const socket = connect(Number(new URL(c.url).port), "127.0.0.1", () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${cookie === "" ? "" : `Cookie: ${cookie}\r\n`}Connection: close\r\n\r\n`)
    )
    let data = ""
    socket.on("data", (d) => (data += d.toString("latin1")))
    socket.on("error", reject)
    socket.on("end", () => {
      const [head = "", body = ""] = data.split("\r\n\r\n", 2)
      const [status = "", ...lines] = head.split("\r\n")
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]))
      secured(headers)
      resolve({ status: Number(status.split(" ")[1]), headers, body })
    })
  })

test("a page renders through the real routes, caught up with the log", async () => {
  const res = await get("/")
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8")
  const text = await res.text()
  expect(text).toContain(RUN)
  expect(text).toContain('<script src="/assets/console.js" defer></script>')
  expect(text).not.toMatch(/<script>|<style|style="/)
  expect((await get(`/runs/${RUN}`)).status).toBe(200)
  // Requests arriving together share one catch-up of the read models.
  const together = await Promise.all(Array.from({ length: 5 }, () => get("/")))
  expect(together.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
  const missing = await get("/no/such/page")
  expect(missing.status).toBe(404)
  expect(await missing.text()).toContain("Nothing at /no/such/page")
}, 60_000)

test("on loopback too, a request without the token or its cookie is a 401: pages, blobs, assets, /live, a POST", async () => {
  const form = { method: "POST", body: "lf=x&code=y", headers: { "content-type": "application/x-www-form-urlencoded", origin: c.url } }
  const refused = async (what: string, res: Response) => {
    const body = await res.text()
    expect([what, res.status, body.trim().split("\n").length]).toEqual([what, 401, 1])
    expect(body).not.toContain(c.token)
  }
  const paths = ["/", `/runs/${RUN}`, `/blob/${PNG}`, "/assets/console.js", "/assets/console.css", `/live?run=${RUN}`, "/no/such/page"]
  for (const path of paths) await refused(path, await bare(path))
  await refused("POST", await bare(`/runs/${RUN}/what-if`, form))
  // A wrong token, a stale cookie, another console's cookie: no better than none.
  await refused("wrong token", await bare(`/?token=${"0".repeat(64)}`))
  await refused("short token", await bare(`/?token=${c.token.slice(1)}`))
  const name = c.cookie.split("=")[0]!
  await refused("wrong cookie", await bare("/", { headers: { cookie: `${name}=${"0".repeat(64)}` } }))
  await refused("other console's cookie", await bare("/", { headers: { cookie: other.cookie } }))
  await refused("its token under this console's name", await bare("/", { headers: { cookie: `${name}=${other.token}` } }))
  expect((await get(`/blob/${PNG}`)).status).toBe(200)
}, 60_000)

test("the printed URL's token is traded once for an HttpOnly SameSite=Strict cookie, and the redirect stays on the console", async () => {
  expect(c.open).toBe(`${c.url}/?token=${c.token}`)
  const first = await bare(`/runs/${RUN}?token=${c.token}&x=1`)
  expect(first.status).toBe(303)
  expect(first.headers.get("location")).toBe(`/runs/${RUN}?x=1`)
  expect(await first.text()).toBe("")
  // A path that starts like another host's URL is sent back to a path of this console, never to that host.
  for (const path of ["//evil.example/x", "/\\evil.example/x", "///evil.example", "/%2f%2fevil.example"]) {
    const r = await raw(`${path}?token=${c.token}`, undefined, "")
    expect([path, r.status]).toEqual([path, 303])
    expect([path, r.headers.get("location")]).toEqual([path, expect.stringMatching(/^\/(?![/\\])/)])
  }
  const cookie = first.headers.get("set-cookie") ?? ""
  expect(cookie.split(";").map((p) => p.trim())).toEqual([c.cookie, "Path=/", "HttpOnly", "SameSite=Strict"])
  expect((await bare("/", { headers: { cookie: cookie.split(";")[0]! } })).status).toBe(200)
}, 60_000)

test("a Host header other than the bound address is refused; localhost is the same machine", async () => {
  const port = new URL(c.url).port
  for (const host of ["evil.example", `evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, ""]) {
    const res = await raw("/", host)
    expect([host, res.status]).toEqual([host, 403])
    expect(res.body.trim().split("\n")).toHaveLength(1)
  }
  expect((await raw("/assets/console.css", `localhost:${port}`)).status).toBe(200)
})

test("a POST with the cookie must come from the console's own page; the form holds no token", async () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    get(`/runs/${RUN}/what-if`, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers } })
  const form = new URLSearchParams({ lf: "not-an-lf", code: "x" }).toString()
  expect((await post(form, { origin: "http://evil.example" })).status).toBe(403)
  // Another port of 127.0.0.1 is the same site, so its form would carry the cookie: the Origin tells it apart.
  expect((await post(form, { origin: other.url })).status).toBe(403)
  // Chromium posts the console's own form with `Origin: null` (no-referrer); only Sec-Fetch-Site tells it from another site's.
  expect((await post(form, { origin: "null", "sec-fetch-site": "cross-site" })).status).toBe(403)
  expect((await post(form, { origin: "null", "sec-fetch-site": "same-origin" })).status).toBe(200)
  const json = await get(`/runs/${RUN}/what-if`, { method: "POST", body: JSON.stringify({ lf: "x" }), headers: { origin: c.url } })
  expect(json.status).toBe(415)
  const accepted = await post(form, { origin: c.url })
  expect(accepted.status).toBe(200)
  // The form's fields reached the page as params (it names the bad id back).
  expect(await accepted.text()).toContain("is not a label function id")
}, 60_000)

test("no page holds the token, not even the what-if form's", async () => {
  const links = async (path: string, under: string): Promise<Array<string>> => {
    const text = await (await get(path)).text()
    expect([path, text.includes(c.token)]).toEqual([path, false])
    return [...text.matchAll(new RegExp(`href="(/runs/${RUN}/${under}/[^"#?]+)"`, "g"))].map((m) => m[1]!)
  }
  const tasks = await links(`/runs/${RUN}`, "tasks")
  expect(tasks.length).toBeGreaterThan(0)
  const lfs = [...new Set((await Promise.all(tasks.map((t) => links(t, "lfs")))).flat())]
  expect(lfs.length).toBeGreaterThan(0)
  for (const lf of lfs) {
    const text = await (await get(lf)).text()
    expect(text).toContain('action="/runs/')
    expect([lf, text.includes(c.token), text.includes('name="token"')]).toEqual([lf, false, false])
  }
  await links("/", "none")
  const lf = lfs[0]!.split("/").at(-1)!
  const whatIf = await get(`/runs/${RUN}/what-if`, {
    method: "POST",
    body: new URLSearchParams({ lf, code: "function labelFunction(t) { return -1 }" }).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin: c.url }
  })
  expect(whatIf.status).toBe(200)
  expect(await whatIf.text()).not.toContain(c.token)
}, 60_000)

test("/blob/ serves only 64-hex names from the blob store, typed by their bytes", async () => {
  for (const path of [
    "/blob/../package.json",
    "/blob/%2e%2e/package.json",
    "/blob/..%2f..%2fpackage.json",
    "/blob/a9328762",
    `/blob/${PNG.toUpperCase()}`,
    `/blob/${PNG}/x`,
    `/blob/${"0".repeat(64)}`
  ]) {
    expect([path, (await raw(path)).status]).toEqual([path, 404])
  }
  const res = await get(`/blob/${PNG}`)
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toBe("image/png")
  expect(res.headers.get("cache-control")).toContain("immutable")
  expect(new Uint8Array(await res.arrayBuffer()).slice(1, 4)).toEqual(new TextEncoder().encode("PNG"))
})

test("/assets/ serves the two assets and nothing else", async () => {
  const js = await get("/assets/console.js")
  expect(js.status).toBe(200)
  expect(js.headers.get("content-type")).toContain("javascript")
  expect(await js.text()).toContain("EventSource")
  expect((await get("/assets/console.css")).headers.get("content-type")).toContain("text/css")
  for (const path of ["/assets/../package.json", "/assets/%2e%2e/package.json", "/assets/console.ts", "/assets/", "/assets/x.js"]) {
    expect([path, (await raw(path)).status]).toEqual([path, 404])
  }
})

/** Reads the event stream until `done` holds for the text so far. */
const readUntil = async (reader: ReadableStreamDefaultReader<Uint8Array>, done: (text: string) => boolean): Promise<string> => {
  let text = ""
  const decoder = new TextDecoder()
  while (!done(text)) {
    const chunk = await reader.read()
    if (chunk.done) break
    text += decoder.decode(chunk.value, { stream: true })
  }
  return text
}

test("/live sends each new commit of the run it follows", async () => {
  const res = await get(`/live?run=${RUN}`)
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toContain("text/event-stream")
  const reader = res.body!.getReader()
  await readUntil(reader, (t) => t.includes(": following the log"))
  const append = (runId: string) =>
    runtime.runPromise(
      Effect.gen(function* () {
        const stream = runStream(runId, "job", `console-test-${Date.now()}`)
        const event = makeEvent(JobQueued, {
          stream,
          runId,
          causationId: `cause-${stream}`,
          ordinal: 0,
          recordedAt: "2026-12-02T00:00:00.000Z",
          data: { jobId: "console-test", kind: "rollout", round: 1, taskId: "t1", params: {} }
        })
        return yield* (yield* EventStore).append(stream, [event], { expectedRevision: 0 })
      })
    )
  // Another run's commit is not this stream's business.
  await append("console-test-other")
  const mine = await append(RUN)
  const text = await readUntil(reader, (t) => t.includes("event: log"))
  const data = text.split("event: log\ndata: ")[1]!.split("\n")[0]!
  expect(JSON.parse(data)).toEqual({ position: mine.position, runId: RUN })
  await reader.cancel()
  expect((await get("/live?run=not.a.run")).status).toBe(404)
}, 30_000)

test("the layout escapes the title, names the live stream and says how far the read models lag", () => {
  const doc = layout({
    title: "<img src=x onerror=alert(1)>",
    body: html`<p>body</p>`,
    live: { runId: "r-1" },
    lag: { head: 12, checkpoint: 9, problem: "catch-up failed: <b>locked</b>" }
  })
  expect(doc.startsWith("<!doctype html>")).toBe(true)
  expect(doc).toContain("<title>&lt;img src=x onerror=alert(1)&gt; · CORE console</title>")
  expect(doc).toContain('<body data-live="/live?run=r-1">')
  expect(doc).toContain("read models at log position 9 of 12 (3 behind): catch-up failed: &lt;b&gt;locked&lt;/b&gt;")
  expect(doc).toContain("<main>\n<p>body</p>\n</main>")
  const caughtUp = layout({ title: "t", body: html``, lag: { head: 5, checkpoint: 5, problem: null } })
  expect(caughtUp).not.toContain("read models at")
  expect(caughtUp).toContain("<body>")
})
